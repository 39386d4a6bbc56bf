"""The files of a defense comparison (docs/design/defenses.md): rows, mean ± spread over seeds, Markdown, HTML.

* ``comparison.json``: a list of rows, one per defense and seed (``pandas.read_json`` loads it);
* ``comparison_summary.json``: per defense, the mean, the standard deviation over seeds and the number of
  seeds of every column (vanilla has no seed: one model, measured once);
* ``comparison.md``: that summary as a Markdown table, with what was measured on what, a row or column that rests on
  too little marked ⚠ and said why (:mod:`.comparison_warnings`);
* ``comparison.html``: the same table on a page in the robustness report's style.
"""

import html
import json
import statistics
from pathlib import Path

from ..shared.files import atomic_write_text
from ..shared.label_names import readable_names
from .comparison_warnings import marks

WARNED = "⚠"  # marks a row or column that rests on too little; the lines under the table say why

#: the columns of the table: (row key, heading, what it is)
COLUMNS = (
    ("accuracy", "accuracy", "clean accuracy on the test set (%)"),
    ("rho", "ρ", "robustness to one-word change on training rows (EUBA, %)"),
    ("rho_star", "ρ*", "the same on the attacked test sentences (%)"),
    (
        "sp_attack_asr",
        "SP-Attack ASR",
        "SP-Attack successes / attacked sentences (κ of the model from held-out sentences, %)",
    ),
    ("textfooler_asr", "textfooler ASR", "textfooler-offline successes / attacked sentences (%)"),
    ("asr1", "ASR1", "textfooler-offline successes that changed one word / attacked sentences (%)"),
    ("so_beam_per_100", "so-beam per 100", "so-beam vulnerable examples per 100 sentences given (second order)"),
)


def summarize(rows):
    """``[{defense, seeds, <column>: {mean, sd}}]`` in the rows' order of defenses."""
    out = []
    for defense in dict.fromkeys(r["defense"] for r in rows):
        rs = [r for r in rows if r["defense"] == defense]
        entry = {"defense": defense, "seeds": [r["seed"] for r in rs]}
        for key, _, _ in COLUMNS:
            values = [r[key] for r in rs if r.get(key) is not None]
            entry[key] = {
                "mean": round(statistics.fmean(values), 2) if values else None,
                "sd": round(statistics.stdev(values), 2) if len(values) > 1 else None,
                "n": len(values),
            }
        entry["train_seconds"] = round(statistics.fmean(r["train_seconds"] for r in rs), 1)
        entry["sp_attack_label_rule"] = sorted({r.get("sp_attack_label_rule", "paper") for r in rs})
        out.append(entry)
    return out


def _cell(stat):
    if stat["mean"] is None:
        return "n/a"
    return f"{stat['mean']:.1f}" if stat["sd"] is None else f"{stat['mean']:.1f} ± {stat['sd']:.1f}"


def settings_lines(settings, data):
    """What the table was measured on, in words."""
    sets = data["sets"]
    return [
        f"model {settings['model']}; training data {data['train_source']}; test data {data['test_source']}",
        f"{settings['steps']} fine-tuning steps, batch {settings['batch_size']}, learning rate "
        f"{settings['lr'] or 'the default'}, embeddings {settings['embeddings']}",
        f"accuracy on {len(sets.test)} test rows; ρ on {len(sets.rho_train)} training rows and ρ* on "
        f"{len(sets.rho_test)} test sentences (EUBA m = {settings['m']}, {vocabulary_words(settings)})",
        f"attacks on the same {len(sets.attacked)} test sentences; SP-Attack's κ of each model from "
        f"{len(sets.kappa)} other held-out test sentences (in no defense's fine-tuning, never attacked)",
        f"so-beam on the first {len(sets.so_beam)} of the attacked sentences",
        f"recipes: `{settings['sp_attack_recipe']}`, `{settings['textfooler_recipe']}`, `{settings['so_beam_recipe']}`",
    ] + classes_lines(data)


def vocabulary_words(settings):
    """Which vocabulary entries κ and ρ try, in words."""
    limit = f"the first {settings['vocab_limit']} " if settings["vocab_limit"] else "all "
    if settings.get("vocab_from"):
        return f"{limit}vocabulary entries that occur in {settings['vocab_from']}"
    return f"{limit}vocabulary entries"


def classes_lines(data):
    """The model's classes by number and name (``classes: 0 negative, 1 neutral, 2 positive``), where it names them;
    the attacks' rows (``work/<cell>/<attack>_rows.json``) give each success's outputs by these names."""
    names = readable_names(data.get("label_names"))
    return [f"classes: {', '.join(f'{i} {n}' for i, n in enumerate(names))}"] if names else []


def cpu_line(rows):
    """The CPU time the comparison took, by kind of work (rows written before CPU times were kept count 0)."""
    train = sum(r.get("train_cpu_seconds") or 0 for r in rows)
    parts = {}
    for r in rows:
        for k, v in (r.get("measure_cpu_seconds") or {}).items():
            parts[k] = parts.get(k, 0) + (v or 0)
    total = train + sum(parts.values())
    shown = ", ".join(f"{k} {v / 60:.0f}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]))
    return (
        f"CPU time of the models in the table: {total / 3600:.2f} h (training {train / 60:.0f} min; measuring, "
        f"in minutes: {shown})"
    )


def _marked(text, warned):
    return f"{text} {WARNED}" if warned else text


def markdown(summary, settings, data, rows=()):
    defenses, columns, warnings = marks(rows, data)
    heads = " | ".join(_marked(h, k in columns) for k, h, _ in COLUMNS)
    lines = ["| defense | seeds | " + heads + " | SP-Attack label rule | train s |"]
    lines.append("|---|---|" + "---|" * (len(COLUMNS) + 2))
    for e in summary:
        seeds = ", ".join("–" if s is None else str(s) for s in e["seeds"])
        cells = " | ".join(_cell(e[k]) for k, _, _ in COLUMNS)
        rule = ", ".join(e["sp_attack_label_rule"])
        name = _marked(e["defense"], e["defense"] in defenses)
        lines.append(f"| {name} | {seeds} | {cells} | {rule} | {e['train_seconds']:.0f} |")
    notes = ["", "Mean ± standard deviation over seeds (vanilla: the model as given, one measurement)."]
    notes += [f"- {WARNED} {line}" for line in warnings]
    notes += [f"- {line}" for line in settings_lines(settings, data) + ([cpu_line(rows)] if rows else [])]
    notes += [f"- {h}: {what}" for _, h, what in COLUMNS]
    return "\n".join(lines + notes) + "\n"


def html_page(summary, settings, data, rows=()):
    defenses, columns, warnings = marks(rows, data)
    head = "".join(f"<th title='{html.escape(w)}'>{html.escape(_marked(h, k in columns))}</th>" for k, h, w in COLUMNS)
    body = "".join(
        "<tr><td>{}</td><td>{}</td>{}</tr>".format(
            html.escape(_marked(e["defense"], e["defense"] in defenses)),
            html.escape(", ".join("–" if s is None else str(s) for s in e["seeds"])),
            "".join(f"<td>{html.escape(_cell(e[k]))}</td>" for k, _, _ in COLUMNS),
        )
        for e in summary
    )
    lines = [f"{WARNED} {line}" for line in warnings] + settings_lines(settings, data)
    notes = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Defense comparison</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse}}
th,td{{border:1px solid #ccc;padding:.35em .7em;text-align:right}}th{{background:#f3f3f3}}
td:first-child,th:first-child{{text-align:left}}li{{margin:.2em 0}}</style></head><body>
<h1>Defense comparison: {html.escape(settings["model"])}</h1>
<p>Mean ± standard deviation over seeds (vanilla: the model as given).</p>
<table><tr><th>defense</th><th>seeds</th>{head}</tr>{body}</table><ul>{notes}</ul></body></html>
"""


def write_report(rows, settings, data, out):
    """Write the four files of the module docstring to ``out``; returns the summary."""
    out = Path(out)
    summary = summarize(rows)
    atomic_write_text(out / "comparison.json", json.dumps(rows, indent=1) + "\n")
    atomic_write_text(out / "comparison_summary.json", json.dumps(summary, indent=1) + "\n")
    atomic_write_text(out / "comparison.md", markdown(summary, settings, data, rows))
    atomic_write_text(out / "comparison.html", html_page(summary, settings, data, rows))
    return summary
