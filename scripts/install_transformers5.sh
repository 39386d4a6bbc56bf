#!/usr/bin/env bash
# Install this package (with its offline and dev extras) on transformers 5, into the environment of
# PYTHON (default: the python on PATH, e.g. your activated virtual environment):
#
#   bash scripts/install_transformers5.sh
#
# pip cannot resolve this by itself: flair 0.15.1 (the newest release; TextAttack 0.3.11 requires
# flair) and its dependency transformer-smaller-training-vocab 0.4.2 declare transformers<5, and pip
# has no way to override a dependency's cap (asked for transformers 5 it backtracks into old flair
# releases and fails building scikit-learn from source). This package's own transformers<5 and
# huggingface_hub<1.0 only steer pip's default install (see setup.py). So:
#   1. the other requirements of textattack, flair, transformer-smaller-training-vocab and this
#      package (read from their metadata), resolved by pip under a transformers>=5,<6 constraint;
#   2. those four packages with --no-deps.
# Afterwards `pip check` lists only those declared caps. TRANSFORMERS overrides the constraint.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
TRANSFORMERS=${TRANSFORMERS:-"transformers>=5,<6"}
CAPPED="textattack==0.3.11 flair==0.15.1 transformer-smaller-training-vocab==0.4.2"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$TRANSFORMERS" > "$work/constraints.txt"
"$PYTHON" -m pip download -q --no-deps -d "$work/capped" $CAPPED
"$PYTHON" -m pip install -q setuptools packaging
"$PYTHON" setup.py -q egg_info -e "$work" >/dev/null 2>&1
"$PYTHON" - "$work" > "$work/requirements.txt" <<'EOF'
import glob, sys, zipfile
from email.parser import Parser

from packaging.requirements import Requirement

work = sys.argv[1]
# each other, and the caps that only describe the transformers 4 world
skip = {"textattack", "flair", "transformer-smaller-training-vocab", "transformers", "huggingface-hub"}
metas = []
for whl in glob.glob(work + "/capped/*.whl"):
    with zipfile.ZipFile(whl) as z:
        metas.append((z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode(), [""]))
# this package's requires.txt: plain lines, then sections "[extra]" or "[extra:marker]"
own, section = [], ""
for line in open(glob.glob(work + "/*.egg-info/requires.txt")[0], encoding="utf-8").read().splitlines():
    if line.startswith("["):
        section = line.strip("[]")
    elif line.strip():
        extra, _, marker = section.partition(":")
        if extra in ("", "offline", "dev"):
            own.append(line + (f"; {marker}" if marker else ""))
reqs = ["transformers[sentencepiece]", "huggingface-hub"]  # flair asks for the extra; any hub transformers 5 takes
for text, extras in metas + [(None, [""])]:
    lines = Parser().parsestr(text).get_all("Requires-Dist") or [] if text is not None else own
    for line in lines:
        r = Requirement(line)
        if r.name.lower().replace("_", "-") in skip:
            continue
        if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in extras):
            r.marker = None
            reqs.append(str(r))
print("\n".join(reqs))
EOF
"$PYTHON" -m pip install -q -c "$work/constraints.txt" -r "$work/requirements.txt"
"$PYTHON" -m pip install -q --no-deps "$work"/capped/*.whl -e .
echo "pip check (expected: only the transformers<5 of flair and transformer-smaller-training-vocab, and this package's two caps):"
"$PYTHON" -m pip check || true
