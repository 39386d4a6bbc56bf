"""Start-up overhead of the plugin's import hook.

Every Python start processes ``textattack_secondorder_hook.pth``, which imports
``textattack_secondorder_hook`` (a meta-path finder, nothing else). This script
measures

* the hook's import time from ``python -X importtime -c pass`` (cumulative
  microseconds of the ``textattack_secondorder_hook`` line), and
* the wall time of ``python -c pass`` with the hook's .pth in place and with it
  moved aside (``--ab``; renames the file in site-packages for the duration),

each as the median of ``--runs`` runs, and writes benchmarks/results/startup.json.

    python benchmarks/startup.py --runs 30 --ab
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

PTH = "textattack_secondorder_hook.pth"


def hook_import_us():
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True)
    for line in out.stderr.splitlines():
        if line.rstrip().endswith("textattack_secondorder_hook"):
            return int(line.split("|")[1])
    return None


def wall_ms():
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - t) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--ab", action="store_true", help="also time python start-up with the .pth moved aside")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "startup.json"))
    args = ap.parse_args()

    samples = [hook_import_us() for _ in range(args.runs)]
    if any(s is None for s in samples):
        sys.exit("textattack_secondorder_hook was not imported at start-up: is the package installed?")
    hook_file = subprocess.run(
        [sys.executable, "-c", "import textattack_secondorder_hook as h; print(h.__file__)"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    install = "site-packages" if sysconfig.get_paths()["purelib"] in hook_file else "editable"
    result = {
        "python": sys.version.split()[0],
        "install": install,
        "runs": args.runs,
        "hook_import_us_median": statistics.median(samples),
    }
    if args.ab:
        pth = Path(sysconfig.get_paths()["purelib"]) / PTH
        with_hook = [wall_ms() for _ in range(args.runs)]
        moved = pth.with_suffix(".pth-disabled")
        os.replace(pth, moved)
        try:
            without = [wall_ms() for _ in range(args.runs)]
        finally:
            os.replace(moved, pth)
        result.update(
            startup_ms_with_hook=statistics.median(with_hook),
            startup_ms_without_hook=statistics.median(without),
            startup_overhead_ms=statistics.median(with_hook) - statistics.median(without),
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    for k, v in result.items():
        print(f"{k:28s} {v}")


if __name__ == "__main__":
    main()
