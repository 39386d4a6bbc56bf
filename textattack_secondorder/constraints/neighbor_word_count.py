"""A neighbour changes at most ``max_words`` words of ``x0`` (the natural neighbour rule, docs/design/neighbours.md).

Blind readers accept a vulnerable example far less often the more words it changed: on the demo CNN's training
read 9 of 11 one-word ``x̃0``, 12 of 34 two-word ones and none of 8 with three or more. The paper's SO-Enum stops at
two substitutions (its small neighbourhood, k = 2); the natural rule holds SO-Beam and the random walk to the same.
"""

from textattack.constraints import Constraint


class NeighborWordCount(Constraint):
    """Refuse a neighbour that changed more than ``max_words`` words of the reference."""

    def __init__(self, max_words, compare_against_original=True):
        super().__init__(compare_against_original)
        self.max_words = int(max_words)

    def _check_constraint(self, transformed_text, reference_text):
        return len(transformed_text.all_words_diff(reference_text)) <= self.max_words

    def extra_repr_keys(self):
        return ["max_words"] + super().extra_repr_keys()
