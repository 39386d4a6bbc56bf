"""Neighbour rules: which neighbours may stand in the beam and be reported as ``x̃0`` (docs/methods.md §1.1).

Algorithm 1 keeps a substitution when the masked LM finds it natural at its slot; a search that stacks
several of them can make a sentence no one would write ("the actors are because .", "bisset have a
game performance"). A neighbour rule judges the whole neighbour ``x̃`` against ``x0`` where that is
cheap: in the beam's survivors of each step (SO-Beam) and in the vulnerable candidates before one is
reported (the goal function; a refused one is not vulnerable and the search goes on), never in the
hundreds of neighbours a step proposes.

* ``"natural"`` (default): :class:`NeighborPartOfSpeech` (every changed word carries the tag of the
  word it replaced) and, with a budget, :class:`NeighborFluency` (the causal LM finds ``x̃`` at most
  ``b`` nats per changed word less likely than ``x0``).
* ``"paper"``: Algorithm 1 alone (no check).
"""

from collections import Counter

from ..constraints.neighbor_fluency import NeighborFluency
from ..constraints.neighbor_part_of_speech import NeighborPartOfSpeech

NEIGHBOR_RULES = {
    "natural": "every changed word keeps its part of speech; with neighbor_lm_budget, the causal LM's budget",
    "paper": "Algorithm 1 alone: every masked-LM proposal within kappa/delta",
}
DEFAULT_NEIGHBOR_RULE = "natural"
NEIGHBOR_LM_BUDGET = 2.0  # nats of log P(x̃) per changed word (measured: docs/methods.md §1.1)
NEIGHBOR_LM_MAX_SCORED = 96  # causal-LM judgements per attacked sentence, then refused (docs/methods.md §1.1)


class NeighborRule:
    """A named, ordered list of constraints a neighbour ``x̃`` must pass against ``x0`` (cheapest first).

    ``refused`` counts, by constraint class, the texts each one refused.
    """

    def __init__(self, name, constraints=()):
        self.name = name
        self.constraints = list(constraints)
        self.refused = Counter()

    def __bool__(self):
        return bool(self.constraints)

    def passes(self, reference, texts):
        """For each of ``texts``, whether every constraint accepts it against ``reference``."""
        kept = list(texts)
        for c in self.constraints:
            if not kept:
                break
            passed = c._check_constraint_many(kept, reference)
            self.refused[type(c).__name__] += len(kept) - len(passed)
            kept = passed
        ok = {id(t) for t in kept}
        return [id(t) in ok for t in texts]

    def split_part_of_speech(self):
        """``(rule, [NeighborPartOfSpeech])``: this rule without its part-of-speech check, and that check, to be
        applied to every neighbour before the victim scores it (SO-Beam, docs/methods.md §9.4); ``(self, [])``
        when the rule has none."""
        pos = [c for c in self.constraints if isinstance(c, NeighborPartOfSpeech)]
        if not pos:
            return self, []
        return NeighborRule(self.name, [c for c in self.constraints if c not in pos]), pos

    def for_beam(self, lm=False):
        """The rule for SO-Beam's survivors: this one with ``lm=True``; else its causal-LM check replaced by the
        verdicts that check has already given (what the goal function refused stays out of the beam; nothing new
        is scored)."""
        if lm:
            return self
        return NeighborRule(
            self.name,
            [c.known_verdicts() if isinstance(c, NeighborFluency) else c for c in self.constraints],
        )

    def __repr__(self):
        inner = ", ".join(repr(c) for c in self.constraints)
        return f"NeighborRule({self.name!r}{', ' + inner if inner else ''})"


def build_neighbor_rule(
    name=DEFAULT_NEIGHBOR_RULE,
    lm_budget=NEIGHBOR_LM_BUDGET,
    causal_lm=None,
    device=None,
    tagger=None,
    lm_max_scored=NEIGHBOR_LM_MAX_SCORED,
):
    """The neighbour rule called ``name``; ``lm_budget``: nats per changed word of the causal-LM check (None: no
    such check); ``causal_lm``: a scorer or a name of the causal-LM slot (loaded on first use); ``tagger``: the
    part-of-speech tagger (None: the ``pos_tagger`` slot); ``lm_max_scored``: texts the causal LM judges per
    attacked sentence, later ones refused unscored (None: no limit)."""
    if name not in NEIGHBOR_RULES:
        raise ValueError(
            f"neighbor_rule={name!r} is not a neighbour rule; choose one of {', '.join(map(repr, NEIGHBOR_RULES))}"
        )
    if name == "paper":
        return NeighborRule(name)
    constraints = [NeighborPartOfSpeech(tagger=tagger)]
    if lm_budget is not None:
        constraints.append(NeighborFluency(causal_lm, budget=lm_budget, max_scored=lm_max_scored, device=device))
    return NeighborRule(name, constraints)
