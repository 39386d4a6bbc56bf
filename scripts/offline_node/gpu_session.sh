#!/usr/bin/env bash
# One session on a lent GPU node (no network), run from the repository root as ONE command:
#
#   bash scripts/offline_node/gpu_session.sh
#
# It installs the offline bundle carried in .gpu/bundle (scripts/offline_node/offline_bundle.sh; this package is built
# from the checkout), then runs scripts/offline_node/gpu_session.py through the bundle's runner: the gpu tests, speed,
# and SP-Defense on mr-minilm with seeds. Results go to $OUT as each piece finishes (summary.json,
# session.log, gpu_tests.txt, table.md, table.json, results.tar.gz). The run stops itself before
# SESSION_SECONDS (default 565, from this script's start).
#
# Before the session, on a machine with a network (carry the folder .gpu; see docs/guide/gpu-offline.md):
#   PROJECT=0 MR_CSV=~/.cache/textattack/secondorder/corpora/mr-pang-lee2.csv PYTHON=.venv/bin/python \
#     bash scripts/offline_node/offline_bundle.sh .gpu/bundle
# A check of the whole path on a CPU, tiny sizes (a Python with torch, as the node has):
#   GPU_SESSION_SIZE=tiny DEVICE=cpu PYTHON=/path/to/python OUT=/tmp/out bash scripts/offline_node/gpu_session.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
export SESSION_START=${SESSION_START:-$(date +%s)}
export OUT=${OUT:-/tmp/gpu_session_out}
export WORK=${WORK:-/tmp/gpu_session_work}
export TA_SO_CACHE_DIR=${TA_SO_CACHE_DIR:-$WORK-cache/secondorder}
export TA_CACHE_DIR=${TA_CACHE_DIR:-$WORK-cache/textattack}
BUNDLE=${BUNDLE:-.gpu/bundle}
mkdir -p "$OUT"
echo "[gpu_session] $(date -u +%FT%TZ) size=${GPU_SESSION_SIZE:-full} device=${DEVICE:-cuda} bundle=$BUNDLE" | tee "$OUT/session.log"
"${PYTHON:-python3}" "$BUNDLE/run.py" --project . --target "${TARGET:-$WORK-site}" -- \
  python scripts/offline_node/gpu_session.py 2>&1 | tee -a "$OUT/session.log"
exit "${PIPESTATUS[0]}"
