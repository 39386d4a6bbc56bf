#!/usr/bin/env bash
# Wheel smoke test: build a wheel of this repository, install it NON-editable with
# the [offline] extra into a fresh virtual environment, and run it offline from a
# directory outside the repository (so the source tree cannot be imported):
#   (a) `textattack-so resources` exits 0;
#   (b) every file under data/ and the robustness report template are inside the
#       installed package;
#   (c) so-beam on the first 8 demo sentences finds a vulnerable example with the default patch rule
#       (the judge), in the CSV.
# Called by .ci/run after the test command; can be run on its own.
# Environment: PYTHON (default python3.11), SMOKE_TIMEOUT_S (attack step, default 1200),
# WHEEL_SMOKE_KEEP=1 keeps the temporary folder (venv, wheel, caches) for inspection.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3.11}
work=$(mktemp -d "${TMPDIR:-/tmp}/ta_so_wheel_smoke.XXXXXX")
cleanup() { if [ "${WHEEL_SMOKE_KEEP:-0}" = 1 ]; then echo "+ kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
step() { echo "+ $*"; }
t0=$SECONDS

# Build from a copy of the tree (tracked + untracked, not ignored): an in-tree
# setuptools build would leave build/ behind and could ship stale files from it.
step "copy the source tree to $work/src"
mkdir -p "$work/src"
(
  cd "$repo"
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do if [ -f "$f" ]; then printf '%s\0' "$f"; fi; done |
    tar --null -T - -cf -
) | tar -xf - -C "$work/src"

step "$PY -m venv $work/venv"
"$PY" -m venv "$work/venv"
vpy="$work/venv/bin/python"

step "pip wheel --no-deps -w $work/dist (source copy)"
"$vpy" -m pip wheel --quiet --no-deps -w "$work/dist" "$work/src"
shopt -s nullglob
wheels=("$work"/dist/textattack_secondorder-*.whl)
shopt -u nullglob
if [ "${#wheels[@]}" -ne 1 ]; then
  echo "expected one textattack_secondorder wheel in $work/dist, found: ${wheels[*]:-none}" >&2
  exit 1
fi
wheel=${wheels[0]}
echo "  built $(basename "$wheel")"

step "pip install \"$(basename "$wheel")[offline]\" (non-editable)"
"$vpy" -m pip install --quiet "${wheel}[offline]"
"$vpy" - <<'EOF'
import torch
print(f"  torch {torch.__version__}")
assert torch.__version__.split("+")[0] == "2.13.0", f"expected torch 2.13.0, got {torch.__version__}"
EOF

# Offline, with every cache in the temporary folder, from outside the repository.
mkdir -p "$work/run" "$work/cache/ta" "$work/cache/so"
cd "$work/run"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TA_SO_OFFLINE=1
export TA_CACHE_DIR="$work/cache/ta" TA_SO_CACHE_DIR="$work/cache/so"
export PATH="$work/venv/bin:$PATH"
unset PYTHONPATH

step "(a) textattack-so resources"
textattack-so resources

step "(b) every file of data/ and the report template are in the installed package"
SRC="$work/src" VENV="$work/venv" python - <<'EOF'
import os
from importlib.resources import files
from pathlib import Path

import textattack_secondorder

src, venv = Path(os.environ["SRC"]), Path(os.environ["VENV"]).resolve()
pkg = Path(textattack_secondorder.__file__).resolve().parent
assert venv in pkg.parents, f"textattack_secondorder imported from {pkg}, not from the installed wheel"
data = Path(str(files("textattack_secondorder.data")))
missing, checked = [], 0
for f in sorted((src / "data").rglob("*")):
    if f.is_file() and "__pycache__" not in f.parts:
        rel = f.relative_to(src / "data")
        checked += 1
        if not (data / rel).is_file() or (data / rel).stat().st_size != f.stat().st_size:
            missing.append(f"data/{rel}")
template = Path("evaluation", "robustness", "templates", "report.html")
checked += 1
if not (pkg / template).is_file():
    missing.append(f"textattack_secondorder/{template}")
if missing:
    raise SystemExit("missing from the installed package: " + ", ".join(missing))
print(f"  {checked} files present in {pkg}")
EOF

step "(c) textattack attack --recipe so-beam on the demo CNN, 8 examples"
limit=${SMOKE_TIMEOUT_S:-1200}
rc=0
timeout "$limit" textattack attack --recipe so-beam \
  --model-from-file "$repo/recipes/models/mr_cnn.py" \
  --dataset-from-file "$repo/recipes/datasets/mr.py^dataset" \
  --num-examples 8 --log-to-csv "$work/smoke.csv" || rc=$?
if [ "$rc" -ne 0 ]; then
  [ "$rc" -eq 124 ] && echo "so-beam smoke: timed out after ${limit} s (SMOKE_TIMEOUT_S)" >&2
  echo "so-beam smoke: textattack attack failed (exit $rc)" >&2
  exit "$rc"
fi
CSV="$work/smoke.csv" python - <<'EOF'
import csv
import os

with open(os.environ["CSV"], newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
if not rows:
    raise SystemExit("so-beam smoke: the CSV log has no row")
found = [r for r in rows if r.get("result_type") == "Successful" and r.get("patch_p2")]
if not found or found[0].get("patch_rule") != "judge":
    raise SystemExit(
        "so-beam smoke: no vulnerable example with the judge patch rule in "
        + ", ".join(f"{r.get('result_type')}/{r.get('patch_rule')}" for r in rows)
    )
r = found[0]
print(f"  CSV rows: {len(rows)}; a vulnerable example: {r['patch_p1']} -> {r['patch_p2']} ({r['patch_rule']})")
EOF

echo "+ wheel smoke test passed in $((SECONDS - t0)) s"
