"""Scale-out benchmark: the same sharded work on 1 and on 2 Ray workers, side by side in one run.

1. EUBA κ (``--m``, paper: 512) over ``--kappa-examples`` MR training sentences with
   ``--kappa-model`` (demo CNN), ``--kappa-shards`` shards.
2. A so-beam attack sweep over ``--sweep-victims`` × ``--sweep-examples`` MR test examples.

Each part runs once per ``--workers`` value on a fresh local Ray instance (one torch
thread per worker, a fresh in-memory shard store, so every shard is computed); the
merged results of the runs are checked equal. Figures: wall seconds, worker start-up
(Ray actors importing the package and loading their models), the seconds inside the
shards, Ray overhead per shard (wall − start-up − shard seconds / workers, per shard) and
the speed-up against the first ``--workers`` value, on the whole run and without start-up.

    python benchmarks/scale.py --kappa-examples 200 --sweep-examples 20
    python benchmarks/scale.py --vocab-limit 3000 --sweep-examples 8   # what fits a 2-core machine in ~30 min

Writes benchmarks/results/scale.json.
"""

import argparse
import functools
import json
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def figures(stats, wall):
    return {
        "wall_seconds": round(wall, 1),
        "startup_seconds": round(stats.startup_seconds, 1),
        "shard_seconds_total": round(sum(stats.shard_seconds), 1),
        "shards": stats.num_shards,
        "workers": stats.workers,
        "ray_overhead_per_shard_seconds": round(stats.overhead_per_shard, 3),
        "wall_after_startup_seconds": round(wall - stats.startup_seconds, 1),
    }


def speedups(rows):
    base = rows[0]
    for r in rows:
        r["speedup"] = round(base["wall_seconds"] / r["wall_seconds"], 2)
        r["speedup_after_startup"] = round(base["wall_after_startup_seconds"] / r["wall_after_startup_seconds"], 2)
    return rows


def with_ray(fn, tries=3):
    import ray

    for attempt in range(tries):  # on a 2-core machine a node can miss Ray's fixed 30 s start-up window
        try:
            ray.init(include_dashboard=False, logging_level="WARNING")
            break
        except Exception:  # noqa: BLE001 - Ray raises a bare Exception on a start-up timeout
            ray.shutdown()
            if attempt == tries - 1:
                raise
    try:
        t0 = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t0
    finally:
        ray.shutdown()


def kappa_part(args):
    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.distributed import ClusterOptions
    from textattack_secondorder.evaluation.flip_capability import compute_flip_capability
    from textattack_secondorder.models.loading import load_model_wrapper

    examples = load_examples("mr", "train", "text", "label", args.kappa_examples)
    model = load_model_wrapper(args.kappa_model)
    rows, kappas = [], []
    for n in args.workers:
        options = ClusterOptions(ray="local", num_shards=args.kappa_shards, workers=n, threads_per_worker=1)
        result, wall = with_ray(
            functools.partial(
                compute_flip_capability,
                model,
                examples,
                method="euba",
                m=args.m,
                options=options,
                model_spec=args.kappa_model,
                vocab_limit=args.vocab_limit,
                progress=False,
            )
        )
        stats = result.stats
        kappas.append(result.metric.counts.tolist())
        rows.append(dict(figures(stats, wall), rho=round(result.rho, 5), correct=result.metric.num_correct))
        print(f"κ  workers={n}: {rows[-1]}", flush=True)
    return {
        "model": args.kappa_model,
        "examples": len(examples),
        "m": args.m,
        "vocab_limit": args.vocab_limit,
        "shards": args.kappa_shards,
        "runs": speedups(rows),
        "results_equal": all(k == kappas[0] for k in kappas),
    }


def sweep_part(args):
    import tempfile

    import pandas as pd

    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.distributed import ClusterOptions
    from textattack_secondorder.sweeps import run_attack_sweep

    examples = load_examples("mr", "test", "text", "label", args.sweep_examples)
    rows, tables = [], []
    for n in args.workers:
        out = tempfile.mkdtemp(prefix=f"scale-sweep-{n}-")
        options = ClusterOptions(ray="local", num_shards=args.sweep_shards, workers=n, threads_per_worker=1)
        (table, stats), wall = with_ray(
            functools.partial(
                run_attack_sweep, args.sweep_victims, [args.sweep_recipe], examples, out, options, progress=False
            )
        )
        tables.append(
            pd.concat(
                [
                    pd.read_csv(Path(out) / f)
                    for f in sorted(p.name for p in Path(out).glob("*.csv"))
                    if f != "summary.csv"
                ]
            ).drop(columns=["seconds"], errors="ignore")
        )
        rows.append(figures(stats, wall))
        print(f"sweep workers={n}: {rows[-1]}", flush=True)
    equal = all(t.reset_index(drop=True).equals(tables[0].reset_index(drop=True)) for t in tables)
    return {
        "victims": args.sweep_victims,
        "recipe": args.sweep_recipe,
        "examples": len(examples),
        "shards_per_cell": args.sweep_shards,
        "runs": speedups(rows),
        "rows_equal_without_seconds": equal,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--kappa-model", default="mr-cnn")
    ap.add_argument("--kappa-examples", type=int, default=200)
    ap.add_argument("--kappa-shards", type=int, default=8)
    ap.add_argument("--m", type=int, default=512)
    ap.add_argument(
        "--vocab-limit",
        type=int,
        default=None,
        help="κ over the first N vocabulary words only (the demo CNN has 30,689: ~15 s per sentence on one core here)",
    )
    ap.add_argument("--sweep-victims", nargs="+", default=["mr-cnn", "mr-lstm", "mr-bow"])
    ap.add_argument("--sweep-recipe", default="so-beam")
    ap.add_argument("--sweep-examples", type=int, default=20)
    ap.add_argument("--sweep-shards", type=int, default=4, help="shards per (victim, recipe) cell")
    ap.add_argument("--skip", nargs="*", default=[], choices=["kappa", "sweep"])
    ap.add_argument("--out", default=str(RESULTS / "scale.json"))
    args = ap.parse_args()
    out = Path(args.out)
    report = json.loads(out.read_text()) if out.exists() else {}
    report["machine"] = {"cpus": __import__("os").cpu_count(), "python": platform.python_version()}
    from textattack_secondorder.shared.files import atomic_write_text

    for part, name, run in (("kappa", "kappa_euba", kappa_part), ("sweep", "so_beam_sweep", sweep_part)):
        if part not in args.skip:
            report[name] = run(args)
            atomic_write_text(out, json.dumps(report, indent=2))  # each part kept as soon as it is measured
    print(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
