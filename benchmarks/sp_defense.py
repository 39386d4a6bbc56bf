"""The defense comparison (Xu et al., Table 5, with A2T and the second-order column) on the demo victims:
a thin loop over ``textattack-so defend --compare`` (docs/design/defenses.md).

For each victim (and each ``--steps`` value, for a curve) the command trains every defense on every seed and
measures every model on the same sentences; its ``comparison.json`` / ``.md`` / ``_summary.json`` are copied
to ``benchmarks/results/<out>_<victim>[_<steps>]`` with the machine and the load named. The models and the
measurements stay in ``--workdir`` (default ``~/.cache/textattack/secondorder/defense_comparison``), so a
killed run started again continues where it stopped.

    python benchmarks/sp_defense.py --victims mr-cnn mr-lstm --jobs 2          # 3 seeds, the command's defaults
    python benchmarks/sp_defense.py --victims mr-minilm --steps 300 --num-examples 30 --jobs 2
    # the paper's setting on a GPU (TextAttack's distilBERT fine-tuned on MR, from the hub; 20k batches):
    python benchmarks/sp_defense.py --paper-scale --device cuda
    # anything else goes to the command: -- --lr 1e-4 --sp-attack-recipe "sp-attack^label_rule='paper'"
"""

import argparse
import json
import os
import platform
import shutil
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
PAPER_VICTIM = "textattack/distilbert-base-uncased-rotten-tomatoes"  # distilBERT fine-tuned on MR (hub)
PAPER_SCALE = {"victims": [PAPER_VICTIM], "steps": [20000], "num_examples": 500, "rho_sentences": 1000}


def parse_args(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victims", nargs="+", default=["mr-cnn"], help="victim specs (names, dirs, hub ids)")
    ap.add_argument("--models", default="vanilla,continue,rand,a2t,sp-defense", help="defend --compare LIST")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--steps", nargs="+", type=int, default=[3000], help="several values give a curve")
    ap.add_argument("--num-examples", type=int, default=None, help="attacked sentences (default: the command's)")
    ap.add_argument("--rho-sentences", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--device", default=None)
    ap.add_argument("--workdir", default=None, help="where the comparisons (models, measurements) are kept")
    ap.add_argument("--out", default="sp_defense", help="stem of the files in benchmarks/results")
    ap.add_argument("--paper-scale", action="store_true", help=f"the paper's setting: {PAPER_SCALE}")
    args = ap.parse_args(argv)
    args.rest = rest
    if args.paper_scale:
        given = {a.split("=")[0] for a in argv if a.startswith("--")}
        for k, v in PAPER_SCALE.items():
            if "--" + k.replace("_", "-") not in given:
                setattr(args, k, v)
    return args


def command(args, victim, steps, folder):
    """The ``textattack-so`` argv of one comparison."""
    argv = ["defend", "--compare", args.models, "--model", victim, "--seeds", str(args.seeds)]
    argv += ["--steps", str(steps), "--jobs", str(args.jobs), "--out", str(folder)]
    for flag, value in (
        ("--num-examples", args.num_examples),
        ("--rho-sentences", args.rho_sentences),
        ("--device", args.device),
    ):
        if value is not None:
            argv += [flag, str(value)]
    return argv + list(args.rest)


def run_cli(argv):
    from textattack_secondorder.cli import main

    rc = main(argv)
    if rc:
        raise SystemExit(f"textattack-so {' '.join(argv)}: exit {rc}")


def machine():
    """The machine the figures come from, in words."""
    try:
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        load = "n/a"
    gpu = ""
    try:
        import torch

        if torch.cuda.is_available():
            gpu = f", {torch.cuda.get_device_name(0)}"
    except ImportError:
        pass
    return f"{platform.node()} ({os.cpu_count()} CPUs{gpu}); load average at the end {load}"


def main(argv=None):
    args = parse_args(argv)
    root = Path(args.workdir or Path.home() / ".cache" / "textattack" / "secondorder" / "defense_comparison")
    RESULTS.mkdir(parents=True, exist_ok=True)
    written = []
    for victim in args.victims:
        for steps in args.steps:
            name = f"{Path(victim).name}_{steps}"
            folder = root / f"{args.out}_{name}"
            argv = command(args, victim, steps, folder)
            print("textattack-so " + " ".join(argv), flush=True)
            run_cli(argv)
            stem = f"{args.out}_{Path(victim).name}" + (f"_{steps}" if len(args.steps) > 1 else "")
            for suffix in (".json", ".md", "_summary.json"):
                shutil.copyfile(folder / f"comparison{suffix}", RESULTS / f"{stem}{suffix}")
            md = RESULTS / f"{stem}.md"
            md.write_text(md.read_text() + f"- command: `textattack-so {' '.join(argv)}`\n- machine: {machine()}\n")
            written.append(stem)
    print(json.dumps({"written": [str(RESULTS / s) for s in written]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
