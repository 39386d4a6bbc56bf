"""The short forms of a gate run: the console table and ``summary.md``, a few lines of Markdown for a
pull-request comment or a CI step summary (``$GITHUB_STEP_SUMMARY``; docs/design/gate.md)."""

from .results import counts, overall_status, same_model
from .verdict import FAIL, NOT_COMPARABLE, NOT_IN_BASELINE, NOT_JUDGED, fmt

MARK = {"pass": "✅", FAIL: "❌", NOT_COMPARABLE: "⚠️", NOT_JUDGED: "➖"}


def _change(v):
    if v.comparison is None:
        return "—"
    if not v.compared:
        return "n/c"
    d = v.delta
    return "n/a" if d is None else f"{d:+.4g}"


def _baseline_value(v):
    return "—" if v.comparison is None or v.comparison.state == NOT_IN_BASELINE else fmt(v.comparison.value)


def count_line(verdicts):
    """``4 passed, 1 failed (so-beam), 1 not comparable (rho-star)``."""
    names = {s: [v.name for v in verdicts if v.status == s] for s in counts(verdicts)}
    parts = []
    for status, n in counts(verdicts).items():
        if n or status in ("pass", FAIL):
            word = {"pass": "passed", FAIL: "failed"}.get(status, status)
            parts.append(f"{n} {word}" + (f" ({', '.join(names[status])})" if n and status != "pass" else ""))
    return ", ".join(parts)


def reasons(verdicts):
    """``(check name, sentence)`` for every failed rule and every check that could not be judged."""
    out = []
    for v in verdicts:
        out += [(v.name, m) for m in v.messages()]
        if v.status == NOT_COMPARABLE:
            out.append((v.name, v.not_comparable_text()))
        if v.status == NOT_JUDGED:
            out.append((v.name, "no threshold and no baseline: give --baseline PATH or a threshold"))
    return out


def notes(verdicts):
    """``(check name, sentence)`` for every value that rests on fewer sentences than its tolerance resolves."""
    return [(v.name, v.resolution_text()) for v in verdicts if v.resolution_text()]


def baseline_line(verdicts, baseline):
    if baseline is None:
        return ""
    same = same_model(verdicts, baseline)
    model = {True: "the same model", False: "another model", None: "model unknown"}[same]
    return f"baseline: {baseline.describe()}; this run: {model}"


def format_table(verdicts, baseline=None):
    head = (
        f"{'check':22s} {'metric':22s} {'value':>9s} {'threshold':>10s} {'baseline':>9s} {'change':>9s} "
        f"{'tolerance':>9s}  verdict"
    )
    lines = [head, "-" * len(head)]
    for v in verdicts:
        tol = "—" if v.comparison is None else f"{v.tolerance:g}"
        lines.append(
            f"{v.name[:22]:22s} {v.metric:22s} {fmt(v.value):>9s} {v.rule:>10s} {_baseline_value(v):>9s} "
            f"{_change(v):>9s} {tol:>9s}  {v.verdict_text()}{'  (reused)' if v.reused else ''}"
        )
    lines.append("-" * len(head))
    lines.append(count_line(verdicts))
    lines += [f"  {name}: {text}" for name, text in reasons(verdicts)]
    lines += [f"  {name}: note: {text}" for name, text in notes(verdicts)]
    if baseline is not None:
        lines.append(baseline_line(verdicts, baseline))
    return "\n".join(lines)


def _md(text):
    """Text safe in a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_markdown(config, verdicts, elapsed, baseline=None):
    """A heading with the overall result, one table row per check, the reasons: short enough for a
    pull-request comment."""
    status = overall_status(verdicts)
    reused = sum(v.reused for v in verdicts)
    lines = [
        f"### {MARK.get(status, '')} Robustness gate: {status.upper()}",
        "",
        f"Model `{_md(config.model)}` · {len(verdicts)} checks: {count_line(verdicts)}",
    ]
    if baseline is not None:
        lines.append(f"Compared with {_md(baseline_line(verdicts, baseline)[len('baseline: ') :])}")
    lines += [
        "",
        "| | check | metric | baseline | current | change | tolerance | threshold |",
        "|:-:|---|---|--:|--:|--:|--:|--:|",
    ]
    for v in verdicts:
        unit = f" ({v.unit})" if v.unit else ""
        lines.append(
            f"| {MARK.get(v.status, '')} | {_md(v.name)} | {_md(v.metric)}{_md(unit)} | {_baseline_value(v)} | "
            f"{fmt(v.value)} | {_change(v)} | {'—' if v.comparison is None else f'{v.tolerance:g}'} | "
            f"{_md(v.rule.replace('<=', '≤').replace('>=', '≥'))} |"
        )
    why = reasons(verdicts) + [(name, f"note: {text}") for name, text in notes(verdicts)]
    if why:
        lines += [""] + [f"- **{_md(name)}**: {_md(text)}" for name, text in why]
    lines += [
        "",
        f"<sub>textattack-so check {_md(config.path)} · {elapsed:.1f} s, {reused} of {len(verdicts)} checks "
        "reused · details: report.html, results.json, junit.xml</sub>",
    ]
    return "\n".join(lines) + "\n"
