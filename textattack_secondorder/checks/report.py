"""What the gate writes: the console table, ``results.json``, ``junit.xml`` and one self-contained
``report.html`` (docs/methods.md §8). Texts that come from the model or the data are escaped."""

import base64
import datetime
import html
import json
import platform
from pathlib import Path
from xml.etree import ElementTree as ET

from ..shared.files import atomic_write_text
from .base import AT_MOST

esc = html.escape
SUITE = "textattack-so check"


def _value(v, digits=4):
    if v is None or v != v:
        return "n/a"
    return f"{v:.{digits}g}" if isinstance(v, float) else str(v)


def format_table(verdicts):
    head = f"{'check':22s} {'kind':15s} {'metric':22s} {'value':>10s} {'rule':>12s}  verdict"
    lines = [head, "-" * len(head)]
    for v in verdicts:
        lines.append(
            f"{v.name[:22]:22s} {v.kind:15s} {v.metric:22s} {_value(v.value):>10s} {v.rule:>12s}  "
            f"{'PASS' if v.passed else 'FAIL'}{'  (reused)' if v.reused else ''}"
        )
    failed = [v for v in verdicts if not v.passed]
    lines.append("-" * len(head))
    lines.append(
        f"{len(verdicts) - len(failed)} passed, {len(failed)} failed"
        + (": " + ", ".join(v.name for v in failed) if failed else "")
    )
    return "\n".join(lines)


def write_results_json(path, config, verdicts, elapsed):
    payload = {
        "config": config.path,
        "model": config.model,
        "dataset": config.dataset,
        "split": config.split,
        "passed": all(v.passed for v in verdicts),
        "elapsed_seconds": round(elapsed, 2),
        "checks": [v.to_dict() for v in verdicts],
    }
    atomic_write_text(path, json.dumps(payload, indent=2, default=str))


def failure_text(v):
    cmp = "above" if v.direction == AT_MOST else "below"
    by = abs(v.value - v.threshold)
    return f"{v.metric} = {_value(v.value)} is {cmp} the threshold {v.threshold:g} by {by:.4g} ({v.rule} passes)"


def junit_tree(config, verdicts, elapsed):
    """JUnit XML as CI systems read it: testsuites > testsuite (properties) > testcase (failure, system-out)."""
    failures = sum(not v.passed for v in verdicts)
    root = ET.Element(
        "testsuites", name=SUITE, tests=str(len(verdicts)), failures=str(failures), errors="0", time=f"{elapsed:.3f}"
    )
    suite = ET.SubElement(
        root,
        "testsuite",
        name=SUITE,
        tests=str(len(verdicts)),
        failures=str(failures),
        errors="0",
        skipped="0",
        time=f"{elapsed:.3f}",
        timestamp=datetime.datetime.now().replace(microsecond=0).isoformat(),
        hostname=platform.node() or "localhost",
    )
    props = ET.SubElement(suite, "properties")
    base = [("config", config.path), ("model", config.model), ("dataset", config.dataset), ("split", config.split)]
    per_check = []
    for v in verdicts:
        per_check += [
            (f"{v.name}.metric", v.metric),
            (f"{v.name}.value", _value(v.value)),
            (f"{v.name}.threshold", f"{v.threshold:g}"),
            (f"{v.name}.rule", v.rule),
        ]
    for name, value in base + per_check:
        ET.SubElement(props, "property", name=name, value=str(value))
    for v in verdicts:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"robustness.{v.kind}",
            name=f"{v.name}: {v.metric} {v.rule}",
            time=f"{v.seconds:.3f}",
        )
        if not v.passed:
            failure = ET.SubElement(case, "failure", message=failure_text(v), type="ThresholdExceeded")
            failure.text = f"{failure_text(v)}\nevidence: {v.evidence}"
        out = ET.SubElement(case, "system-out")
        out.text = (
            f"value: {_value(v.value)}\nthreshold: {v.threshold:g} ({v.rule})\nevidence: {v.evidence}\n"
            f"{'reused the stored evaluation' if v.reused else 'evaluated'}"
        )
    return ET.ElementTree(root)


def write_junit(path, config, verdicts, elapsed):
    tree = junit_tree(config, verdicts, elapsed)
    ET.indent(tree)
    atomic_write_text(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(tree.getroot(), "unicode") + "\n")


# ------------------------------------------------------------------ HTML
CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f4f6f9;color:#1f2933}
main{max-width:1100px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:18px;margin:30px 0 10px;border-bottom:1px solid #d5dbe3;padding-bottom:4px}
.sub{color:#52606d;font-size:13px;margin-bottom:18px}
.banner{padding:12px 18px;border-radius:8px;font-size:18px;font-weight:600;margin-bottom:16px;color:#fff}
.banner.pass{background:#1e7b34}.banner.fail{background:#b42318}
.cards{display:flex;gap:14px;flex-wrap:wrap}
.card{background:#fff;border:1px solid #d5dbe3;border-left:6px solid;border-radius:8px;padding:10px 16px;flex:1 1 230px}
.card.pass{border-left-color:#1e7b34}.card.fail{border-left-color:#b42318}
.card .k{font-size:12px;color:#52606d;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:24px;font-weight:600}.card .s{font-size:12px;color:#52606d}
.tag{display:inline-block;font-size:12px;font-weight:700;padding:1px 8px;border-radius:10px;color:#fff}
.tag.pass{background:#1e7b34}.tag.fail{background:#b42318}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px;border:1px solid #d5dbe3;margin:8px 0}
th,td{padding:5px 10px;border-bottom:1px solid #e4e8ee;text-align:left;vertical-align:top}
th{background:#e9eef5;font-weight:600}
img{max-width:100%;background:#fff;border:1px solid #d5dbe3;border-radius:6px;margin:6px 0}
.evidence{background:#fff;border-left:4px solid #4c6a92;padding:8px 14px;margin:8px 0;font-size:13px}
.note{color:#52606d;font-size:12px}
"""


def _cell(v):
    if isinstance(v, float):
        return esc(_value(v))
    return esc(str(v))


def _table(rows):
    if not rows:
        return ""
    cols = list(rows[0])
    head = "".join(f"<th>{esc(str(c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c, ''))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _image(path):
    path = Path(path)
    if not path.exists() or path.suffix != ".png":
        return ""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{esc(path.name)}" src="data:image/png;base64,{data}">'


def _examples(examples):
    if not examples:
        return ""
    rows = "".join(
        f"<tr><td>{esc(e['original'])}</td><td>{esc(e['perturbed'])}</td><td>{esc(e['outputs'])}</td></tr>"
        for e in examples
    )
    return (
        "<h3>Examples</h3><table><tr><th>original</th><th>perturbed / vulnerable</th><th>outputs</th></tr>"
        + rows
        + "</table>"
    )


def render_html(config, verdicts, evaluations, out, elapsed):
    """One page: the overall banner, a verdict card per check, then per check its evidence, table,
    existing charts (inline PNG) and examples. No external resource."""
    failed = [v for v in verdicts if not v.passed]
    banner = (
        f'<div class="banner {"fail" if failed else "pass"}">'
        + (
            f"FAIL: {len(failed)} of {len(verdicts)} checks failed ({esc(', '.join(v.name for v in failed))})"
            if failed
            else f"PASS: all {len(verdicts)} checks passed"
        )
        + "</div>"
    )
    cards = "".join(
        f'<div class="card {"pass" if v.passed else "fail"}" id="card-{esc(v.name)}"><div class="k">{esc(v.name)} · '
        f'{esc(v.kind)}</div><div class="v">{esc(_value(v.value))} <span class="tag {"pass" if v.passed else "fail"}">'
        f'{"PASS" if v.passed else "FAIL"}</span></div><div class="s">{esc(v.metric)} {esc(v.rule)}'
        f"{' · reused' if v.reused else ''}</div></div>"
        for v in verdicts
    )
    sections = []
    for v in verdicts:
        ev = evaluations[v.name]
        images = "".join(_image(Path(out) / v.name / f) for f in ev.files.values())
        values = ", ".join(f"{esc(k)} = {esc(_value(x))}" for k, x in ev.values.items())
        sections.append(
            f'<h2>{esc(v.name)} <span class="tag {"pass" if v.passed else "fail"}">{"PASS" if v.passed else "FAIL"}'
            f'</span></h2><div class="evidence"><b>{esc(v.metric)} = {esc(_value(v.value))}</b> (threshold '
            f'{esc(v.rule)}): {esc(v.evidence)}<br><span class="note">all metrics of this evaluation: {values}</span>'
            f"</div>{_table(ev.rows)}{images}{_examples(ev.examples)}"
        )
    title = f"Robustness gate: {config.model}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
        f"<style>{CSS}</style></head><body><main><h1>{esc(title)}</h1>"
        f'<div class="sub">textattack-so check {esc(config.path)} · dataset {esc(config.dataset)} '
        f"({esc(config.split)}) · {datetime.datetime.now():%Y-%m-%d %H:%M} · {elapsed:.1f} s</div>"
        f'{banner}<div class="cards">{cards}</div>{"".join(sections)}</main></body></html>\n'
    )


def write_reports(config, verdicts, context, elapsed):
    out = context.out
    out.mkdir(parents=True, exist_ok=True)
    evaluations = {name: f.evaluation for name, f in context.done.items()}
    paths = {"html": out / "report.html", "json": out / "results.json", "junit": out / "junit.xml"}
    atomic_write_text(paths["html"], render_html(config, verdicts, evaluations, out, elapsed))
    write_results_json(paths["json"], config, verdicts, elapsed)
    write_junit(paths["junit"], config, verdicts, elapsed)
    return paths
