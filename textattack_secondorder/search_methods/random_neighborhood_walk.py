"""The random baseline of the double-perturbation paper (Zhang et al. 2021, A.1; docs/design/search.md)."""

import random

from .neighborhood_search import SUCCEEDED, NeighborhoodSearch


class RandomNeighborhoodWalk(NeighborhoodSearch):
    """Random baseline (paper A.1): replace up to ``max_depth`` words at random.

    Each step picks one neighbour of the current text uniformly at random (same
    neighbourhood as SO-Beam), checks it, and continues from it.

    Args:
        max_depth: substitutions (paper: 6).
        seed: random seed.
        prefetch: the transformation's batched proposal call (see :class:`.NeighborhoodSearch`).
    """

    def __init__(self, max_depth=6, seed=0, prefetch=None):
        super().__init__(prefetch)
        self.max_depth = int(max_depth)
        self.seed = seed
        self._rng = random.Random(seed)

    def perform_search(self, initial_result):
        if initial_result.goal_status == SUCCEEDED:
            return initial_result
        x0 = initial_result.attacked_text
        seen = {x0.text}
        current, best = x0, initial_result
        for _ in range(self.max_depth):
            candidates = self._expand([current], x0, seen)
            if not candidates:
                break
            pick = self._rng.choice(candidates)
            results, search_over = self.get_goal_results([pick])
            if not results:
                break
            if results[0].goal_status == SUCCEEDED:
                return results[0]
            if results[0].score > best.score:
                best = results[0]
            if search_over:
                break
            current = pick
        return best

    def extra_repr_keys(self):
        return ["max_depth", "seed"]
