"""SWORDS, human judgements of word substitutions in context, read as one-word swaps (docs/design/patch-rules.md).

SWORDS (Lee, Donahue, Jia, Iyabor, Liang, "Swords: A Benchmark for Lexical Substitution with Improved
Data Coverage and Quality", NAACL 2021; CC-BY-3.0-US; contexts from CoInCo) gives, for a target word in
a context, candidate substitutes each judged by about ten people: "is this substitute appropriate for the
target word in this context?". A substitute's score is the share of "TRUE" votes; the benchmark calls it
*acceptable* above 0.5. The file format is the released ``swords-v1.1_*.json.gz``: ``contexts``,
``targets`` (context id, target, character offset, part of speech), ``substitutes`` (target id, lemma)
and ``substitute_labels`` (votes).

:func:`swords_swaps` turns a file into the swaps a patch rule judges: the sentence around the target
(``x``), the target's word index in TextAttack's words, and each one-word substitute put into the
target's inflection (its Penn tag in ``x``, by lemminflect) and capitalisation. Multi-word substitutes
are not one-word swaps and are left out, as are targets the tagger does not read as a content word.
"""

import gzip
import json
import re

import lemminflect
import pandas as pd
from textattack.shared import AttackedText

from ..resources import load_pos_tagger
from ..shared.text import match_case, word_offsets

#: a substitute that is one word of letters (inner hyphens and apostrophes allowed)
ONE_WORD = re.compile(r"^[A-Za-z]+(?:['-][A-Za-z]+)*$")
ACCEPTABLE = 0.5  # the benchmark's threshold: acceptable when more than half say yes
CONTENT_PREFIXES = ("NN", "VB", "JJ", "RB")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“])")


def read_swords(path):
    """The SWORDS JSON object of ``path`` (``.json`` or ``.json.gz``), checked for its four tables."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    missing = [k for k in ("contexts", "targets", "substitutes", "substitute_labels") if k not in data]
    if missing:
        raise ValueError(f"{path}: not a SWORDS file (no {', '.join(missing)})")
    return data


def sentence_around(context, offset):
    """``(sentence, offset in it)``: the sentence of ``context`` (whitespace collapsed) holding ``offset``."""
    parts, new_offset, at = [], None, 0
    for m in re.finditer(r"\S+", context):
        if parts:
            at += 1
        if m.start() <= offset < m.end():
            new_offset = at + offset - m.start()
        parts.append(m.group())
        at += len(m.group())
    text = " ".join(parts)
    if new_offset is None:
        return text, 0
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > new_offset:
            break
        start = m.end()
    end = next((m.start() for m in _SENTENCE_END.finditer(text, new_offset)), len(text))
    return text[start:end], new_offset - start


def swords_swaps(path, tagger=None):
    """The one-word swaps of a SWORDS file as a pandas ``DataFrame``.

    Columns: ``target_id``, ``text`` (the sentence ``x``), ``index`` (the target's word index), ``p1``,
    ``p2`` (the substitute in the target's inflection), ``lemma``, ``tag`` (the target's Penn tag),
    ``pos`` (SWORDS's), ``score`` (share of yes votes) and ``acceptable`` (``score > 0.5``).
    ``tagger``: an object with ``tags(attacked_text)`` (default: the ``pos_tagger`` slot).
    """
    data = read_swords(path)
    tagger = tagger if tagger is not None else load_pos_tagger()
    subs = {}
    for sid, s in data["substitutes"].items():
        subs.setdefault(s["target_id"], []).append((s["substitute"], data["substitute_labels"][sid]))
    rows = []
    for tid, t in data["targets"].items():
        sentence, offset = sentence_around(data["contexts"][t["context_id"]]["context"], t["offset"])
        x = AttackedText(sentence)
        places = [k for k, w in enumerate(x.words) if w.lower() == t["target"].lower()]
        if not places:
            continue
        offsets = word_offsets(x)
        i = min(places, key=lambda k: abs(offsets[k][0] - offset))
        tag = tagger.tags(x)[i]
        if not tag or not tag.startswith(CONTENT_PREFIXES):
            continue
        p1 = x.words[i]
        for lemma, votes in subs.get(tid, ()):
            if not ONE_WORD.match(lemma) or not votes:
                continue
            forms = lemminflect.getInflection(lemma, tag=tag)
            p2 = match_case(forms[0] if forms else lemma, p1)
            if p2.lower() == p1.lower():
                continue
            score = sum(v == "TRUE" for v in votes) / len(votes)
            rows.append(
                dict(
                    target_id=tid,
                    text=sentence,
                    index=i,
                    p1=p1,
                    p2=p2,
                    lemma=lemma,
                    tag=tag,
                    pos=t["pos"],
                    score=score,
                    acceptable=score > ACCEPTABLE,
                )  # fmt: skip
            )
    return pd.DataFrame(rows)
