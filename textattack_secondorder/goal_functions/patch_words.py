"""Patch words of the double-perturbation attack (Zhang et al. 2021, §3.1; docs/design/patch-rules.md).

A patch pair ``p = (p1, p2)`` is a synonym swap applied to every candidate
text: ``x ⊕ p`` replaces the occurrence of ``p1`` in ``x`` by ``p2``. For an
input ``x0`` the candidates are ``p1`` occurring exactly once in ``x0`` and
``p2`` a synonym of ``p1`` not occurring in ``x0``; a patch rule
(:mod:`.patch_rules`; default ``judge``) keeps the candidates whose swap keeps the
meaning of ``x0``, and among those the chosen pair maximises
``|f_soft(p2) - f_soft(p1)|``, the model's output on the single word as the
whole input (L1 distance of the probability vectors for more than two
classes; for two classes this ranks pairs exactly like the positive-class
difference) — or, for a rule with a preference (the judge's), the kept pair it
prefers among the first chunk of those favourites that holds any. Single-word
outputs depend only on the model, so they are computed once per model and
cached. Candidates are checked best first, 8 at a time, so the rule's model
scores are only computed until one chunk holds a kept pair.
"""

import logging
import re
import weakref
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..models.prediction import predict_probabilities
from ..shared.text import match_case, swap_words_at
from .patch_rules import NO_PAIR_KEPT, NO_PATCH_WORD, PAIR_NOT_KEPT, PatchRule, SkipReason

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PatchPair:
    """The swap ``p1 -> p2`` at word ``index`` of the input (``score = |f_soft(p2) - f_soft(p1)|₁``)."""

    p1: str
    p2: str
    index: int
    score: float

    def __str__(self):
        return f"{self.p1} → {self.p2}"


def apply_patch(attacked_text, patch):
    """``x ⊕ p``: replace the word at ``patch.index`` (which holds ``p1``) by ``p2``."""
    current = attacked_text.words[patch.index]
    if current.lower() != patch.p1:
        raise ValueError(f"word {patch.index} of {attacked_text.text!r} is {current!r}, not patch word {patch.p1!r}")
    return swap_words_at(attacked_text, patch.index, [match_case(patch.p2, current)])[0]


# model wrapper -> {word: probability vector}; kept while the wrapper lives.
_SCORE_CACHE = weakref.WeakKeyDictionary()

# a synonym that can be a patch word: one word of letters, with inner hyphens or apostrophes ("well-made",
# "o'clock"); empty strings, digits, punctuation, emoji and several words are left out of a user's list
PATCH_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")


class PatchWordSelector:
    """Chooses the patch pair of an input from a synonym list and the model's single-word outputs.

    Args:
        model_wrapper: a TextAttack ``ModelWrapper`` (outputs logits or probabilities).
        synonyms: mapping word -> synonyms (``SynonymList`` or dict; keys lower-case).
        batch_size: model batch size for single-word queries.
        rule: the :class:`~.patch_rules.PatchRule` candidates must pass when ``select`` and ``keeps`` are not
            handed one (default: none, the paper's text).
    """

    def __init__(self, model_wrapper, synonyms, batch_size=256, rule=None):
        self.model_wrapper = model_wrapper
        self.synonyms = synonyms
        self.batch_size = batch_size
        self.rule = rule if rule is not None else PatchRule("paper")
        try:
            self._cache = _SCORE_CACHE.setdefault(model_wrapper, {})
        except TypeError:  # wrapper not weak-referenceable
            self._cache = {}

    def single_word_scores(self, words):
        """Probability vectors of the model on each word as the whole input (cached per model)."""
        missing = sorted({w for w in words if w not in self._cache})
        for w, p in zip(missing, predict_probabilities(self.model_wrapper, missing, self.batch_size)):
            self._cache[w] = p
        return {w: self._cache[w] for w in words}

    def candidates(self, words, more=None):
        """All ``(p1, p2, index)`` candidates for a tokenised input (rules of docs/design/patch-rules.md); a synonym
        that is not one word of letters (:data:`PATCH_WORD`) is no candidate. ``more``: ``{index: [words]}`` of further
        candidates for the word at ``index`` (the rule's :class:`~.patch_candidates.MoreCandidates`)."""
        lowered = [w.lower() for w in words]
        present = set(lowered)
        out = []
        for i in self.once(words):
            w = lowered[i]
            seen = set()
            for s in [*self.synonyms.get(w, ()), *(more or {}).get(i, ())]:
                s = s.lower()
                if s != w and s not in present and s not in seen and PATCH_WORD.fullmatch(s):
                    seen.add(s)
                    out.append((w, s, i))
        return out

    def once(self, words):
        """Positions of the words occurring exactly once (the places a patch word can be)."""
        counts = Counter(w.lower() for w in words)
        return [i for i, w in enumerate(words) if counts[w.lower()] == 1]

    def select(self, attacked_text, rule=None):
        """Return ``(PatchPair, None)``, or ``(None, reason)`` when the input has no usable pair (a
        :class:`~.patch_rules.SkipReason`: the text, and its kind code as ``.kind``). ``rule``: the patch rule
        (None: the selector's own)."""
        rule = rule if rule is not None else self.rule
        words = attacked_text.words
        if not words:
            return None, SkipReason("empty text: no words to patch", NO_PATCH_WORD)
        more = rule.more(attacked_text, self.once(words)) if rule.more is not None else None
        cands = self.candidates(words, more)
        if not cands:
            return None, SkipReason(
                "no patch word: no word occurring once has a candidate absent from the text", NO_PATCH_WORD
            )
        scores = self.single_word_scores({w for c in cands for w in c[:2]})
        ranked = sorted(
            (PatchPair(p1, p2, i, float(np.abs(scores[p2] - scores[p1]).sum())) for p1, p2, i in cands),
            key=lambda p: (-p.score, p.index),
        )
        if not rule.constraints:
            return ranked[0], None
        k, refused = rule.first_kept(attacked_text, [apply_patch(attacked_text, p) for p in ranked])
        if k is None:
            why = ", ".join(f"{n} by {name}" for name, n in refused.items())
            why = f"{NO_PAIR_KEPT} ({len(ranked)} candidate pairs; refused {why}; patch_rule={rule.name!r})"
            return None, SkipReason(why, PAIR_NOT_KEPT)
        return ranked[k], None

    def keeps(self, attacked_text, patch, rule=None):
        """True when ``rule`` (None: the selector's own) keeps ``patch`` in ``attacked_text`` (a vulnerable example
        it will report)."""
        rule = rule if rule is not None else self.rule
        if not rule.constraints:
            return True
        return rule.first_kept(attacked_text, [apply_patch(attacked_text, patch)])[0] is not None
