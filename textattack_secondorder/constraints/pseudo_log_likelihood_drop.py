"""The authors' naturalness filter on a patch swap: the masked LM's pseudo-log-likelihood may drop by at most 1.5.

Zhang et al.'s released code (not the paper's text) discards a patch swap when the sentence's masked-LM
pseudo-log-likelihood — every token masked in turn, the log-probabilities of the true tokens summed —
is more than 1.5 lower with the swap than without (docs/design/patch-rules.md)::

    PLL(x ⊕ p) >= PLL(x) - max_drop
"""

from textattack.constraints import Constraint

from ..resources import word_proposer


class PseudoLogLikelihoodDrop(Constraint):
    """Keep a transformed text whose masked-LM pseudo-log-likelihood is at most ``max_drop`` below the reference's.

    Args:
        masked_lm: a word proposer that scores sentences, a name of the masked-LM slot, or None (the slot default).
        max_drop: largest allowed drop (nats; the authors' code: 1.5).
    """

    def __init__(self, masked_lm=None, max_drop=1.5, compare_against_original=True):
        super().__init__(compare_against_original)
        self.masked_lm = word_proposer(masked_lm)
        if not getattr(self.masked_lm, "scores_sentences", False):
            raise ValueError(f"masked LM {self.masked_lm!r} does not score sentences; use a masked LM proposer")
        self.max_drop = float(max_drop)

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        if not transformed_texts:
            return []
        pll = self.masked_lm.pseudo_log_likelihood([reference_text.words] + [t.words for t in transformed_texts])
        return [t for t, v in zip(transformed_texts, pll[1:]) if v >= pll[0] - self.max_drop]

    def extra_repr_keys(self):
        return ["max_drop"]
