"""The figures of the documentation's results pages, drawn from the committed result files.

    python benchmarks/figures.py               # writes docs/figures/*.png
    python benchmarks/figures.py --list        # each figure and the result files it is drawn from
    python benchmarks/figures.py --out DIR     # somewhere else

``FIGURES`` is the one list of what each figure reads (paths under ``benchmarks/results/``): the
benchmarks index and any pruning of the results keep these files. A missing file stops the script
with its name (exit code 1) before anything is drawn; the documentation build runs this script the
same way (``docs/_ext/so_docs.py``), so it fails too. The PNGs are not committed: every build draws
them again from the files.
"""

import argparse
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "figures"

# figure -> the result files it is drawn from (under benchmarks/results/)
FIGURES = {
    # Zhang et al. Table 2 on MR: base vs certified (IBP) victims, per attack, the paper's rules
    "table2.png": (
        "table2/table2.json",
        "table2_bow/table2.json",
        "table2_lstm/table2.json",
    ),
    # defend --compare per victim: SP-Attack success, rho*, so-beam vulnerable per 100, vanilla vs defenses
    "defense_comparison.png": (
        "defense_comparison_mr-cnn_lexicon_3seeds/comparison_summary.json",
        "defense_comparison_mr-lstm_lexicon_3seeds/comparison_summary.json",
        "defense_comparison_mr-minilm_cpu300/comparison_summary.json",
        "defense_comparison_mr-minilm_cpu300_a2t/comparison_summary.json",
    ),
    # so-beam vs bae-offline, seconds per attacked example (package defaults; the paper's rules)
    "so_beam_speed.png": (
        "batched_signals_speed_attack_mr-cnn.json",
        "batched_signals_speed_attack_mr-lstm.json",
        "second_order_speed.json",
    ),
    # counterfactual token bias B_{p,k} of he/she on a planted, an augmented and an unplanted CNN
    "bias.png": ("bias.json",),
}

BASE, CERTIFIED = "#4c72b0", "#dd8452"
DEFENSE_COLOURS = {
    "vanilla": "#7f7f7f",
    "continue": "#8c6d31",
    "rand": "#4c72b0",
    "a2t": "#55a868",
    "sp-defense": "#c44e52",
}
DEFENSE_NAMES = {"vanilla": "vanilla", "continue": "continue", "rand": "Rand", "a2t": "A2T", "sp-defense": "SP-Defense"}


class MissingSources(Exception):
    """Result files a figure is drawn from are not in the checkout."""


def sources(name, results=RESULTS):
    """The result files figure ``name`` is drawn from, as paths."""
    return [Path(results) / rel for rel in FIGURES[name]]


def missing_sources(results=RESULTS):
    """``["figure: path", ...]`` for every source file that does not exist."""
    return [f"{name}: {path}" for name in FIGURES for path in sources(name, results) if not path.is_file()]


def _read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})
    return plt


def _save(fig, path):
    # no date or version in the file: the same results draw the same bytes with the same matplotlib
    fig.savefig(path, dpi=130, bbox_inches="tight", metadata={"Software": None})


TABLE2_ATTACKS = (
    ("alzantot-offline", "Genetic"),
    ("bae-offline", "BAE"),
    ("so-enum", "SO-Enum"),
    ("so-beam", "SO-Beam"),
    ("so-random", "SO-Random"),
)


def draw_table2(files, out, plt):
    fig, axes = plt.subplots(1, len(files), figsize=(3.6 * len(files), 3.4), sharey=True, layout="constrained")
    for ax, path in zip(axes, files):
        rows = _read(path)["rows"]
        # the paper's rules: the second-order cells with rules 'paper', the first-order ones ('-')
        cells = {(r["victim"], r["recipe"]): r for r in rows if r["rules"] in ("paper", "-")}
        victims = list(dict.fromkeys(r["victim"] for r in rows))
        base = next(v for v in victims if not v.endswith("-ibp"))
        certified = next(v for v in victims if v.endswith("-ibp"))
        xs = range(len(TABLE2_ATTACKS))
        for shift, victim, colour, label in ((-0.2, base, BASE, "base"), (0.2, certified, CERTIFIED, "certified")):
            values = [cells[(victim, recipe)]["success_%"] for recipe, _ in TABLE2_ATTACKS]
            ax.bar([x + shift for x in xs], values, 0.4, color=colour, label=f"{victim} ({label})")
            paper = [cells[(victim, recipe)].get("paper_%") for recipe, _ in TABLE2_ATTACKS]
            px = [x + shift for x, p in zip(xs, paper) if p is not None]
            ax.scatter(px, [p for p in paper if p is not None], marker="_", s=160, color="black", zorder=3)
        ax.set_xticks(list(xs), [short for _, short in TABLE2_ATTACKS], rotation=30)
        ax.set_ylim(0, 100)
        sentences = max(r["sentences"] for r in rows)
        ax.set_title(f"{base} / {certified}\nfirst {sentences} MR test sentences", fontsize=9)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), fontsize=8, frameon=False, ncol=2)
    axes[0].set_ylabel("success % of attacked sentences")
    fig.suptitle("Zhang et al. Table 2 on MR, the paper's rules (black line: the paper's SST-2 figure)")
    _save(fig, out)
    plt.close(fig)


DEFENSE_METRICS = (
    ("sp_attack_asr", "SP-Attack\nsuccess %"),
    ("rho_star", "ρ* %"),
    ("so_beam_per_100", "so-beam\nper 100"),
)


def _defense_rows(files):
    """``{victim: {defense: row}}`` from comparison summaries (the victim is named in the folder,
    ``defense_comparison_<victim>_...``); a victim's several files (another defense run beside the same vanilla
    model) are joined."""
    victims = {}
    for path in files:
        victim = Path(path).parent.name.split("_")[2]
        for row in _read(path):
            victims.setdefault(victim, {}).setdefault(row["defense"], row)
    return victims


def draw_defense_comparison(files, out, plt):
    victims = _defense_rows(files)
    fig, axes = plt.subplots(1, len(victims), figsize=(3.6 * len(victims), 3.6), sharey=True, layout="constrained")
    for ax, (victim, rows) in zip(axes, victims.items()):
        defenses = [d for d in DEFENSE_COLOURS if d in rows]
        width = 0.8 / len(defenses)
        for i, defense in enumerate(defenses):
            row = rows[defense]
            xs = [m + (i - (len(defenses) - 1) / 2) * width for m in range(len(DEFENSE_METRICS))]
            means = [row[key]["mean"] for key, _ in DEFENSE_METRICS]
            sds = [row[key]["sd"] or 0 for key, _ in DEFENSE_METRICS]
            seeds = len([s for s in row["seeds"] if s is not None])
            label = DEFENSE_NAMES[defense] + (f" ({seeds} seeds)" if seeds > 1 else "")
            errors = sds if any(sds) else None  # one seed (or the vanilla model): no spread to draw
            ax.bar(xs, means, width, yerr=errors, capsize=2, color=DEFENSE_COLOURS[defense], label=label)
        ax.set_xticks(range(len(DEFENSE_METRICS)), [name for _, name in DEFENSE_METRICS])
        ax.set_ylim(0, 100)
        ax.set_title(victim)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7, frameon=False, ncol=2)
    fig.suptitle("defend --compare per victim (mean ± sd over seeds)")
    _save(fig, out)
    plt.close(fig)


def _speed_runs(path):
    """``{(victim, recipe): seconds per attacked example}`` of a ``benchmarks/second_order.py`` result."""
    return {(r["victim"], r["recipe"]): r["seconds_per_example"] for r in _read(path)["runs"]}


def draw_so_beam_speed(files, out, plt):
    defaults, paper = {}, {}
    for path in files:
        (paper if Path(path).name == "second_order_speed.json" else defaults).update(_speed_runs(path))
    panels = (
        ("the package's defaults\nfirst 100 MR test sentences", defaults),
        ("the paper's patch rule\n30 MR test sentences", paper),
    )
    fig, axes = plt.subplots(1, 2, figsize=(7.6, 3.4), layout="constrained")
    for ax, (title, runs) in zip(axes, panels):
        victims = list(dict.fromkeys(v for v, _ in runs))
        for shift, recipe, colour in ((-0.2, "so-beam", CERTIFIED), (0.2, "bae-offline", BASE)):
            values = [runs[(v, recipe)] for v in victims]
            bars = ax.bar([x + shift for x in range(len(victims))], values, 0.4, color=colour, label=recipe)
            ax.bar_label(bars, fmt="%.2f", fontsize=7)
        ax.set_xticks(range(len(victims)), victims)
        ax.set_title(title, fontsize=9)
        ax.legend(frameon=False, fontsize=8)
    axes[0].set_ylabel("seconds per attacked example")
    fig.suptitle("so-beam beside bae-offline on the same sentences (one CPU thread)")
    _save(fig, out)
    plt.close(fig)


def draw_bias(files, out, plt):
    rows = _read(files[0])["planted"]
    models = list(dict.fromkeys(r["model"] for r in rows))
    ks = sorted({r["k"] for r in rows})
    pair = rows[0]["pair"]
    fig, ax = plt.subplots(figsize=(5.6, 3.4), layout="constrained")
    width = 0.8 / len(ks)
    for i, k in enumerate(ks):
        cells = {r["model"]: r for r in rows if r["k"] == k}
        xs = [m + (i - (len(ks) - 1) / 2) * width for m in range(len(models))]
        values = [cells[m]["B"] for m in models]
        errors = [
            [cells[m]["B"] - cells[m]["ci_low"] for m in models],
            [cells[m]["ci_high"] - cells[m]["B"] for m in models],
        ]
        bars = ax.bar(xs, values, width, yerr=errors, capsize=2, color=(BASE, CERTIFIED)[i % 2], label=f"k = {k}")
        ax.bar_label(bars, fmt="%.3f", fontsize=7)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(models)), [m.replace(" ", "\n", 1) + " CNN" for m in models])
    ax.set_ylabel(f"$B_{{p,k}}$, p = {pair}")
    ax.set_title("Counterfactual token bias (95 % bootstrap intervals)", fontsize=9)
    ax.legend(frameon=False)
    _save(fig, out)
    plt.close(fig)


DRAW = {
    "table2.png": draw_table2,
    "defense_comparison.png": draw_defense_comparison,
    "so_beam_speed.png": draw_so_beam_speed,
    "bias.png": draw_bias,
}


def make_figures(out=DEFAULT_OUT, results=RESULTS, names=None):
    """Draw ``names`` (default: every figure) into ``out``; raises :class:`MissingSources` naming every
    missing result file before drawing anything. Returns the paths written."""
    missing = missing_sources(results)
    if missing:
        raise MissingSources("result files the figures are drawn from are missing: " + "; ".join(missing))
    plt = _pyplot()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or FIGURES:
        DRAW[name](sources(name, results), out / name, plt)
        written.append(out / name)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="folder of the PNGs (default docs/figures)")
    parser.add_argument("--list", action="store_true", help="print each figure and its result files, draw nothing")
    args = parser.parse_args(argv)
    if args.list:
        for name, files in FIGURES.items():
            print(name)
            for rel in files:
                print(f"    benchmarks/results/{rel}")
        return 0
    try:
        written = make_figures(args.out)
    except MissingSources as e:
        print(f"figures.py: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
