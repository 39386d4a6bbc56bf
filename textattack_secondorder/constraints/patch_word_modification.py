"""Never modify the patch word (Zhang et al. 2021, Algorithm 1; docs/design/neighbours.md, docs/design/patch-rules.md).

The patch pair ``p = (p1, p2)`` of an input swaps the word ``p1`` at one position for its
synonym ``p2``; ``x ⊕ p`` is only defined while that position still holds ``p1``, so the
neighbourhood of Algorithm 1 leaves it alone.
"""

from textattack.constraints import PreTransformationConstraint


class PatchWordModification(PreTransformationConstraint):
    """Never modify the position holding the patch word ``p1`` (paper Algorithm 1).

    Args:
        goal_function: the :class:`~textattack_secondorder.goal_functions.SecondOrderClassification`
            whose ``patch`` (chosen per input) names the position.
    """

    def __init__(self, goal_function):
        self.goal_function = goal_function

    def _get_modifiable_indices(self, current_text):
        indices = set(range(len(current_text.words)))
        patch = self.goal_function.patch
        if patch is not None:
            indices.discard(patch.index)
        return indices

    def extra_repr_keys(self):
        return []
