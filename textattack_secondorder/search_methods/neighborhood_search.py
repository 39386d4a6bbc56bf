"""What the three double-perturbation search methods share (Zhang et al. 2021, §3.2; docs/design/search.md).

SO-Beam, SO-Enum and the random walk all walk the natural neighbourhood built by
:class:`~textattack_secondorder.transformations.WordSwapNeighborhood` and score candidates
with :class:`~textattack_secondorder.goal_functions.SecondOrderClassification` (success =
``f(x ⊕ p) != f(x)``; score = ``-L`` of Eq. 4 plus a success bonus). A vulnerable ``x0``
itself is returned at once (distance 0).

Batching lives outside the loops: :meth:`NeighborhoodSearch._expand` hands all texts of a
step to ``prefetch`` (the transformation's batched proposal call, given to the constructor)
before reading their neighbours one by one, and each step's candidates go to the goal
function in one list.
"""

from textattack.goal_function_results import GoalFunctionResultStatus
from textattack.search_methods import SearchMethod

SUCCEEDED = GoalFunctionResultStatus.SUCCEEDED


class NeighborhoodSearch(SearchMethod):
    """Base of the search methods over the natural neighbourhood.

    Args:
        prefetch: ``prefetch(texts, indices_lists)`` computing the neighbours of many texts in one
            batch (``WordSwapNeighborhood.prefetch``); ``None``: each text's neighbours are
            computed when they are read.
    """

    def __init__(self, prefetch=None):
        self.prefetch = prefetch

    def _expand(self, texts, original, seen):
        """New (unseen) neighbours of every text in ``texts``, in a stable order."""
        if self.prefetch is not None:
            indices = [self.get_indices_to_order(t)[1] for t in texts]
            self.prefetch(texts, indices)
        out = []
        for t in texts:
            for n in self.get_transformations(t, original_text=original):
                if n.text not in seen:
                    seen.add(n.text)
                    out.append(n)
        return out

    @staticmethod
    def _best(results):
        return max(results, key=lambda r: r.score)

    @property
    def is_black_box(self):
        return True
