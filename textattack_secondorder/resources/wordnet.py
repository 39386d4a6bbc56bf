"""WordNet senses for the patch rule: does ``p2`` share one of ``p1``'s first senses? (docs/design/patch-rules.md)

The packaged ``data/wordnet_senses.json.gz`` (written by ``scripts/build_wordnet_senses.py`` from
WordNet 3.0; licence in ``data/LICENSE-wordnet.txt``) holds, for each single English word and part
of speech, its first four synsets in WordNet's sense order (most frequent first) and each synset's
single-word members. Nothing here imports torch or TextAttack.
"""

import functools
import gzip
import json

from .errors import ResourceError
from .paths import data_path

SENSES_FILE = "wordnet_senses.json.gz"
#: senses per word and part of speech the packaged table holds (its first four, in WordNet's order)
TABLE_SENSES = 4
#: Penn Treebank tag prefix -> WordNet part of speech (adjective satellites are filed under "a").
WORDNET_POS = {"NN": "n", "VB": "v", "JJ": "a", "RB": "r"}


@functools.lru_cache(maxsize=1)
def wordnet_senses():
    """``(synsets, lemmas)`` of the packaged table (loaded once per process; docs/design/offline-resources.md)."""
    path = data_path(SENSES_FILE)
    if not path.is_file():
        raise ResourceError(f"{SENSES_FILE} is missing from the package data; reinstall textattack-secondorder")
    table = json.loads(gzip.decompress(path.read_bytes()))
    return [frozenset(s) for s in table["synsets"]], table["lemmas"]


def shared_sense(lemmas1, lemmas2, pos, max_sense, max_sense_other=None):
    """The first sense (0-based) among the first ``max_sense`` WordNet senses of any of ``lemmas1`` in
    part of speech ``pos`` whose synset also holds one of ``lemmas2`` — and, with ``max_sense_other``,
    is also among the first ``max_sense_other`` senses of one of ``lemmas2``; ``None`` when there is none."""
    synsets, lemmas = wordnet_senses()
    table = lemmas.get(pos, {})
    allowed = None
    if max_sense_other is not None:
        allowed = {k for lemma in lemmas2 for k in table.get(lemma, ())[:max_sense_other] if k >= 0}
    best = None
    for lemma in lemmas1:
        for rank, k in enumerate(table.get(lemma, ())[:max_sense]):
            if k >= 0 and not synsets[k].isdisjoint(lemmas2) and (allowed is None or k in allowed):
                best = rank if best is None else min(best, rank)
                break
    return best


def sense_ranks(lemmas1, lemmas2, pos, depth):
    """``(senses, rank1, rank2)``: how many of its first ``depth`` WordNet senses in part of speech ``pos``
    the first word has (the most of any of ``lemmas1``), and the 0-based ranks, for each word, of the best
    shared sense (least sum of the two ranks; ``depth`` for both when they share none of those senses)."""
    _, lemmas = wordnet_senses()
    table = lemmas.get(pos, {})
    first = [[k for k in table.get(lemma, ())[:depth] if k >= 0] for lemma in lemmas1]
    second = [[k for k in table.get(lemma, ())[:depth] if k >= 0] for lemma in lemmas2]
    senses = max((len(s) for s in first), default=0)
    best = (depth, depth)
    for s1 in first:
        for i, k in enumerate(s1):
            for s2 in second:
                if k in s2 and i + s2.index(k) < sum(best):
                    best = (i, s2.index(k))
    return senses, best[0], best[1]
