"""``defend --compare`` on a local Ray instance: the same comparison with ``--jobs 1``, on 1 and on 2 Ray workers of
one thread, and on 2 workers with one worker killed mid-cell, side by side in one run (docs/guide/ray.md).

Each run is the stock command in a fresh folder::

    textattack-so defend --compare vanilla,continue,rand,sp-defense --model mr-lstm --seeds 2 --steps 100 \\
        --num-examples 20 --kappa-sentences 20 --rho-sentences 10 --so-beam-examples 2 --ray --workers 2 \\
        --threads-per-worker 1 --out OUT

Figures: the wall seconds of every run (Ray's start included), the speed-up of 2 workers against 1, and whether
every run's rows equal the ``--jobs 1`` rows (every column but the seconds). The kill: once a trained cell starts
its measurements (its worker prints ``CELL: measuring``), that worker's process is killed (SIGKILL, the process Ray
named in the line); the run must complete with equal rows, each cell trained once (its ``training`` line printed
once) and the killed cell's model reused by the restarted worker (``going on from what was saved``).

    OMP_NUM_THREADS=1 python benchmarks/defend_cluster.py                   # the small run: a few minutes a run
    OMP_NUM_THREADS=1 python benchmarks/defend_cluster.py --steps 300 --num-examples 50 --kappa-sentences 50 \\
        --rho-sentences 20 --so-beam-examples 4 --out benchmarks/results/defend_cluster_quiet.json   # quiet machine

Writes benchmarks/results/defend_cluster.json (``--out``).
"""

import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
TIMES = {"train_seconds", "train_cpu_seconds", "measure_seconds", "measure_cpu_seconds"}
WORKER_LINE = re.compile(r"pid=(\d+)\)\S*\s+(\S+): (training|measuring|going on)")


def _bin(name):
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def command(args, out, extra):
    return [
        _bin("textattack-so"), "defend", "--compare", args.defenses, "--model", args.model,
        "--seeds", str(args.seeds), "--steps", str(args.steps), "--num-examples", str(args.num_examples),
        "--kappa-sentences", str(args.kappa_sentences), "--rho-sentences", str(args.rho_sentences),
        "--so-beam-examples", str(args.so_beam_examples), "--out", str(out), *extra,
    ]  # fmt: skip


def environment():
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        env.setdefault(k, "1")
    return env


def run(args, name, out, extra, kill=False):
    """One comparison; returns its figures. ``kill``: SIGKILL the worker of the first trained cell that starts
    measuring (once)."""
    cmd = command(args, out, extra)
    print(f"[{time.strftime('%H:%M:%S')}] {name}: {' '.join(cmd)}", flush=True)
    log = Path(out).with_suffix(".log")
    t0 = time.perf_counter()
    killed = None
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            f.write(line)
            match = WORKER_LINE.search(line)
            if kill and killed is None and match and match[3] == "measuring" and match[2] != "vanilla":
                time.sleep(args.kill_delay)  # well into its measurements
                os.kill(int(match[1]), signal.SIGKILL)
                killed = {"cell": match[2], "pid": int(match[1]), "after_seconds": round(time.perf_counter() - t0, 1)}
                print(f"  killed the worker of {match[2]} (pid {match[1]})", flush=True)
        code = proc.wait()
    wall = time.perf_counter() - t0
    if code != 0:
        raise SystemExit(f"{name} failed (exit {code}); see {log}")
    text = log.read_text()
    trained = re.findall(r"(\S+): training \(", text)
    figures = {"wall_seconds": round(wall, 1), "log": str(log), "trainings": sorted(trained)}
    if killed:
        figures["killed"] = killed
        figures["reused_after_kill"] = sorted(set(re.findall(r"(\S+): going on from what was saved", text)))
    print(f"  {name}: {wall:.0f} s", flush=True)
    return figures


def rows(out):
    """The comparison's rows without their seconds, each model by its folder's name."""
    table = json.loads((Path(out) / "comparison.json").read_text())
    return [{**{k: v for k, v in r.items() if k not in TIMES}, "model": Path(r["model"]).name} for r in table]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--defenses", default="vanilla,continue,rand,sp-defense")
    ap.add_argument("--model", default="mr-lstm")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--num-examples", type=int, default=20)
    ap.add_argument("--kappa-sentences", type=int, default=20)
    ap.add_argument("--rho-sentences", type=int, default=10)
    ap.add_argument("--so-beam-examples", type=int, default=2)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--no-kill", action="store_true", help="skip the run with a killed worker")
    ap.add_argument("--kill-delay", type=float, default=3.0, help="seconds into a cell's measurements")
    ap.add_argument("--folder", default=None, help="where the comparisons go (default: a new temporary folder)")
    ap.add_argument("--out", default=str(RESULTS / "defend_cluster.json"))
    args = ap.parse_args()
    folder = Path(args.folder or tempfile.mkdtemp(prefix="defend-cluster-"))
    folder.mkdir(parents=True, exist_ok=True)
    threads = ["--threads-per-worker", "1"]
    report = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_before": os.getloadavg()},
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "folder")},
        "runs": {},
    }
    report["runs"]["jobs 1"] = run(args, "jobs 1", folder / "jobs1", ["--jobs", "1"])
    for n in args.workers:
        report["runs"][f"ray {n}"] = run(args, f"ray {n}", folder / f"ray{n}", ["--ray", "--workers", str(n), *threads])
    if not args.no_kill:
        kill = ["--ray", "--workers", str(max(args.workers)), *threads]
        report["runs"]["ray killed"] = run(args, "ray killed", folder / "ray_killed", kill, kill=True)
    base = rows(folder / "jobs1")
    for name, figures in report["runs"].items():
        folder_name = {"jobs 1": "jobs1", "ray killed": "ray_killed"}.get(name, name.replace(" ", ""))
        figures["rows_equal_jobs_1"] = rows(folder / folder_name) == base
        figures["each_cell_trained_once"] = len(figures["trainings"]) == len(set(figures["trainings"]))
    one, two = report["runs"].get("ray 1"), report["runs"].get(f"ray {max(args.workers)}")
    if one and two and one is not two:
        report["speedup"] = round(one["wall_seconds"] / two["wall_seconds"], 2)
    report["machine"]["load_after"] = os.getloadavg()
    report["cells"] = len(base)
    from textattack_secondorder.shared.files import atomic_write_text

    atomic_write_text(Path(args.out), json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    print(f"wrote {args.out}; the comparisons are in {folder}")


if __name__ == "__main__":
    main()
