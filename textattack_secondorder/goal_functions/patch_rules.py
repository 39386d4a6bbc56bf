"""Patch rules: which candidate swaps ``p1 -> p2`` may serve as the patch pair (docs/methods.md §1.2).

A second-order finding says "``x̃0`` and ``x̃0 ⊕ p`` get different labels"; it is a finding only if
``p`` keeps the meaning of the sentence it is applied in. Among the candidate pairs of an input
(``p1`` occurring once, ``p2`` a listed synonym absent from it), a rule keeps the swaps it accepts
*in that sentence*; the paper's single-word rule then chooses among those (the accepted pair the
model reacts to most). Each rule is an ordered list of TextAttack constraints on ``x ⊕ p`` against
``x`` (``textattack_secondorder.constraints``), cheapest first:

* ``"in-context"`` (default): :class:`PatchPartOfSpeech` (``p1`` a content word, not beside a name;
  ``p2`` an English word with ``p1``'s tag in the sentence), :class:`WordNetSynonym` (``p2`` shares
  ``p1``'s first WordNet sense for that part of speech, and it is ``p2``'s first sense too) and
  :class:`CausalLMFit` (the causal LM finds ``x ⊕ p`` at most 3 nats less likely than ``x``).
* ``"authors-code"``: what Zhang et al.'s released code adds to the paper — discard a swap that lowers
  the masked-LM pseudo-log-likelihood of the sentence by more than 1.5 (:class:`PseudoLogLikelihoodDrop`).
* ``"paper"``: the paper's text, every candidate pair (no check).

The goal function also checks the chosen pair in each vulnerable example it reports (the
neighbourhood may have changed the words around ``p1``): a candidate whose patched twin the rule
refuses is not reported as vulnerable. Blind reads of the pairs each rule chooses, and what each
check was measured to add, are in docs/methods.md §1.2.
"""

import logging
from collections import Counter

from ..constraints import CausalLMFit, PatchPartOfSpeech, PseudoLogLikelihoodDrop, WordNetSynonym
from ..resources import load_word_proposer, word_proposer

logger = logging.getLogger(__name__)

PATCH_RULES = {
    "in-context": "part of speech and inflection kept, p1's and p2's first WordNet sense, the causal LM's fit",
    "authors-code": "the authors' code: masked-LM pseudo-log-likelihood drop <= 1.5",
    "paper": "the paper's text: every listed synonym",
}
DEFAULT_PATCH_RULE = "in-context"
NO_PAIR_KEPT = "no patch pair keeps the meaning here"

# in-context rule settings (chosen on MR training sentences by blind reads, docs/methods.md §1.2)
WORDNET_SENSES = 1  # p1's first sense ...
WORDNET_SENSES_NEW = 1  # ... which is p2's first sense too
CAUSAL_LM_MAX_DROP = 3.0  # nats of log P(sentence)
AUTHORS_PLL_MAX_DROP = 1.5  # Zhang et al.'s released code
CHUNK = 8  # candidates checked per round, best first: later ones are only scored when these all fail


def check_patch_rule(name):
    """Raise ``ValueError`` naming the valid rules when ``name`` is not one."""
    if name not in PATCH_RULES:
        raise ValueError(f"patch_rule={name!r} is not a patch rule; choose one of {', '.join(map(repr, PATCH_RULES))}")
    return name


class PatchRule:
    """A named, ordered list of constraints a patch swap ``x ⊕ p`` must pass against ``x``.

    Args:
        name: the rule's name (one of :data:`PATCH_RULES` for the built-in ones).
        constraints: TextAttack constraints, cheapest first (each gets only what the earlier ones kept).
    """

    def __init__(self, name, constraints=()):
        self.name = name
        self.constraints = list(constraints)

    def kept(self, reference, patched_texts):
        """``(kept, refused)``: the texts of ``patched_texts`` every constraint accepts against
        ``reference``, in their order, and how many each constraint refused (a ``Counter`` by class name)."""
        kept, refused = list(patched_texts), Counter()
        for c in self.constraints:
            if not kept:
                break
            passed = c._check_constraint_many(kept, reference)
            refused[type(c).__name__] += len(kept) - len(passed)
            kept = passed
        return kept, +refused  # unary plus drops the zero counts

    def first_kept(self, reference, patched_texts):
        """``(index, refused)``: the first of ``patched_texts`` the rule keeps (``None`` if none), checked
        :data:`CHUNK` at a time so that later candidates are only scored when the earlier ones fail."""
        refused = Counter()
        for start in range(0, len(patched_texts), CHUNK):
            chunk = patched_texts[start : start + CHUNK]
            kept, why = self.kept(reference, chunk)
            refused += why
            if kept:
                ids = {id(t): n for n, t in enumerate(chunk)}
                return start + min(ids[id(t)] for t in kept), refused
        return None, refused

    def __repr__(self):
        inner = ", ".join(repr(c) for c in self.constraints)
        return f"PatchRule({self.name!r}{', ' + inner if inner else ''})"


def _scorer(masked_lm):
    """The masked LM the authors' rule scores with: the neighbourhood's proposer when it scores sentences,
    else the masked-LM slot's default (said in the log: a user's own proposer, or Gemma, does not)."""
    proposer = word_proposer(masked_lm)
    if getattr(proposer, "scores_sentences", False):
        return proposer
    scorer = load_word_proposer()
    logger.warning("patch rule: %r does not score sentences; the rule scores with %r", proposer, scorer)
    return scorer


def build_patch_rule(
    name=DEFAULT_PATCH_RULE, masked_lm=None, causal_lm=None, device=None, tagger=None, lm_drop=CAUSAL_LM_MAX_DROP
):
    """The patch rule called ``name``. ``masked_lm``: the proposer the attack's neighbourhood uses (shared, so
    the masked LM is loaded once), a name of the masked-LM slot or None (its default); ``causal_lm``: a scorer
    or a name of the causal-LM slot (None: its default; GPT-2 online, Gemma-3-270M offline), loaded on
    ``device``; ``tagger``: the part-of-speech tagger (None: the ``pos_tagger`` slot); ``lm_drop``: the
    in-context rule's largest drop of the causal LM's log-likelihood (None: no causal-LM check)."""
    check_patch_rule(name)
    if name == "paper":
        return PatchRule(name)
    if name == "authors-code":
        return PatchRule(name, [PseudoLogLikelihoodDrop(_scorer(masked_lm), max_drop=AUTHORS_PLL_MAX_DROP)])
    constraints = [
        PatchPartOfSpeech(tagger=tagger),
        WordNetSynonym(max_sense=WORDNET_SENSES, max_sense_new=WORDNET_SENSES_NEW, tagger=tagger),
    ]
    if lm_drop is not None:
        constraints.append(CausalLMFit(causal_lm, max_log_prob_diff=lm_drop, device=device))
    return PatchRule(name, constraints)
