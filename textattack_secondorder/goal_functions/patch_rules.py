"""Patch rules: which candidate swaps ``p1 -> p2`` may serve as the patch pair (docs/design/patch-rules.md).

A second-order finding says "``x̃0`` and ``x̃0 ⊕ p`` get different labels"; it is a finding only if
``p`` keeps the meaning of the sentence it is applied in. Among the candidate pairs of an input
(``p1`` occurring once, ``p2`` a listed synonym absent from it), a rule keeps the swaps it accepts
*in that sentence*; the paper's single-word rule then chooses among those (the accepted pair the
model reacts to most). Each rule is an ordered list of TextAttack constraints on ``x ⊕ p`` against
``x`` (``textattack_secondorder.constraints``), cheapest first:

* ``"judge"`` (default): :class:`PatchPartOfSpeech`, :class:`LexicalLink` (``p2`` shares one of ``p1``'s
  first four WordNet senses, or is a listed synonym: no antonyms), then :class:`PatchJudge` — a logistic
  regression over the causal LM's and the masked LM's view of the swap, WordNet senses and the synonym
  list, fitted to human judgements of word swaps in context (SWORDS); the swap is kept when the
  probability that people accept it is at least the threshold. Its candidates are the listed synonyms
  plus the WordNet synonyms of ``p1``'s first senses (:class:`~.patch_candidates.MoreCandidates`); among
  the kept ones of the victim's first chunk of favourites it takes the swap the judge is surest of.
* ``"in-context"``: :class:`PatchPartOfSpeech` (``p1`` a content word, not beside a name;
  ``p2`` an English word with ``p1``'s tag in the sentence), :class:`WordNetSynonym` (``p2`` shares
  ``p1``'s first WordNet sense for that part of speech, and it is ``p2``'s first sense too) and
  :class:`CausalLMFit` (the causal LM finds ``x ⊕ p`` at most 3 nats less likely than ``x``).
* ``"authors-code"``: what Zhang et al.'s released code adds to the paper — discard a swap that lowers
  the masked-LM pseudo-log-likelihood of the sentence by more than 1.5 (:class:`PseudoLogLikelihoodDrop`).
* ``"paper"``: the paper's text, every candidate pair (no check).

The goal function also checks the chosen pair in each vulnerable example it reports (the
neighbourhood may have changed the words around ``p1``): a candidate whose patched twin the rule
refuses is not reported as vulnerable. Blind reads of the pairs each rule chooses, and what each
check was measured to add, are in docs/design/patch-rules.md.
"""

import logging
from collections import Counter

from ..constraints import (
    CausalLMFit,
    LexicalLink,
    PatchJudge,
    PatchPartOfSpeech,
    PseudoLogLikelihoodDrop,
    WordNetSynonym,
)
from ..constraints.patch_judge import read_judge
from ..constraints.swap_signals import SwapSignals
from ..resources import (
    load_causal_lm,
    load_pos_tagger,
    load_sentence_encoder,
    load_synonyms,
    load_word_proposer,
    word_proposer,
)
from .patch_candidates import MoreCandidates

logger = logging.getLogger(__name__)

PATCH_RULES = {
    "judge": "the patch judge fitted to human judgements (SWORDS), over listed and WordNet synonyms",
    "in-context": "part of speech and inflection kept, p1's and p2's first WordNet sense, the causal LM's fit",
    "authors-code": "the authors' code: masked-LM pseudo-log-likelihood drop <= 1.5",
    "paper": "the paper's text: every listed synonym",
}
DEFAULT_PATCH_RULE = "judge"
NO_PAIR_KEPT = "no patch pair keeps the meaning here"
# kind codes of a skipped input (SkipReason.kind): no candidate pair at all / the rule kept none of them
NO_PATCH_WORD, PAIR_NOT_KEPT = "no-patch-word", "no-pair-kept"


class SkipReason(str):
    """Why an input has no patch pair: the text shown to the user, with a kind code (``.kind``:
    :data:`NO_PATCH_WORD` or :data:`PAIR_NOT_KEPT`) that counts it in the summary."""

    def __new__(cls, text, kind):
        reason = super().__new__(cls, text)
        reason.kind = kind
        return reason


# in-context rule settings (chosen on MR training sentences by blind reads, docs/design/patch-rules.md)
WORDNET_SENSES = 1  # p1's first sense ...
WORDNET_SENSES_NEW = 1  # ... which is p2's first sense too
CAUSAL_LM_MAX_DROP = 3.0  # nats of log P(sentence)
AUTHORS_PLL_MAX_DROP = 1.5  # Zhang et al.'s released code
JUDGE_SURE = 0.7  # judge rule: how sure of a kept pair ends the scan for the pair (docs/design/patch-rules.md)
CHUNK = 8  # candidates checked per round, best first: later ones are only scored when these all fail


class PatchRule:
    """A named, ordered list of constraints a patch swap ``x ⊕ p`` must pass against ``x``.

    Args:
        name: the rule's name (one of :data:`PATCH_RULES` for the built-in ones).
        constraints: TextAttack constraints, cheapest first (each gets only what the earlier ones kept).
        more: a :class:`~.patch_candidates.MoreCandidates` adding candidates beyond the synonym list (None: the
            list's only).
        prefer: a key on kept texts: among the kept candidates of the first chunk with any, the one it ranks
            highest is taken (None: the first, i.e. the victim's favourite; the paper's choice).
        sure: with ``prefer``, the key a kept candidate must reach to end the scan: the chunks are read on, in the
            victim's order, until one holds a kept candidate the key ranks at ``sure`` or above; if none does, the
            highest-ranked kept candidate seen is taken (None: the first chunk with a kept candidate ends the scan).
    """

    def __init__(self, name, constraints=(), more=None, prefer=None, sure=None):
        self.name = name
        self.constraints = list(constraints)
        self.more = more
        self.prefer = prefer
        self.sure = sure

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
        :data:`CHUNK` at a time so that later candidates are only scored when the earlier ones fail; with
        ``prefer``, the kept one of that chunk it ranks highest, and with ``sure`` the scan goes on until a kept one
        ranks at ``sure`` or above (else the highest-ranked kept one seen)."""
        refused, best = Counter(), None  # best: (key, index) of the highest-ranked kept candidate so far
        for start in range(0, len(patched_texts), CHUNK):
            chunk = patched_texts[start : start + CHUNK]
            kept, why = self.kept(reference, chunk)
            refused += why
            if not kept:
                continue
            ids = {id(t): n for n, t in enumerate(chunk)}
            if self.prefer is None:
                return start + min(ids[id(t)] for t in kept), refused
            top = max(kept, key=self.prefer)  # the rule's own preference among the chunk's kept candidates
            key = self.prefer(top)
            if best is None or key > best[0]:
                best = (key, start + ids[id(top)])
            if self.sure is None or key >= self.sure:
                break
        return (best[1] if best is not None else None), refused

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
    name=DEFAULT_PATCH_RULE,
    masked_lm=None,
    causal_lm=None,
    device=None,
    tagger=None,
    lm_drop=CAUSAL_LM_MAX_DROP,
    judge_threshold=None,
    judge_file=None,
    judge_signals=None,
    judge_sure=None,
):
    """The patch rule called ``name``. ``masked_lm``: the proposer the attack's neighbourhood uses (shared, so
    the masked LM is loaded once), a name of the masked-LM slot or None (its default); ``causal_lm``: a scorer
    or a name of the causal-LM slot (None: its default; GPT-2 online, Gemma-3-270M offline), loaded on
    ``device``; ``tagger``: the part-of-speech tagger (None: the ``pos_tagger`` slot); ``lm_drop``: the
    in-context rule's largest drop of the causal LM's log-likelihood (None: no causal-LM check);
    ``judge_threshold``: the judge rule's least P(acceptable) (None: the judge file's default); ``judge_file``: its
    weights (None: the packaged file); ``judge_signals``: what computes its signals (None: the models it was fitted
    with; tests pass stand-ins); ``judge_sure``: the judge's probability that ends the scan for the pair
    (:class:`PatchRule` ``sure``; None: the first chunk of the victim's favourites with a kept pair)."""
    if name not in PATCH_RULES:  # the recipes check their parameter (attack_recipes/second_order.py); Python callers
        raise ValueError(f"patch_rule={name!r} is not a patch rule; choose one of {', '.join(map(repr, PATCH_RULES))}")
    if name == "judge":
        return _judge_rule(masked_lm, causal_lm, device, tagger, judge_threshold, judge_file, judge_signals, judge_sure)
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


#: the models the judge was fitted with (docs/design/patch-rules.md): its signals mean nothing from other ones
JUDGE_CAUSAL_LM = "gemma"
JUDGE_MASKED_LM = "distilbert-onnx"
JUDGE_SENTENCE_ENCODER = "all-MiniLM-L6-v2"


def _judge_rule(masked_lm, causal_lm, device, tagger, threshold, judge_file, signals=None, sure=None):
    """The ``judge`` rule: the part-of-speech check, a lexical link (:class:`LexicalLink`), then :class:`PatchJudge`,
    over the listed and the WordNet synonyms. The judge's file is read first, so a bad one is told before any model
    loads. ``signals``: the judge's
    :class:`SwapSignals` (None: built on the models it was fitted with)."""
    judge_model = read_judge(judge_file)
    proposer = word_proposer(masked_lm) if masked_lm is not None else None
    tagger = tagger if tagger is not None else load_pos_tagger()
    part_of_speech = PatchPartOfSpeech(tagger=tagger)
    listed = load_synonyms()  # the packaged list the judge was fitted with: one read for its signal and the link
    if signals is None:
        if getattr(proposer, "name", None) != JUDGE_MASKED_LM:
            proposer = load_word_proposer(JUDGE_MASKED_LM)
        if causal_lm is None or isinstance(causal_lm, str):
            causal_lm = load_causal_lm(JUDGE_CAUSAL_LM, device=device)
        signals = SwapSignals(
            causal_lm,
            proposer,
            tagger,
            synonyms=listed,
            part_of_speech=part_of_speech,
            sentence_encoder=load_sentence_encoder(JUDGE_SENTENCE_ENCODER, device=device),
        )
    judge = PatchJudge(signals, threshold=threshold, model=judge_model)
    link = LexicalLink(synonyms=listed, tagger=tagger)
    # the surest kept swap of the victim's favourites, read on until one is at least `sure` (docs/design/patch-rules.md)
    return PatchRule(
        "judge",
        [part_of_speech, link, judge],
        more=MoreCandidates(tagger),
        prefer=judge.last_probability,
        sure=sure,
    )
