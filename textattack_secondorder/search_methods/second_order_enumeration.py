"""SO-Enum's search (Zhang et al. 2021, §3.2; docs/design/search.md): the neighbourhood, closest first."""

from .neighborhood_search import SUCCEEDED, NeighborhoodSearch


class SecondOrderEnumeration(NeighborhoodSearch):
    """SO-Enum: enumerate ``Neighbor_k(x0)`` closest first and return a closest vulnerable example.

    Level ``d`` holds the texts that differ from ``x0`` in exactly ``d`` word
    positions: the neighbours of level ``d - 1`` with one more, not yet modified,
    position changed (re-changing a position would only revisit distances already
    enumerated). Levels are enumerated in order; within a level, parents are expanded
    ``expand_chunk`` at a time and their neighbours evaluated in batches of
    ``eval_batch_size``, so the search stops soon after the first vulnerable example
    instead of building the whole (exponential) level first.

    Args:
        max_distance: k (paper: 2).
        eval_batch_size: candidates per goal-function call.
        expand_chunk: parents whose neighbourhoods are proposed in one batch.
        prefetch: the transformation's batched proposal call (see :class:`.NeighborhoodSearch`).
    """

    def __init__(self, max_distance=2, eval_batch_size=256, expand_chunk=16, prefetch=None):
        super().__init__(prefetch)
        self.max_distance = int(max_distance)
        self.eval_batch_size = int(eval_batch_size)
        self.expand_chunk = int(expand_chunk)

    def _expand_unmodified(self, texts, original, seen):
        """Neighbours that change one position not yet changed relative to ``original``."""
        out = []
        for n in self._expand(texts, original, seen):
            if len(n.all_words_diff(original)) > len(n.attack_attrs["previous_attacked_text"].all_words_diff(original)):
                out.append(n)
        return out

    def perform_search(self, initial_result):
        if initial_result.goal_status == SUCCEEDED:
            return initial_result
        x0 = initial_result.attacked_text
        seen = {x0.text}
        frontier, best = [x0], initial_result
        for _ in range(self.max_distance):
            next_frontier = []
            for c in range(0, len(frontier), self.expand_chunk):
                candidates = self._expand_unmodified(frontier[c : c + self.expand_chunk], x0, seen)
                for i in range(0, len(candidates), self.eval_batch_size):
                    results, search_over = self.get_goal_results(candidates[i : i + self.eval_batch_size])
                    hits = [r for r in results if r.goal_status == SUCCEEDED]
                    if hits:
                        return self._best(hits)
                    if results and self._best(results).score > best.score:
                        best = self._best(results)
                    if search_over or not results:
                        return best
                next_frontier += candidates
            if not next_frontier:
                break
            frontier = next_frontier
        return best

    def extra_repr_keys(self):
        return ["max_distance", "eval_batch_size", "expand_chunk"]
