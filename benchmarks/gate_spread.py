"""Run-to-run spread of the gate's metrics: the starter checks of ``textattack-so check --init`` on one
model, same settings, only the sampling seeds changed (docs/design/gate.md).

Seed ``s`` sets every seed the starter's checks have: the attack checks' example seeds (``seed`` =
765 + 1000 s), sp-attack's pool shuffle (``seed=s`` in the recipe), the bias bootstrap and the
perturbed sets' typos and swaps (``seed`` = s). Checks without a seed (ρ* by EUBA) are computed once
and reused (same content key). Per metric: the values over the seeds, their range (max − min) and
standard deviation; the default tolerance of each metric (``checks/*.py``, ``Metric.tolerance``)
must be larger than the range measured here.

    python benchmarks/gate_spread.py --model mr-cnn --seeds 0 1 2 3 4 --threads 1

Writes benchmarks/results/gate_spread.json; finished checks are reused from --work (resume).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
EXAMPLE_SEED = 765  # TextAttack's default; seed s adds 1000 s (examples of one run never share a seed)


def seeded_config(model, seed):
    """The starter config on ``model`` with every sampling seed set from ``seed``."""
    from textattack_secondorder.checks.config import parse_config, tomllib
    from textattack_secondorder.checks.starter import STARTER

    data = tomllib.loads(STARTER)
    data["model"] = model
    for c in data["check"]:
        s = c.setdefault("settings", {})
        if c["kind"] in ("attack", "second_order"):
            s["seed"] = EXAMPLE_SEED + 1000 * seed
            if s.get("recipe", "").startswith("sp-attack"):
                s["recipe"] += f",seed={seed}"
        elif c["kind"] in ("bias", "perturbed_sets"):
            s["seed"] = seed
    return parse_config(data, f"starter on {model}, seed {seed}")


def spread(values):
    xs = [v for v in values if v is not None]
    if not xs:
        return {"values": values, "range": None, "std": None, "mean": None}
    return {
        "values": values,
        "mean": statistics.fmean(xs),
        "std": statistics.stdev(xs) if len(xs) > 1 else 0.0,
        "range": max(xs) - min(xs),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="mr-cnn")
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--threads", type=int, default=None, help="torch threads (1 on a shared machine)")
    ap.add_argument("--work", default="results/gate_spread", help="the gate's output folder (reused across seeds)")
    ap.add_argument("--checks", nargs="+", default=None, help="only these checks of the starter (names)")
    ap.add_argument("--out", default=str(RESULTS / "gate_spread.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    from textattack_secondorder.checks.runner import run_gate
    from textattack_secondorder.plugin.extensions import extend_textattack

    runs = []
    for seed in args.seeds:
        start = time.time()
        config = seeded_config(args.model, seed)
        config.checks = [c for c in config.checks if args.checks is None or c.name in args.checks]
        _, context = run_gate(
            config, args.work, progress=False, say=lambda *a: print(*a, file=sys.stderr), prepare=extend_textattack
        )
        values = {name: f.evaluation.values for name, f in context.done.items()}
        runs.append({"seed": seed, "seconds": round(time.time() - start, 1), "values": values})
        print(f"seed {seed}: {time.time() - start:.0f} s " + json.dumps(values), flush=True)
    metrics = {}
    for check in config.checks:
        for metric in check.METRICS:
            metrics[f"{check.name}.{metric}"] = spread([r["values"][check.name].get(metric) for r in runs])
    print(f"\n{'check.metric':40s} {'range':>8s} {'std':>8s}  values")
    for name, m in metrics.items():
        fmt = "n/a" if m["range"] is None else f"{m['range']:8.4g} {m['std']:8.4g}"
        print(f"{name:40s} {fmt:>17s}  {', '.join('n/a' if v is None else f'{v:.4g}' for v in m['values'])}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps({"model": args.model, "seeds": args.seeds, "runs": runs, "metrics": metrics}, indent=2)
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
