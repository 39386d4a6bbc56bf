"""Seconds per `defend` step: SP-Defense (its defaults) beside the Rand control, before and after a change.

Each measurement runs in a fresh interpreter (one torch thread unless ``--threads``) on the package
tree it names: the installed package ("after": this checkout in its development install) and, with
``--before REV``, the same package at a git revision (exported to a temporary folder and put first on
``PYTHONPATH``). The runs alternate
(before rand, before SP-D, after rand, after SP-D, ... for ``--repeats``), so a busy machine slows
both sides alike. Per run: ``train_defense`` on the victim's MR training sentences for ``--steps``
steps after ``--warmup`` steps (not timed), then ``--warmup`` steps and ``--steps`` steps from the
same seed: seconds per step is the difference over the extra steps, set-up (tokenizing the training
set once, ...) the rest of the short run. Seconds per step, steps per second and minutes for 3,000
steps (set-up included) are printed and written to ``--out`` (docs/design/defenses.md, speed).

    python benchmarks/defend_speed.py --model mr-cnn --before 4bd50a1 --steps 200
    python benchmarks/defend_speed.py --model mr-minilm --device cuda --steps 300 --candidates 1 32
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"

# one measurement, run in a child interpreter: prints a JSON line
CHILD = r"""
import json, sys, time, torch
args = json.loads(sys.argv[1])
torch.set_num_threads(args["threads"])
from textattack_secondorder.datasets.examples import load_examples
from textattack_secondorder.defense.training import train_defense
from textattack_secondorder.models.loading import load_model_wrapper
train = load_examples("mr", "train")
model = load_model_wrapper(args["model"], args["device"])
extra = {} if args["candidates"] is None else {"gradient_candidates": args["candidates"]}
def run(steps, seed):
    seconds = train_defense(model, train, steps=steps, defense=args["defense"], seed=seed, progress=False,
                            device=args["device"], **extra)
    if args["device"] and str(args["device"]).startswith("cuda"):
        torch.cuda.synchronize()
    return seconds
run(args["warmup"], 1)
short = run(args["warmup"], 0)  # set-up (tokenizing the training set, ...) + a few steps
full = run(args["steps"], 0)
print("RESULT " + json.dumps({"short": short, "full": full}))
"""


def export_tree(rev):
    """The repository at ``rev`` in a temporary folder (``git archive``)."""
    folder = Path(tempfile.mkdtemp(prefix=f"defend_speed_{rev}_"))
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(tree, defense, candidates, args):
    env = dict(os.environ)
    if tree is not None:  # an exported revision first on the path; None: the installed package (this checkout)
        env["PYTHONPATH"] = str(tree) + os.pathsep + os.environ.get("PYTHONPATH", "")
    spec = {
        "model": args.model,
        "device": args.device,
        "threads": args.threads,
        "steps": args.steps,
        "warmup": args.warmup,
        "defense": defense,
        "candidates": candidates,
    }
    argv = [sys.executable, "-c", CHILD, json.dumps(spec)]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if out.returncode or not line:
        raise SystemExit(f"measurement failed ({tree}, {defense}):\n{out.stderr[-3000:]}")
    r = json.loads(line[-1][7:])
    per_step = (r["full"] - r["short"]) / (args.steps - args.warmup)
    return per_step, max(0.0, r["short"] - args.warmup * per_step)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="mr-cnn")
    ap.add_argument("--device", default=None)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10, help="steps of the short run (set-up = its time - these steps)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--candidates",
        type=int,
        nargs="*",
        default=[],
        help="SP-D gradient candidates to measure besides defend's default (e.g. 1 32)",
    )
    ap.add_argument("--before", default=None, help="git revision to measure beside this checkout")
    ap.add_argument("--out", default=str(RESULTS / "defend_speed.json"))
    args = ap.parse_args(argv)

    trees = {"after": None}
    if args.before:
        trees = {f"before ({args.before})": export_tree(args.before), **trees}
    mixes = [("rand", None), ("sp-defense", None)] + [("sp-defense", k) for k in args.candidates]
    times, setups = {}, {}
    for _ in range(args.repeats):
        for side, tree in trees.items():
            for defense, k in mixes:
                s, setup = measure(tree, defense, k, args)
                key = (side, defense if k is None else f"{defense}, K={k}")
                times.setdefault(key, []).append(s)
                setups.setdefault(key, []).append(setup)
                print(
                    f"{side:>22}  {key[1]:<18} {1000 * s:8.1f} ms/step  {1 / s:7.1f} steps/s  set-up {setup:.1f} s",
                    flush=True,
                )
    rows = []
    for side in trees:
        rand = statistics.median(times[(side, "rand")])
        for (s, mix), values in times.items():
            if s != side:
                continue
            med = statistics.median(values)
            setup = statistics.median(setups[(s, mix)])
            rows.append(
                {
                    "code": side,
                    "mix": mix,
                    "seconds_per_step": round(med, 5),
                    "steps_per_second": round(1 / med, 2),
                    "ratio_to_rand": round(med / rand, 2),
                    "setup_seconds": round(setup, 2),
                    "minutes_for_3000_steps": round((setup + 3000 * med) / 60, 2),
                    "runs": [round(v, 5) for v in values],
                }
            )
    for r in rows:
        print(
            f"{r['code']:>22}  {r['mix']:<18} {r['seconds_per_step'] * 1000:8.1f} ms/step  "
            f"x{r['ratio_to_rand']:<5} of Rand  3,000 steps: {r['minutes_for_3000_steps']:.1f} min"
        )
    settings = {k: v for k, v in vars(args).items() if k != "out"}
    settings["torch_threads"] = args.threads
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"settings": settings, "rows": rows}, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
