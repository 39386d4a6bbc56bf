#!/usr/bin/env bash
# Build a fresh virtual environment with transformers 5 from the package index, the way the README's
# Install section says (scripts/install_transformers5.sh), and run the default test suite in it.
# Not part of .ci/run: building the environment alone takes several minutes.
#
#   bash scripts/check_transformers5.sh [pytest args]
#   bash scripts/check_transformers5.sh tests/test_gemma_cache.py   # the Gemma set-up alone (seconds)
#
# VENV (default .venv-tf5), PYTHON (default python3.11) and TRANSFORMERS (default
# "transformers>=5,<6") can be set; SKIP_BUILD=1 reuses an existing VENV.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv-tf5}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  rm -rf "$VENV"
  "${PYTHON:-python3.11}" -m venv "$VENV"
  PYTHON="$VENV/bin/python" bash scripts/install_transformers5.sh
fi
"$VENV/bin/python" -c 'import transformers, torch, textattack; print("transformers", transformers.__version__, "torch", torch.__version__)'
"$VENV/bin/python" -m pytest "$@"
