"""Wall time per stage of a second-order attack (``benchmarks/second_order.py --profile``; docs/design/speed.md)."""

import time


class StageTimer:
    """Exclusive wall time per stage of an attack (``--profile``), by wrapping the functions that do each stage.

    Stages: ``masked_lm`` (the proposer's forwards, tokenisation and head included), ``victim``
    (the victim wrapper's forwards on x and x ⊕ p, and the patch selector's single-word queries),
    ``patch_judge`` (the judge's signals of candidate patch swaps: causal LM, masked LM, sentence
    encoder), ``patch_rule`` (the rest of choosing the patch pair in x0 and checking it in a vulnerable
    example: part of speech, lexical link, the rule's bookkeeping), ``neighbor_rule`` (the natural
    neighbour rule: part of speech and the causal LM's budget), ``neighbourhood_rule`` (κ/δ rule),
    ``neighbourhood_bookkeeping`` (cache keys, grouping, building the neighbour texts), ``constraints``
    (TextAttack's constraint filter), ``goal_bookkeeping`` (scoring around the victim calls); ``rest`` =
    the example's wall time minus all of them (search loop, TextAttack's caches and result objects). Time
    spent in a wrapped function called from another wrapped one counts for the inner stage only.
    """

    STAGES = (
        "masked_lm",
        "victim",
        "patch_judge",
        "patch_rule",
        "neighbor_rule",
        "neighbourhood_rule",
        "neighbourhood_bookkeeping",
        "constraints",
        "goal_bookkeeping",
    )

    def __init__(self):
        self.totals = {}  # recipe -> {stage: seconds, "wall": seconds, "examples": n}
        self.current = None
        self._stack = []
        self._undo = []

    def wrap(self, owner, name, stage):
        import functools

        fn = getattr(owner, name)
        timer = self

        @functools.wraps(fn)
        def timed(*a, **k):
            if timer.current is None:
                return fn(*a, **k)
            t0 = time.perf_counter()
            timer._stack.append(0.0)
            try:
                return fn(*a, **k)
            finally:
                dt = time.perf_counter() - t0
                inner = timer._stack.pop()
                if timer._stack:
                    timer._stack[-1] += dt
                row = timer.totals.setdefault(timer.current, {})
                row[stage] = row.get(stage, 0.0) + dt - inner

        had = name in vars(owner) if isinstance(owner, type) else name in getattr(owner, "__dict__", {})
        self._undo.append((owner, name, fn if had else None))
        setattr(owner, name, timed)

    def install(self, model_wrappers, proposers):
        """Wrap the stages; ``model_wrappers``: the victims the attacks query (their classes are wrapped)."""
        from textattack import Attack

        from textattack_secondorder.constraints.swap_signals import SwapSignals
        from textattack_secondorder.goal_functions import neighbor_rules, patch_words, second_order
        from textattack_secondorder.transformations import neighborhood

        for p in proposers:
            self.wrap(p, "propose", "masked_lm")
        for cls in {type(w) for w in model_wrappers}:
            self.wrap(cls, "__call__", "victim")
        self.wrap(SwapSignals, "compute", "patch_judge")
        self.wrap(patch_words.PatchWordSelector, "keeps", "patch_rule")
        self.wrap(neighbor_rules.NeighborRule, "passes", "neighbor_rule")
        self.wrap(neighborhood, "select_neighbor_words", "neighbourhood_rule")
        self.wrap(neighborhood.WordSwapNeighborhood, "neighbor_words", "neighbourhood_bookkeeping")
        self.wrap(neighborhood.WordSwapNeighborhood, "_get_transformations", "neighbourhood_bookkeeping")
        self.wrap(Attack, "filter_transformations", "constraints")
        self.wrap(second_order.SecondOrderClassification, "get_results", "goal_bookkeeping")
        self.wrap(patch_words.PatchWordSelector, "select", "patch_rule")

    def uninstall(self):
        for owner, name, fn in reversed(self._undo):
            if fn is None:
                delattr(owner, name)
            else:
                setattr(owner, name, fn)
        self._undo.clear()

    def example(self, recipe, seconds):
        row = self.totals.setdefault(recipe, {})
        row["wall"] = row.get("wall", 0.0) + seconds
        row["examples"] = row.get("examples", 0) + 1

    def report(self, recipe):
        """``{stage: seconds per example, ..., "rest": ..., "share_in_forwards": ...}`` for one recipe."""
        row = self.totals.get(recipe, {})
        n = max(row.get("examples", 0), 1)
        wall = row.get("wall", 0.0)
        out = {s: round(row.get(s, 0.0) / n, 4) for s in self.STAGES}
        out["rest"] = round((wall - sum(row.get(s, 0.0) for s in self.STAGES)) / n, 4)
        out["wall"] = round(wall / n, 4)
        out["share_in_forwards"] = (
            round((row.get("masked_lm", 0.0) + row.get("victim", 0.0)) / wall, 3) if wall else None
        )
        return out
