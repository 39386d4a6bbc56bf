"""Does a defense's effect hold across *victims*, not only across defense seeds? (docs/design/defenses.md)

``defend --compare`` varies the defense's seed on one given model. A demo word victim is itself one draw: the
same recipe trained with another seed, or on another machine (other float kernels), is another CNN, and on the
demo CNN the vanilla model's SP-Attack success moved from 67.6 to 81.1 % between two machines' victims. This
benchmark trains the victim recipe ``--victim`` (a demo word victim's name) with each of ``--victim-seeds`` (seed
0 is the catalogue's victim itself), runs ``textattack-so defend --compare`` on each, and writes one table: per
victim, the vanilla figure and each defense's mean ± sd over its seeds, and over the victims the mean of the
differences (defense − vanilla).

    python benchmarks/victim_seeds.py --victim mr-cnn --victim-seeds 0 1 2 --jobs 2
    python benchmarks/victim_seeds.py --victim mr-lstm --models vanilla,sp-defense -- --so-beam-examples 1

The victims and comparisons stay in ``--workdir`` (default ``~/.cache/textattack/secondorder/victim_seeds``), so a
killed run started again continues; the table goes to ``benchmarks/results/<out>_<victim>.json`` and ``.md``.
Anything after ``--`` goes to the command.
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sp_defense import RESULTS, machine, run_cli  # noqa: E402

COLUMNS = ("accuracy", "rho", "rho_star", "sp_attack_asr", "textfooler_asr", "asr1")


def parse_args(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victim", default="mr-cnn", help="a demo word victim's name (its training recipe)")
    ap.add_argument("--victim-seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--models", default="vanilla,sp-defense", help="defend --compare LIST (vanilla is added)")
    ap.add_argument("--seeds", type=int, default=3, help="defense seeds on each victim")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--out", default="defense_victim_seeds")
    args = ap.parse_args(argv)
    args.rest = rest
    return args


def victim_spec(name, seed, root):
    """The ``--model`` of victim recipe ``name`` trained with ``seed``: the catalogue's victim for seed 0, else a
    folder trained here once (as ``train-victims`` trains, another seed)."""
    if seed == 0:
        return name
    from textattack_secondorder.models import training
    from textattack_secondorder.models.catalogue import VICTIMS
    from textattack_secondorder.models.victims import _load_data, name_classes
    from textattack_secondorder.models.word_models import register_auto_classes
    from textattack_secondorder.shared.files import atomic_write_text

    folder = root / "victims" / f"{name}-seed{seed}"
    if (folder / "metrics.json").exists():
        return str(folder)
    spec = VICTIMS[name]
    if spec.kind != "word" or "ibp" in spec.train_kwargs:
        raise SystemExit(f"{name}: only the base word victims are retrained here")
    kwargs = dict(spec.train_kwargs)
    arch = kwargs.pop("arch")
    train, test = _load_data(spec, None)
    register_auto_classes()
    model, tokenizer, metrics = training.train_word_model(arch, train, test, seed=seed, progress=False, **kwargs)
    name_classes(model.to("cpu"), spec)
    tmp = folder.with_name(folder.name + ".tmp")
    model.save_pretrained(str(tmp), safe_serialization=True)
    tokenizer.save_pretrained(str(tmp))
    atomic_write_text(tmp / "metrics.json", json.dumps({"name": name, "seed": seed, **metrics}, indent=2) + "\n")
    tmp.rename(folder)
    return str(folder)


def summarise(per_victim):
    """``{seed: rows}`` -> table rows: per victim and defense the mean / sd of each column, and the mean over
    victims of (defense − vanilla)."""
    table, deltas = [], {}
    for vseed, rows in per_victim.items():
        vanilla = next(r for r in rows if r["defense"] == "vanilla")
        for defense in dict.fromkeys(r["defense"] for r in rows):
            cells = [r for r in rows if r["defense"] == defense]
            entry = {"victim_seed": vseed, "defense": defense, "n": len(cells)}
            for c in COLUMNS:
                values = [r[c] for r in cells if r.get(c) is not None]
                entry[c] = round(statistics.mean(values), 2) if values else None
                entry[c + "_sd"] = round(statistics.stdev(values), 2) if len(values) > 1 else None
                if defense != "vanilla" and values and vanilla.get(c) is not None:
                    deltas.setdefault(defense, {}).setdefault(c, []).append(entry[c] - vanilla[c])
            table.append(entry)
    over = [
        {
            "defense": d,
            **{f"{c}_delta": round(statistics.mean(v), 2) for c, v in cols.items()},
            **{f"{c}_delta_sd": round(statistics.stdev(v), 2) if len(v) > 1 else None for c, v in cols.items()},
        }
        for d, cols in deltas.items()
    ]
    return table, over


def markdown(victim, table, over, commands):
    fmt = lambda v, sd: "–" if v is None else (f"{v:.1f}" if sd is None else f"{v:.1f} ± {sd:.1f}")  # noqa: E731
    lines = [f"# {victim}: each defense on several victims (victim seeds)", ""]
    lines.append("| victim seed | defense | seeds | accuracy | ρ | ρ* | SP-Attack | textfooler | ASR1 |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for e in table:
        cells = " | ".join(fmt(e[c], e[c + "_sd"]) for c in COLUMNS)
        lines.append(f"| {e['victim_seed']} | {e['defense']} | {e['n']} | {cells} |")
    lines += ["", "Mean over victims of (defense − vanilla), points (± sd over victims):", ""]
    lines.append("| defense | accuracy | ρ | ρ* | SP-Attack | textfooler | ASR1 |")
    lines.append("|---|---|---|---|---|---|---|")
    for o in over:
        cells = " | ".join(fmt(o.get(f"{c}_delta"), o.get(f"{c}_delta_sd")) for c in COLUMNS)
        lines.append(f"| {o['defense']} | {cells} |")
    lines += ["", *[f"- command: `textattack-so {c}`" for c in commands], f"- machine: {machine()}", ""]
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    root = Path(args.workdir or Path.home() / ".cache" / "textattack" / "secondorder" / "victim_seeds")
    root.mkdir(parents=True, exist_ok=True)
    models = ",".join(dict.fromkeys(["vanilla", *args.models.split(",")]))
    per_victim, commands = {}, []
    for vseed in args.victim_seeds:
        spec = victim_spec(args.victim, vseed, root)
        folder = root / f"{args.victim}-seed{vseed}"
        argv = ["defend", "--compare", models, "--model", spec, "--seeds", str(args.seeds)]
        argv += ["--jobs", str(args.jobs), "--out", str(folder), *args.rest]
        print("textattack-so " + " ".join(argv), flush=True)
        run_cli(argv)
        per_victim[vseed] = json.loads((folder / "comparison.json").read_text())
        commands.append(" ".join(argv))
    table, over = summarise(per_victim)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = RESULTS / f"{args.out}_{args.victim}"
    payload = {"victim": args.victim, "victim_seeds": args.victim_seeds, "rows": table, "over_victims": over}
    payload.update(commands=commands, machine=machine(), per_victim_rows=per_victim)
    stem.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(args.victim, table, over, commands))
    print(stem.with_suffix(".md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
