"""Minimum source-side chrF: keep only perturbations that preserve the input's meaning (Michel et al., NAACL 2019).

Michel et al. judge a perturbation on the source side by ``s_src(x, x̂)`` = chrF
(character n-grams up to 6, β = 2) of ``x̂`` against ``x``, and show that
meaning-preserving (constrained) perturbations are the ones worth using. This
constraint rejects any transformed text whose ``s_src`` falls below
``min_chrf`` — usable in any TextAttack attack::

    attack.constraints.append(MinimumChrF(min_chrf=0.8))

TextAttack's own ``chrF`` constraint is the opposite (a *maximum*, via NLTK);
this one uses sacrebleu's sentence chrF, exactly as the evaluation does
(:func:`textattack_secondorder.shared.chrf.chrf`; docs/design/meaning.md).
"""

from textattack.constraints import Constraint

from ..shared.chrf import BETA, CHAR_ORDER, chrf


class MinimumChrF(Constraint):
    """Reject transformed texts with chrF (in [0, 1]) below ``min_chrf``.

    Args:
        min_chrf: lowest allowed ``s_src(x, x̂)`` in [0, 1] (values above 1 are read as
            0–100 sacrebleu scores and divided by 100).
        compare_against_original: compare with the original ``x`` (True) or with the
            previous perturbed text (False), as TextAttack constraints do.
        char_order, beta: chrF settings (Michel et al.: 6 and 2).
    """

    def __init__(self, min_chrf=0.8, compare_against_original=True, char_order=CHAR_ORDER, beta=BETA):
        super().__init__(compare_against_original)
        min_chrf = float(min_chrf)
        if min_chrf > 1.0:
            min_chrf /= 100.0
        if not 0.0 <= min_chrf <= 1.0:
            raise ValueError(f"min_chrf must be in [0, 1] (or 0-100), got {min_chrf}")
        self.min_chrf = min_chrf
        self.char_order = int(char_order)
        self.beta = float(beta)

    def _check_constraint(self, transformed_text, reference_text):
        score = chrf(transformed_text.text, reference_text.text, self.char_order, self.beta)
        return score >= self.min_chrf

    def extra_repr_keys(self):
        return ["min_chrf", "char_order", "beta"] + super().extra_repr_keys()
