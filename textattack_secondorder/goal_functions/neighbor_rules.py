"""Neighbour rules: which neighbours may stand in the beam and be reported as ``x̃0`` (docs/design/neighbours.md).

Algorithm 1 keeps a substitution when the masked LM finds it natural at its slot; a search that stacks
several of them can make a sentence no one would write ("the actors are because .", "bisset have a
game performance"). A neighbour rule judges the whole neighbour ``x̃`` against ``x0`` where that is
cheap: in the beam's survivors of each step (SO-Beam) and in the vulnerable candidates before one is
reported (the goal function; a refused one is not vulnerable and the search goes on), never in the
hundreds of neighbours a step proposes.

* ``"natural"`` (default): :class:`NeighborWordCount` (at most ``max_words`` words changed, the search's depth
  too), :class:`NeighborPartOfSpeech` (every changed word carries the tag of the word it replaced) and, with a
  budget, :class:`NeighborFluency` (the causal LM finds ``x̃`` at most ``b`` nats per changed word less likely
  than ``x0``).
* ``"paper"``: Algorithm 1 alone (no check).
"""

from collections import Counter

from ..constraints.neighbor_fluency import NeighborFluency
from ..constraints.neighbor_part_of_speech import NeighborPartOfSpeech
from ..constraints.neighbor_word_count import NeighborWordCount
from ..constraints.neighbor_word_similarity import NeighborWordSimilarity

NEIGHBOR_RULES = {
    "natural": "every changed word keeps its part of speech; with neighbor_lm_budget, the causal LM's budget",
    "paper": "Algorithm 1 alone: every masked-LM proposal within kappa/delta",
}
DEFAULT_NEIGHBOR_RULE = "natural"
NEIGHBOR_LM_BUDGET = 2.0  # nats of log P(x̃) per changed word (measured: docs/design/neighbours.md)
NEIGHBOR_MAX_WORDS = 2  # changed words of x̃0 (blind reads by depth: docs/design/neighbours.md; SO-Enum's k = 2)
NEIGHBOR_PICK_AMONG = 4  # kept vulnerable candidates compared by word similarity (docs/design/neighbours.md)
NEIGHBOR_LM_MAX_SCORED = 96  # causal-LM judgements per attacked sentence, then refused (docs/design/neighbours.md)


class NeighborRule:
    """A named, ordered list of constraints a neighbour ``x̃`` must pass against ``x0`` (cheapest first).

    ``refused`` counts, by constraint class, the texts each one refused.
    """

    def __init__(self, name, constraints=(), pick_among=1, preference=None):
        self.name = name
        self.constraints = list(constraints)
        self.refused = Counter()
        self.pick_among = int(pick_among)
        self.preference = preference  # a NeighborWordSimilarity whose least similarity ranks the kept candidates

    @property
    def max_words(self):
        """The most words a neighbour may change under this rule (None: no cap)."""
        caps = [c.max_words for c in self.constraints if isinstance(c, NeighborWordCount)]
        return min(caps) if caps else None

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

    def best(self, reference, texts):
        """Index of the text of ``texts`` (all kept by the rule) to report: the one whose least similar changed word
        is the most similar (:attr:`preference`), else the first."""
        if self.preference is None or len(texts) == 1:
            return 0
        values = [self.preference.least_similarity(t, reference) for t in texts]
        return max(range(len(texts)), key=lambda i: (values[i] if values[i] == values[i] else -2.0, -i))

    def split_part_of_speech(self):
        """``(rule, [NeighborPartOfSpeech])``: this rule without its part-of-speech check, and that check, to be
        applied to every neighbour before the victim scores it (SO-Beam, docs/design/speed.md); ``(self, [])``
        when the rule has none."""
        pos = [c for c in self.constraints if isinstance(c, NeighborPartOfSpeech)]
        if not pos:
            return self, []
        rest = [c for c in self.constraints if c not in pos]
        return NeighborRule(self.name, rest, self.pick_among, self.preference), pos

    def for_beam(self, lm=False, similarity=False):
        """The rule for SO-Beam's survivors: its model checks run again there only when asked (``lm``: the causal
        LM's budget, ``similarity``: the word similarity); otherwise each is replaced by the verdicts it has
        already given (what the goal function refused stays out of the beam; nothing new is scored)."""
        keep = (NeighborFluency,) * bool(lm) + (NeighborWordSimilarity,) * bool(similarity)
        costly = [c for c in self.constraints if isinstance(c, (NeighborFluency, NeighborWordSimilarity))]
        if all(isinstance(c, keep) for c in costly):
            return self
        beam = [c.known_verdicts() if c in costly and not isinstance(c, keep) else c for c in self.constraints]
        return NeighborRule(self.name, beam, self.pick_among, self.preference)

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
    lm_total=None,
    min_similarity=None,
    sentence_encoder=None,
    pick_among=NEIGHBOR_PICK_AMONG,
    max_words=NEIGHBOR_MAX_WORDS,
):
    """The neighbour rule called ``name``; ``lm_budget``: nats per changed word of the causal-LM check (None: no
    such check); ``causal_lm``: a scorer or a name of the causal-LM slot (loaded on first use); ``tagger``: the
    part-of-speech tagger (None: the ``pos_tagger`` slot); ``lm_max_scored``: texts the causal LM judges per
    attacked sentence, later ones refused unscored (None: no limit); ``max_words``: the most words a neighbour may
    change (None: no cap)."""
    if name not in NEIGHBOR_RULES:
        raise ValueError(
            f"neighbor_rule={name!r} is not a neighbour rule; choose one of {', '.join(map(repr, NEIGHBOR_RULES))}"
        )
    if name == "paper":
        return NeighborRule(name)
    constraints = [] if max_words is None else [NeighborWordCount(max_words)]
    constraints.append(NeighborPartOfSpeech(tagger=tagger))
    similarity = None
    if min_similarity is not None or pick_among > 1:
        similarity = NeighborWordSimilarity(
            -1.0 if min_similarity is None else min_similarity, sentence_encoder=sentence_encoder, device=device
        )
    if min_similarity is not None:
        constraints.append(similarity)
    if lm_budget is not None or lm_total is not None:
        constraints.append(
            NeighborFluency(causal_lm, budget=lm_budget, total=lm_total, max_scored=lm_max_scored, device=device)
        )
    return NeighborRule(name, constraints, pick_among, similarity if pick_among > 1 else None)
