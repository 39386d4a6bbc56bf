"""Synonym lists: the source of the *patch words* of the Double Perturbation attack.

Zhang et al. (NAACL 2021), Sec. 3 and docs/design/patch-rules.md: a patch pair ``(p1, p2)``
replaces the one occurrence of ``p1`` in a sentence by its synonym ``p2``. The paper
takes the synonyms from the counter-fitted list of Jia et al. (2019).

This module reads and checks ``{word: [synonyms]}`` JSON files (:func:`read_synonym_file`)
and builds the counter-fitted list from TextAttack's embedding (:func:`counterfitted_synonyms`).
Which list a run uses is decided by the ``synonyms`` resource slot
(:func:`textattack_secondorder.resources.load_synonyms`), nowhere else. The rule that picks
the patch pair from a list is :class:`~textattack_secondorder.goal_functions.patch_words.PatchWordSelector`.
"""

import json
import logging
import threading
from pathlib import Path

import numpy as np
from textattack.shared import WordEmbedding

from ..shared.files import atomic_write_text
from .errors import ResourceError
from .paths import cache_dir

logger = logging.getLogger(__name__)


class SynonymFileError(ResourceError, ValueError):
    """A synonym file that is missing, malformed or empty (one line on the command line, exit 2)."""


_CACHE = {}
_LOCK = threading.Lock()


def _validate(raw, source):
    """Check and normalise a parsed word->synonyms mapping (see :func:`read_synonym_file`)."""
    if not isinstance(raw, dict):
        raise SynonymFileError(
            f"synonym file {source}: expected a JSON object mapping word -> list of synonyms, got {type(raw).__name__}"
        )
    table, skipped = {}, 0
    for key, syns in raw.items():
        if not isinstance(key, str):  # cannot happen with JSON text, can with a dict
            raise SynonymFileError(f"synonym file {source}: key {key!r} is not a string")
        if not isinstance(syns, (list, tuple)):
            raise SynonymFileError(
                f"synonym file {source}: the value of {key!r} must be a list of strings, got {type(syns).__name__}"
            )
        for s in syns:
            if not isinstance(s, str):
                raise SynonymFileError(f"synonym file {source}: the synonyms of {key!r} must be strings, got {s!r}")
        word = key.strip().lower()
        if not word:  # e.g. a control character such as "\x85" in the counter-fitted list
            skipped += 1
            continue
        out = table.setdefault(word, [])
        for s in syns:
            s = s.strip().lower()
            if s and s != word and s not in out:
                out.append(s)
    if skipped:
        logger.debug("synonym file %s: skipped %d blank keys", source, skipped)
    return {w: v for w, v in table.items() if v}


def read_synonym_file(path):
    """Return the ``{word: [synonyms]}`` dict of a JSON file (lower-case, no self-synonyms, no duplicates).

    ``path`` may name any JSON file holding an object ``word -> list of strings`` (the
    format of the counter-fitted list the paper used). Keys are lower-cased (lists of
    keys differing only in case are merged), self-synonyms and duplicates are dropped,
    as are words left without synonyms. A malformed file raises ``ValueError`` naming
    the file and the problem (:class:`SynonymFileError`, a ``ResourceError``: one line
    and exit code 2 on the command line), and so do a missing file and a file without a
    single word that has a synonym. Results are cached per resolved path; treat them as
    read-only.
    """
    path = Path(path).expanduser()
    key = str(path.resolve())
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    if not path.is_file():
        raise SynonymFileError(f"synonym file {path} does not exist")
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise SynonymFileError(f"synonym file {path}: not valid UTF-8 JSON ({e})") from e
    table = _validate(raw, path)
    if not table:
        raise SynonymFileError(f"synonym file {path}: empty (no word with at least one synonym)")
    logger.info("loaded %d words / %d synonym pairs from %s", len(table), sum(len(v) for v in table.values()), path)
    with _LOCK:
        _CACHE[key] = table
    return table


def counterfitted_synonyms(topn=8, min_cos=0.5, alphabetic_only=True):
    """Counter-fitted neighbours (online path; the paper's synonym source, Jia et al. 2019).

    Uses TextAttack's counter-fitted GloVe (``paragramcf``, downloaded from S3 on first
    use) and its precomputed nearest-neighbour matrix: for each word, the ``topn``
    nearest neighbours whose cosine similarity is at least ``min_cos`` (TextAttack's
    recipes use ``WordEmbeddingDistance(min_cos_sim=0.5)``). The result is cached as
    JSON in the package cache folder.
    """
    cache = cache_dir("synonyms") / f"counterfitted_neighbours_top{topn}_cos{min_cos}.json"
    if cache.is_file():
        return read_synonym_file(cache)

    emb = WordEmbedding.counterfitted_GLOVE_embedding()
    matrix = np.asarray(emb.embedding_matrix, dtype=np.float32)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True).clip(1e-12)
    index2word = emb._index2word
    n = matrix.shape[0]
    if emb.nn_matrix is not None:
        nn = np.asarray(emb.nn_matrix)[:, 1 : topn + 1]
    else:  # pragma: no cover - the packaged embedding has an nn matrix
        nn = np.empty((n, topn), dtype=np.int64)
        for start in range(0, n, 1024):
            sims = unit[start : start + 1024] @ unit.T
            sims[np.arange(sims.shape[0]), np.arange(start, start + sims.shape[0])] = -np.inf
            nn[start : start + 1024] = np.argsort(-sims, axis=1)[:, :topn]
    cos = np.einsum("ij,ikj->ik", unit, unit[nn])
    table = {}
    for i in range(n):
        w = index2word[i]
        if alphabetic_only and not w.isalpha():
            continue
        syns = [index2word[j] for j, c in zip(nn[i], cos[i]) if c >= min_cos]
        if alphabetic_only:
            syns = [s for s in syns if s.isalpha()]
        if syns:
            table[w] = syns
    atomic_write_text(cache, json.dumps(table, sort_keys=True, separators=(",", ":")))
    return read_synonym_file(cache)


class SynonymList:
    """A read-only ``word -> tuple of synonyms`` mapping with the patch-pair rule.

    Build it from a dict, a JSON path, or nothing (the ``synonyms`` resource slot)::

        syn = SynonymList()                 # the slot: $TA_SO_SYNONYMS, counter-fitted online, packaged offline
        syn = SynonymList("my_list.json")
        syn = SynonymList({"good": ["fine"]})
    """

    def __init__(self, source=None):
        if isinstance(source, SynonymList):
            table, self.source = source._table, source.source
        elif isinstance(source, dict):
            table, self.source = _validate(source, "<dict>"), "<dict>"
        elif source is None:
            # imported here: the slot default is built by .builders, which imports this module (a cycle)
            from . import load_synonyms

            table, self.source = load_synonyms(), "slot default"
        else:
            table, self.source = read_synonym_file(source), str(source)
        self._table = {w: tuple(v) for w, v in table.items()}

    def __getitem__(self, word):
        return self._table[word.lower()]

    def get(self, word, default=()):
        return self._table.get(word.lower(), default)

    def __contains__(self, word):
        return isinstance(word, str) and word.lower() in self._table

    def __len__(self):
        return len(self._table)

    def __iter__(self):
        return iter(self._table)

    def items(self):
        return self._table.items()

    def num_pairs(self):
        return sum(len(v) for v in self._table.values())

    def __repr__(self):
        return f"SynonymList({self.source!r}, words={len(self)}, pairs={self.num_pairs()})"
