"""A one-word swap fits its slot about as well as the word it replaces, by a masked LM (docs/methods.md §1.2).

With word ``i`` of the reference sentence masked, the masked LM gives ``log P(w | context)`` for the
old word and the new one (a word of several pieces fills as many masks); the swap is kept when

    log P(new | context) >= log P(old | context) - max_drop

so a word that is a synonym somewhere but not here ("dig pretty deep" -> "dig rather deep" is kept,
"in execution" -> "in enforcement" is not) is refused. The masked LM is any proposer of the
``masked_lm`` slot that scores words (``scores_words``): the one the attack's neighbourhood uses.
"""

from textattack.constraints import Constraint

from ..resources import word_proposer
from .word_swap_position import swapped_word


class MaskedLMFit(Constraint):
    """Keep a one-word swap unless the masked LM finds the new word ``max_drop`` nats less likely than the old.

    Args:
        masked_lm: a word proposer that scores words, a name of the masked-LM slot, or None (the slot default).
        max_drop: largest allowed drop of the log-probability in the slot (nats; default 3).
    """

    def __init__(self, masked_lm=None, max_drop=3.0, compare_against_original=True):
        super().__init__(compare_against_original)
        self.masked_lm = word_proposer(masked_lm)
        if not getattr(self.masked_lm, "scores_words", False):
            raise ValueError(f"masked LM {self.masked_lm!r} does not score words; use a masked LM proposer")
        self.max_drop = float(max_drop)

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        swaps = [swapped_word(t, reference_text) for t in transformed_texts]
        by_position = {}
        for s in swaps:
            if s is not None:
                by_position.setdefault(s[0], {s[1]: None})[s[2]] = None
        positions = sorted(by_position)
        words = reference_text.words
        scores = self.masked_lm.score_words(
            [words] * len(positions), positions, [list(by_position[i]) for i in positions]
        )
        score = {(i, w): v for i, vals in zip(positions, scores) for w, v in zip(by_position[i], vals)}
        return [
            t
            for t, s in zip(transformed_texts, swaps)
            if s is not None and score[(s[0], s[2])] >= score[(s[0], s[1])] - self.max_drop
        ]

    def extra_repr_keys(self):
        return ["max_drop"]
