"""A one-word swap must not put in or take out a negation (docs/design/single-word.md).

"the jokes are genuinely clever" → "the jokes are not clever" reverses what the sentence says with one word
that no label owns ("not" is in both labels' sentences). A swap is refused when exactly one of the two words
is a negator: a negative particle or determiner, a negative pronoun or adverb, or a contracted "n't".
"""

from textattack.constraints import Constraint

from .word_swap_position import swapped_word

NEGATORS = frozenset(
    "not no never nothing nobody none nor neither nowhere without cannot hardly barely scarcely seldom "
    "rarely n't nt".split()
)


def is_negator(word):
    """``word`` (any case) negates: one of :data:`NEGATORS` or a contraction ending in "n't" ("isn't")."""
    w = word.lower().replace("’", "'")
    return w in NEGATORS or w.endswith("n't")


class NegationSwap(Constraint):
    """Refuse a one-word swap that puts in or takes out a negator (swapping one negator for another is kept)."""

    def __init__(self, compare_against_original=True):
        super().__init__(compare_against_original)

    def _check_constraint(self, transformed_text, reference_text):
        swap = swapped_word(transformed_text, reference_text)
        return swap is not None and is_negator(swap[1]) == is_negator(swap[2])

    def admits_word(self, word):
        """Whether ``word`` may replace a word that is no negator (it is none itself)."""
        return not is_negator(word)
