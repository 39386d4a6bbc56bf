"""``report.html``, one self-contained page (docs/design/gate.md), and :func:`write_reports`, which
writes every output of a run: the page, ``results.json`` (:mod:`.results`), ``junit.xml``
(:mod:`.junit`) and ``summary.md`` (:mod:`.summary`). Texts that come from the model or the data
are escaped."""

import base64
import datetime
import html
import json
from pathlib import Path

from ..shared.files import atomic_write_text
from .junit import write_junit
from .results import overall_status, results_document
from .summary import baseline_line, count_line, notes, reasons, summary_markdown
from .verdict import FAIL, NOT_COMPARABLE, NOT_JUDGED, PASS, fmt

esc = html.escape


# ------------------------------------------------------------------ HTML
CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f4f6f9;color:#1f2933}
main{max-width:1100px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:18px;margin:30px 0 10px;border-bottom:1px solid #d5dbe3;padding-bottom:4px}
.sub{color:#52606d;font-size:13px;margin-bottom:18px}
.banner{padding:12px 18px;border-radius:8px;font-size:18px;font-weight:600;margin-bottom:16px;color:#fff}
.banner.pass{background:#1e7b34}.banner.fail{background:#b42318}.banner.nc{background:#b54708}
.banner.nj{background:#52606d}
.cards{display:flex;gap:14px;flex-wrap:wrap}
.card{background:#fff;border:1px solid #d5dbe3;border-left:6px solid;border-radius:8px;padding:10px 16px;flex:1 1 230px}
.card.pass{border-left-color:#1e7b34}.card.fail{border-left-color:#b42318}.card.nc{border-left-color:#b54708}
.card.nj{border-left-color:#9aa5b1}.s.worse{color:#b42318;font-weight:600}
.card .k{font-size:12px;color:#52606d;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:24px;font-weight:600}.card .s{font-size:12px;color:#52606d}
.tag{display:inline-block;font-size:12px;font-weight:700;padding:1px 8px;border-radius:10px;color:#fff}
.tag.pass{background:#1e7b34}.tag.fail{background:#b42318}.tag.nc{background:#b54708}.tag.nj{background:#9aa5b1}
table.compare tr.worse td{background:#fde8e7;color:#912018}table.compare tr.nc td{background:#fef0c7}
ul.why{margin:6px 0;padding-left:20px;font-size:13px;color:#912018}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px;border:1px solid #d5dbe3;margin:8px 0}
th,td{padding:5px 10px;border-bottom:1px solid #e4e8ee;text-align:left;vertical-align:top}
th{background:#e9eef5;font-weight:600}
img{max-width:100%;background:#fff;border:1px solid #d5dbe3;border-radius:6px;margin:6px 0}
.evidence{background:#fff;border-left:4px solid #4c6a92;padding:8px 14px;margin:8px 0;font-size:13px}
.note{color:#52606d;font-size:12px}
"""


def _cell(v):
    if isinstance(v, float):
        return esc(fmt(v))
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


STATUS_CLASS = {PASS: "pass", FAIL: "fail", NOT_COMPARABLE: "nc", NOT_JUDGED: "nj"}


def _tag(v):
    return f'<span class="tag {STATUS_CLASS[v.status]}">{esc(v.verdict_text())}</span>'


def _comparison_table(verdicts):
    """Baseline, current and difference per check; a row is red where the check is worse than the
    baseline beyond its tolerance, amber where it could not be compared."""
    head = (
        "<tr><th>check</th><th>metric</th><th>baseline</th><th>current</th><th>difference</th>"
        "<th>tolerance</th><th>threshold</th><th>verdict</th></tr>"
    )
    rows = []
    for v in verdicts:
        c = v.comparison
        cls = "worse" if v.baseline_failed else ("nc" if v.status == NOT_COMPARABLE else "")
        if c is None:
            base, diff, tol = "—", "—", "—"
        else:
            base = "—" if c.value is None and not v.compared else fmt(c.value)
            diff = fmt(v.delta) if v.delta is None else f"{v.delta:+.4g}"
            if v.compared and v.worse_by is not None:
                diff += (
                    " (worse)"
                    if v.baseline_failed
                    else " (worse, within tolerance)"
                    if v.worse_by > 0
                    else " (better)"
                    if v.worse_by < 0
                    else ""
                )
            elif not v.compared:
                diff = "not comparable"
            tol = v.tolerance_text()
        rows.append(
            f'<tr class="{cls}"><td><a href="#{esc(v.name)}">{esc(v.name)}</a></td><td>{esc(v.metric)}</td>'
            f"<td>{esc(base)}</td><td>{esc(fmt(v.value))}</td><td>{esc(diff)}</td><td>{esc(tol)}</td>"
            f"<td>{esc(v.rule)}</td><td>{_tag(v)}</td></tr>"
        )
    return f'<table class="compare">{head}{"".join(rows)}</table>'


def _card(v):
    extra = ""
    if v.comparison is not None and v.compared:
        extra = (
            f'<div class="s {"worse" if v.baseline_failed else ""}">baseline {esc(fmt(v.comparison.value))} · '
            f"{esc(fmt(v.delta) if v.delta is None else f'{v.delta:+.4g}')} · tolerance {esc(v.tolerance_text())}</div>"
        )
    elif v.comparison is not None:
        extra = '<div class="s">not comparable with the baseline</div>'
    return (
        f'<div class="card {STATUS_CLASS[v.status]}" id="card-{esc(v.name)}"><div class="k">{esc(v.name)} · '
        f'{esc(v.kind)}</div><div class="v">{esc(fmt(v.value))} {_tag(v)}</div><div class="s">{esc(v.metric)} '
        f"{esc(v.rule)}{' · reused' if v.reused else ''}</div>{extra}</div>"
    )


def render_html(config, verdicts, evaluations, folders, elapsed, baseline=None):
    """One page: the overall banner, the comparison with the baseline, a verdict card per check, then
    per check its reasons, evidence, table, existing charts (inline PNG) and examples. No external
    resource. ``folders``: check name -> the folder its evaluation's files lie in."""
    status = overall_status(verdicts)
    banner = f'<div class="banner {STATUS_CLASS[status]}">{esc(status.upper())}: {esc(count_line(verdicts))}</div>'
    base = f'<div class="sub">{esc(baseline_line(verdicts, baseline))}</div>' if baseline is not None else ""
    sections = []
    for v in verdicts:
        ev = evaluations[v.name]
        images = "".join(_image(Path(folders[v.name]) / f) for f in ev.files.values())
        values = ", ".join(f"{esc(k)} = {esc(fmt(x))}" for k, x in ev.values.items())
        why = "".join(f"<li>{esc(t)}</li>" for _, t in reasons([v]) + notes([v]))
        sections.append(
            f'<h2 id="{esc(v.name)}">{esc(v.name)} {_tag(v)}</h2>'
            + (f'<ul class="why">{why}</ul>' if why else "")
            + f'<div class="evidence"><b>{esc(v.metric)} = {esc(fmt(v.value))}</b> (threshold '
            f'{esc(v.rule)}): {esc(v.evidence)}<br><span class="note">all metrics of this evaluation: {values}</span>'
            f"</div>{_table(ev.rows)}{images}{_examples(ev.examples)}"
        )
    title = f"Robustness gate: {config.model}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
        f"<style>{CSS}</style></head><body><main><h1>{esc(title)}</h1>"
        f'<div class="sub">textattack-so check {esc(config.path)} · dataset {esc(config.dataset)} '
        f"({esc(config.split)}) · {datetime.datetime.now():%Y-%m-%d %H:%M} · {elapsed:.1f} s</div>"
        f"{banner}{base}{_comparison_table(verdicts)}"
        f'<div class="cards">{"".join(_card(v) for v in verdicts)}</div>{"".join(sections)}</main></body></html>\n'
    )


def write_reports(config, verdicts, context, elapsed, baseline=None):
    """Write ``report.html``, ``results.json``, ``junit.xml`` and ``summary.md`` to the output folder;
    returns ``{"html", "json", "junit", "summary": path}`` and the results document."""
    out = context.out
    out.mkdir(parents=True, exist_ok=True)
    evaluations = {name: f.evaluation for name, f in context.done.items()}
    folders = {name: f.folder for name, f in context.done.items()}
    paths = {
        "html": out / "report.html",
        "json": out / "results.json",
        "junit": out / "junit.xml",
        "summary": out / "summary.md",
    }
    document = results_document(config, verdicts, elapsed, baseline)
    atomic_write_text(paths["html"], render_html(config, verdicts, evaluations, folders, elapsed, baseline))
    atomic_write_text(paths["json"], json.dumps(document, indent=2, default=str))
    write_junit(paths["junit"], config, verdicts, elapsed, baseline)
    atomic_write_text(paths["summary"], summary_markdown(config, verdicts, elapsed, baseline))
    return paths, document
