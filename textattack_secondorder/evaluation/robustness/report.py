"""Report files of a robustness run: printed table, CSV, JSON, PNG chart and HTML page (docs/design/meaning.md).

The HTML page (and its CSS) is ``templates/report.html``, a ``string.Template``
filled with small pre-rendered fragments (summary cards, table rows, example
perturbations). The page is self-contained: the chart is an inline PNG.
"""

import base64
import datetime
import difflib
import html
import io
import json
from importlib import resources as importlib_resources
from pathlib import Path
from string import Template

import pandas as pd
from matplotlib.figure import Figure

from ...shared.files import atomic_write_text
from ...shared.label_names import label_text
from ..meaning import source_chrf
from .sets import save_sets

TEMPLATE = "report.html"
esc = html.escape


def _pct(x):
    return "–" if x != x else f"{100 * x:.2f}"  # NaN (no changed example) prints as a dash


def format_table(report):
    """The printed table: one line per set, then RB."""
    head = (
        f"{'set':28s} {'n':>5s} {'changed%':>9s} {'accuracy':>9s} {'rel.drop':>9s} {'chrF':>7s} {'chrF(changed)':>13s}"
    )
    lines = [head, "-" * len(head)]
    for r in report.rows:
        lines.append(
            f"{r['set']:28s} {r['examples']:5d} {r['changed_pct']:9.1f} {100 * r['accuracy']:8.2f}% "
            f"{100 * r['relative_drop']:8.2f}% {100 * r['mean_chrf']:7.2f} {_pct(r['mean_chrf_changed']):>13s}"
        )
    lines.append("-" * len(head))
    lines.append(
        f"RB = (1/T) Σ (Acc_org − Acc_i)/Acc_org = {report.rb:.4f}   (T = {len(report.sets)}; smaller is more robust)"
    )
    for level, reason in report.skipped_levels.items():
        lines.append(f"skipped level {level}: {reason}")
    return "\n".join(lines)


def write_report(report, out_dir, title=None, examples_per_set=3):
    """Write ``robustness.csv``, ``robustness.json``, ``sets/*.csv`` and ``report.html`` to ``out_dir``.

    Returns a dict of the written paths.
    """

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"csv": out / "robustness.csv", "json": out / "robustness.json", "html": out / "report.html"}
    atomic_write_text(paths["csv"], pd.DataFrame(report.rows).to_csv(index=False))
    payload = {
        "rb": report.rb,
        "T": len(report.sets),
        "sets": report.rows,
        "settings": report.settings,
        "skipped_levels": report.skipped_levels,
        "formula": "RB = (1/T) * sum_i (Acc_org - Acc_i) / Acc_org",
    }
    atomic_write_text(paths["json"], json.dumps(payload, indent=2, default=str))
    paths["sets"] = save_sets(out, report.texts, report.labels, report.sets)
    atomic_write_text(paths["html"], render_html(report, title=title, examples_per_set=examples_per_set))
    return paths


def plot_png(report):
    """Bar charts (accuracy, mean chrF per set) as PNG bytes."""
    names = [r["set"] for r in report.rows]
    acc = [100 * r["accuracy"] for r in report.rows]
    chrf = [100 * r["mean_chrf"] for r in report.rows]
    colors = ["#4c6a92"] + ["#d9822b" if r["level"] == "adversarial" else "#7fa7c9" for r in report.rows[1:]]
    fig = Figure(figsize=(11, 3.9), dpi=110)  # drawn without pyplot: no backend is chosen, no global state
    axes = fig.subplots(1, 2)
    for ax, values, label in ((axes[0], acc, "accuracy (%)"), (axes[1], chrf, "mean chrF vs original (×100)")):
        bars = ax.bar(range(len(names)), values, color=colors, edgecolor="#333", linewidth=0.5)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20, ha="right", fontsize=9)
        ax.set_ylim(0, 105)
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
        for b, v in zip(bars, values):
            ax.text(b.get_x() + b.get_width() / 2, v + 1.5, f"{v:.1f}", ha="center", fontsize=8)
    axes[0].axhline(acc[0], color="#4c6a92", linestyle="--", linewidth=0.8)
    axes[0].set_title(f"Accuracy per set (RB = {report.rb:.3f})", fontsize=10)
    axes[1].set_title("Source-side preservation s_src(x, x̂)", fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


# ------------------------------------------------------------------ HTML fragments
def _diff_html(original, perturbed):
    """Perturbed text with changed words highlighted and deleted words struck out (word-level diff)."""
    a, b = original.split(), perturbed.split()
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        chunk = esc(" ".join(b[j1:j2]))
        if op == "delete":
            parts.append(f"<del>{esc(' '.join(a[i1:i2]))}</del>")
        elif chunk:
            parts.append(chunk if op == "equal" else f"<mark>{chunk}</mark>")
    return " ".join(parts)


def _verdict(prediction, gold, names=None):
    return f'<span class="{"ok" if prediction == gold else "bad"}">{esc(label_text(prediction, names))}</span>'


def _cards(report):
    acc_org = report.rows[0]["accuracy"]
    worst = max(report.rows[1:], key=lambda r: r["relative_drop"], default=None)
    cards = [
        ("RB index", f"{report.rb:.3f}", "mean relative accuracy drop"),
        ("original accuracy", f"{100 * acc_org:.1f}%", f"{len(report.texts)} examples"),
        ("perturbed sets (T)", str(len(report.sets)), ", ".join(esc(s.level) for s in report.sets)),
    ]
    if worst is not None:
        cards.append(("largest relative drop", f"{100 * worst['relative_drop']:.1f}%", esc(worst["set"])))
    return "".join(
        f'<div class="card"><div class="k">{k}</div><div class="v">{v}</div><div class="s">{s}</div></div>'
        for k, v, s in cards
    )


def _set_rows(report):
    rows = []
    for r in report.rows:
        cls = ' class="org"' if r["set"] == "original" else ""
        rows.append(
            f"<tr{cls}><td>{esc(r['set'])}</td><td>{esc(r['level'])}</td><td class=n>{r['examples']}</td>"
            f"<td class=n>{r['changed_pct']:.1f}%</td><td class=n>{100 * r['accuracy']:.2f}%</td>"
            f"<td class=n>{-100 * r['accuracy_drop'] + 0.0:+.2f}</td><td class=n>{100 * r['relative_drop']:.2f}%</td>"
            f"<td class=n>{100 * r['mean_chrf']:.2f}</td><td class=n>{_pct(r['mean_chrf_changed'])}</td></tr>"
        )
    return "".join(rows)


def _settings_rows(report):
    rows = []
    for k, v in report.settings.items():
        if isinstance(v, dict):
            v = ", ".join(f"{kk}={vv}" for kk, vv in v.items())
        rows.append(f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>")
    for level, reason in report.skipped_levels.items():
        rows.append(f"<tr><th>skipped: {esc(level)}</th><td>{esc(reason)}</td></tr>")
    return "".join(rows)


def _examples(report, examples_per_set):
    """Per set: label flips first, then other changed examples, in index order (at most ``examples_per_set``)."""
    out = []
    orig_preds = report.predictions["original"]
    names = report.label_names
    for s in report.sets:
        preds = report.predictions[s.name]
        changed = [i for i, (o, p) in enumerate(zip(report.texts, s.texts)) if o != p]
        flips = [i for i in changed if preds[i] != orig_preds[i]]
        picked = (flips + [i for i in changed if i not in flips])[:examples_per_set]
        if not picked:
            out.append(f"<h3>{esc(s.name)}</h3><p class=note>no example was changed at this level</p>")
            continue
        trs = []
        for i in picked:
            y = report.labels[i]
            trs.append(
                f"<tr><td class=n>{i}</td><td>{esc(report.texts[i])}</td>"
                f"<td>{_diff_html(report.texts[i], s.texts[i])}</td><td class=n>{esc(label_text(y, names))}</td>"
                f"<td class=n>{_verdict(orig_preds[i], y, names)} → {_verdict(preds[i], y, names)}</td>"
                f"<td class=n>{100 * source_chrf(report.texts[i], s.texts[i]):.1f}</td></tr>"
            )
        out.append(
            f"<h3>{esc(s.name)}</h3><table><tr><th>#</th><th>original</th><th>perturbed "
            f"(changes highlighted)</th><th>gold</th><th>prediction</th><th>chrF</th></tr>" + "".join(trs) + "</table>"
        )
    return "".join(out)


def _template():
    page = importlib_resources.files(__package__).joinpath("templates").joinpath(TEMPLATE)
    return Template(page.read_text(encoding="utf-8"))


def render_html(report, title=None, examples_per_set=3):
    """One self-contained HTML page (``templates/report.html``): summary cards, chart (inline PNG), table,
    example perturbations and settings."""
    return _template().substitute(
        title=esc(title or "Robustness report"),
        generated=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        num_examples=len(report.texts),
        cards=_cards(report),
        rb=f"{report.rb:.4f}",
        chart_png=base64.b64encode(plot_png(report)).decode("ascii"),
        set_rows=_set_rows(report),
        examples=_examples(report, examples_per_set),
        settings_rows=_settings_rows(report),
    )
