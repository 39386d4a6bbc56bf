"""SO-Beam's search (Zhang et al. 2021, Algorithm 2; docs/design/search.md, docs/design/speed.md): beam search
minimising Eq. 4."""

from .neighborhood_search import SUCCEEDED, NeighborhoodSearch


class SecondOrderBeamSearch(NeighborhoodSearch):
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
    docs/design/speed.md has the agreement and the time of both.

    Args:
        beam_width: β, candidates kept per step (paper: 20).
        max_depth: k, maximum number of substitutions (paper: 6).
        expand_chunk: beam members expanded per batch (default 1; ``None`` or 0: the whole beam).
        prefetch: the transformation's batched proposal call (see :class:`.NeighborhoodSearch`).
        neighbor_rule: a :class:`~textattack_secondorder.goal_functions.neighbor_rules.NeighborRule` the beam's
            survivors must pass against ``x0`` (docs/design/neighbours.md): the ranked candidates are judged β at a
            time, at most ``RULE_ROUNDS`` rounds, and the beam keeps the first β that pass; None: Algorithm 2's
            β best.
        patience: stop after this many steps in a row whose best candidate does not lower the lowest loss of
            Eq. 4 found so far (docs/design/speed.md: a sentence whose beam stops improving almost never
            succeeds later, and a failed sentence cost as much as ten successful ones); None: Algorithm 2's
            ``max_depth`` steps.

    After each search, ``trace`` holds one entry per step: its depth, the lowest loss of its candidates,
    the queries spent so far and the number of candidates (benchmarks/second_order.py records it).
    """

    RULE_ROUNDS = 3

    def __init__(
        self,
        beam_width=20,
        max_depth=6,
        expand_chunk=1,
        prefetch=None,
        neighbor_rule=None,
        patience=None,
        depth_slack=None,
    ):
        super().__init__(prefetch)
        self.depth_slack = None if depth_slack is None else int(depth_slack)
        self.beam_width = int(beam_width)
        self.max_depth = int(max_depth)
        self.expand_chunk = None if not expand_chunk else int(expand_chunk)
        self.neighbor_rule = neighbor_rule
        self.patience = None if not patience else int(patience)
        self.trace = []

    def perform_search(self, initial_result):
        self.trace = []
        if initial_result.goal_status == SUCCEEDED:
            return initial_result
        x0 = initial_result.attacked_text
        seen = {x0.text}
        beam, best = [initial_result], initial_result
        lowest, stale = (float("inf") if initial_result.loss is None else initial_result.loss), 0
        last_depth = self.max_depth
        for depth in range(1, self.max_depth + 1):
            if depth > last_depth:
                break
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
            step_lowest = min(r.loss for r in results)
            self.trace.append(
                {
                    "depth": depth,
                    "loss": step_lowest,
                    "queries": self.goal_function.num_queries,
                    "candidates": len(results),
                    "flips": getattr(self.goal_function, "raw_flips", None),
                }
            )
            if ranked[0].score > best.score:
                best = ranked[0]
            # "if any is vulnerable return the one with largest |F| (ties: lowest loss)"
            if best.goal_status == SUCCEEDED or search_over:
                return best
            if (
                self.depth_slack is not None
                and last_depth == self.max_depth
                and getattr(self.goal_function, "raw_flips", 0)
            ):
                last_depth = min(self.max_depth, depth + self.depth_slack)
            stale = 0 if step_lowest < lowest else stale + 1
            lowest = min(lowest, step_lowest)
            if self.patience is not None and stale >= self.patience:
                break
            beam = self._survivors(ranked, x0)
        return best

    def _survivors(self, ranked, x0):
        """The next beam: the β best of ``ranked``, or the first β of them the neighbour rule keeps."""
        if not self.neighbor_rule:
            return ranked[: self.beam_width]
        beam, width = [], self.beam_width
        for start in range(0, min(len(ranked), self.RULE_ROUNDS * width), width):
            part = ranked[start : start + width]
            beam += [r for r, ok in zip(part, self.neighbor_rule.passes(x0, [r.attacked_text for r in part])) if ok]
            if len(beam) >= width:
                break
        return beam[:width]

    def extra_repr_keys(self):
        return ["beam_width", "max_depth", "expand_chunk", "neighbor_rule", "patience", "depth_slack"]
