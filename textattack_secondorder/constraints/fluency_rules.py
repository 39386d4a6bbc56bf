"""Fluency rules: which of SP-Attack's one-word swaps still read as a sentence (docs/design/single-word.md).

SP-Attack puts one of the top-M words by κ in place of one word of the sentence. The words that flip a model most
often are whatever they are: on the demo word models rare GloVe words ("borstal", "doze"), on a transformer opinion
words, and the paper's pool tries each of them at every position, so a success can drop an adjective where a
determiner stood ("would rather cut to the chase" → "cut to insightful chase") or a word into a name ("wes craven" →
"que craven"). A fluency rule is a named pair of checks:

* ``constraints`` — TextAttack constraints on the candidate ``x'`` against ``x``, run before the victim sees it
  (cheap: a tagger);
* ``success_checks`` — constraints run on the candidates the victim misclassifies, before they count towards the
  search's ``k`` (costly: a causal LM; a CNN victim misclassifies a small share of the pool, so the causal LM
  scores a few dozen candidates instead of the whole pool).

``"natural"`` (the default): the κ word replaces a word of the rule's ``slots`` — by default an adjective or adverb
(``"modifiers"``; ``"content"``: nouns and verbs too), not a name or a word beside one — and carries its Penn tag:
lemminflect's lexicon knows it as that form (so a string no English lexicon has, "besco", "flava", is refused without
a model) and the tagger reads it so in ``x'`` (:class:`~.patch_part_of_
speech.PatchPartOfSpeech`, the patch rule's check), an "a" or "an" before it still agrees
(:class:`~.article_agreement.ArticleAgreement`); and the causal LM's log-likelihood of ``x'`` is at most
``lm_budget`` nats below that of ``x`` (:class:`~.neighbor_fluency.NeighborFluency`, the so-beam neighbour rule's
budget, for one changed word). ``"pos"``: the part-of-speech check alone. ``"paper"``: no check (Xu et al.'s pool).

Blind readers rated a put-in noun or verb fluent far less often than a put-in adjective ("the movie exists for its
*shot* action", "bastions of *water*" against "the performances of the *aged* players"), and the LM's drop separates the
rest (docs/design/single-word.md).
"""

from .article_agreement import ArticleAgreement
from .named_rule import NamedRule
from .neighbor_fluency import NeighborFluency
from .patch_part_of_speech import CONTENT_TAGS, MODIFIER_TAGS, PatchPartOfSpeech

FLUENCY_RULES = {
    "natural": "the κ word replaces a word of the slots (by default a modifier) and keeps its part of speech (in "
    "context), and the causal LM's log-likelihood falls by at most lm_budget nats",
    "pos": "the κ word replaces a word of the slots and keeps its part of speech (in context)",
    "paper": "the paper's pool: no check",
}
DEFAULT_FLUENCY_RULE = "natural"
#: which words the κ word may replace: their Penn tags
FLUENCY_SLOTS = {"modifiers": MODIFIER_TAGS, "content": CONTENT_TAGS}
#: the default slots: adjectives and adverbs (decided by a blind read of MR training sentences, with the budget below:
#: docs/design/single-word.md)
DEFAULT_FLUENCY_SLOTS = "modifiers"
#: nats of causal-LM log-likelihood the one changed word may cost (the same read)
FLUENCY_LM_BUDGET = 4.0
#: misclassified candidates the causal LM judges per attacked sentence (later ones are refused unscored)
FLUENCY_LM_MAX_SCORED = 100


class FluencyRule(NamedRule):
    """A named fluency rule: ``constraints`` before the victim, ``success_checks`` on its misclassified candidates.

    Args:
        name: the rule's name (one of :data:`FLUENCY_RULES` for the built-in ones).
        constraints: TextAttack constraints run on the pool before the victim, cheapest first.
        success_checks: TextAttack constraints run on the misclassified candidates.
        settings: what the summary row says after the name.
    """

    def __init__(self, name, constraints=(), success_checks=(), settings=""):
        super().__init__(name, constraints, settings, success_checks)


def build_fluency_rule(
    name=DEFAULT_FLUENCY_RULE,
    lm_budget=FLUENCY_LM_BUDGET,
    causal_lm=None,
    device=None,
    tagger=None,
    lm_max_scored=FLUENCY_LM_MAX_SCORED,
    slots=DEFAULT_FLUENCY_SLOTS,
):
    """The fluency rule called ``name``; ``causal_lm``: a scorer or a name of the causal-LM slot (loaded on first
    use); ``tagger``: the part-of-speech tagger (default: the ``pos_tagger`` slot's); ``slots``: which words the κ word
    may replace (one of :data:`FLUENCY_SLOTS`)."""
    if name not in FLUENCY_RULES:
        raise ValueError(
            f"fluency_rule={name!r} is not a fluency rule; choose one of {', '.join(map(repr, FLUENCY_RULES))}"
        )
    if slots not in FLUENCY_SLOTS:
        raise ValueError(
            f"fluency_slots={slots!r} is not a slot set; choose one of {', '.join(map(repr, FLUENCY_SLOTS))}"
        )
    if name == "paper":
        return FluencyRule(name, settings="no check")
    pos = [ArticleAgreement(), PatchPartOfSpeech(tagger=tagger, names=True, slots=FLUENCY_SLOTS[slots])]
    what = "an adjective or adverb" if slots == "modifiers" else "a content word"
    if name == "pos" or lm_budget is None:
        return FluencyRule(name, pos, settings=f"{what}, its part of speech kept")
    lm = NeighborFluency(causal_lm, budget=lm_budget, max_scored=lm_max_scored, device=device)
    return FluencyRule(
        name,
        pos,
        [lm],
        settings=f"{what}, its part of speech kept; causal-LM log-likelihood falls <= {lm_budget:g} nats",
    )
