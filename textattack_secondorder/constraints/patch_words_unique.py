"""Keep ``x ⊕ p`` one swap away from ``x`` (Zhang et al. 2021, §3.1; docs/design/patch-rules.md).

A patch pair ``p = (p1, p2)`` is chosen with ``p1`` occurring once in the input and ``p2``
not occurring in it; a neighbour that inserts ``p1`` or ``p2`` elsewhere would break that.
"""

from textattack.constraints import Constraint


class PatchWordsUnique(Constraint):
    """Reject neighbours that insert ``p1`` or ``p2`` elsewhere (``x ⊕ p`` must stay one swap).

    Args:
        goal_function: the :class:`~textattack_secondorder.goal_functions.SecondOrderClassification`
            whose ``patch`` (chosen per input) holds ``p1`` and ``p2``.
    """

    def __init__(self, goal_function):
        super().__init__(compare_against_original=False)
        self.goal_function = goal_function

    def _check_constraint(self, transformed_text, reference_text):
        patch = self.goal_function.patch
        if patch is None:
            return True
        for i in transformed_text.attack_attrs.get("newly_modified_indices", ()):
            if transformed_text.words[i].lower() in (patch.p1, patch.p2):
                return False
        return True

    def extra_repr_keys(self):
        return []
