"""Search methods of the double-perturbation attack (Zhang et al. 2021, §3.2, Algorithm 2, A.1).

All three walk the natural neighbourhood built by
:class:`~textattack_secondorder.transformations.WordSwapNeighborhood` and score
candidates with :class:`~textattack_secondorder.goal_functions.SecondOrderClassification`
(success = ``f(x ⊕ p) != f(x)``; score = ``-L`` of Eq. 4 plus a success bonus).
A vulnerable ``x0`` itself is returned at once (distance 0).

Batching lives outside the loops: ``_expand`` asks the transformation to
propose words for all texts of a step in one call (``prefetch``, wired by
:class:`~textattack_secondorder.attack_recipes.second_order.SecondOrderAttack`),
and each step's candidates go to the goal function in one list.
"""

import random

from textattack.goal_function_results import GoalFunctionResultStatus
from textattack.search_methods import SearchMethod

SUCCEEDED = GoalFunctionResultStatus.SUCCEEDED


class _NeighborhoodSearch(SearchMethod):
    prefetch_transformations = None  # set by SecondOrderAttack when the transformation can batch

    def _expand(self, texts, original, seen):
        """New (unseen) neighbours of every text in ``texts``, in a stable order."""
        if self.prefetch_transformations is not None:
            indices = [self.get_indices_to_order(t)[1] for t in texts]
            self.prefetch_transformations(texts, indices)
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


class SecondOrderBeamSearch(_NeighborhoodSearch):
    """SO-Beam (paper Algorithm 2): beam search minimising the loss of Eq. 4.

    Each step expands the beam members best first, ``expand_chunk`` of them at a time (their
    masked copies go through the masked LM in one batch, their candidates and patched twins
    through the victim in one call), and stops at the first chunk whose candidates hold a
    vulnerable example ("stop earlier if we find a vulnerable example", paper §3.2). The
    neighbourhood, the success rate and the distance of what is found are those of the full
    step (a step without a vulnerable candidate expands every member, as before); among
    several vulnerable candidates of one step the one returned is the best of the chunks
    expanded so far. ``expand_chunk=None`` expands the whole beam before scoring (the paper's
    Algorithm 2 to the letter: the best vulnerable candidate of the whole step);
    docs/methods.md §9 has the agreement and the time of both.

    Args:
        beam_width: β, candidates kept per step (paper: 20).
        max_depth: k, maximum number of substitutions (paper: 6).
        expand_chunk: beam members expanded per batch (default 1; ``None`` or 0: the whole beam).
    """

    def __init__(self, beam_width=20, max_depth=6, expand_chunk=1):
        self.beam_width = int(beam_width)
        self.max_depth = int(max_depth)
        self.expand_chunk = None if not expand_chunk else int(expand_chunk)

    def perform_search(self, initial_result):
        if initial_result.goal_status == SUCCEEDED:
            return initial_result
        x0 = initial_result.attacked_text
        seen = {x0.text}
        beam, best = [initial_result], initial_result
        for _ in range(self.max_depth):
            chunk = self.expand_chunk or len(beam)
            results, search_over, any_candidates = [], False, False
            for c in range(0, len(beam), chunk):
                candidates = self._expand([r.attacked_text for r in beam[c : c + chunk]], x0, seen)
                if not candidates:
                    continue
                any_candidates = True
                got, search_over = self.get_goal_results(candidates)
                results += got
                if search_over or any(r.goal_status == SUCCEEDED for r in got):
                    break
            if not any_candidates or not results:
                break
            ranked = sorted(results, key=lambda r: r.score, reverse=True)
            if ranked[0].score > best.score:
                best = ranked[0]
            # "if any is vulnerable return the one with largest |F| (ties: lowest loss)"
            if best.goal_status == SUCCEEDED or search_over:
                return best
            beam = ranked[: self.beam_width]
        return best

    def extra_repr_keys(self):
        return ["beam_width", "max_depth", "expand_chunk"]


class SecondOrderEnumeration(_NeighborhoodSearch):
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
    """

    def __init__(self, max_distance=2, eval_batch_size=256, expand_chunk=16):
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


class RandomNeighborhoodWalk(_NeighborhoodSearch):
    """Random baseline (paper A.1): replace up to ``max_depth`` words at random.

    Each step picks one neighbour of the current text uniformly at random (same
    neighbourhood as SO-Beam), checks it, and continues from it.

    Args:
        max_depth: substitutions (paper: 6).
        seed: random seed.
    """

    def __init__(self, max_depth=6, seed=0):
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
