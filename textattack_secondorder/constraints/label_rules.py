"""Label rules: which one-word swaps may count as adversarial examples (docs/design/single-word.md).

An adversarial example changes the victim's prediction, not the sentence's label. SP-Attack puts in a word of the
top of κ, and on a sentiment task those are mostly words that carry the other label ("the acting was superb" →
"the acting was bad"): the victim is right about the changed sentence. A label rule is a named, ordered list of
TextAttack constraints on ``x'`` against ``x``, cheapest first; SP-Attack's recipe adds them to the attack (its
``label_rule`` parameter), so a candidate the rule refuses is never sent to the victim, and ASR1
(:class:`~..metrics.asr1.ASR1`) can count a one-word success of any attack only when the rule keeps it:

* ``"lean-synonyms-lexicon"`` (SP-Attack's default): ``"lean-synonyms"``, then
  :class:`~.lexicon_swap.SentimentLexiconSwap` (no word of a sentiment lexicon put in or taken out: the common
  opinion words a transformer's κ favours lean too little in a small training set). Specific to sentiment.
* ``"lean-synonyms"``: ``"lean"``, then the same check on each word's lean pooled with its
  counter-fitted synonyms (:class:`~..datasets.label_words.SynonymLabelLean`: a word too rare in the training
  sentences to lean anywhere borrows the counts of its synonyms).
* ``"lean"``: :class:`NegationSwap` (no negator put in or taken out), then :class:`LabelLeanShift` (the swap moves
  the words' lean to some label in the victim's training sentences by at most ``max_shift`` nats; Eq. 6's margin,
  1 nat, by default).
* ``"paper"``: no check beyond the paper's similarity (sentence-encoder cosine > 0.8, in SP-Attack's search).

Each ``"lean*"`` rule also has a success check, judged on the candidates the victim misclassified: a label probe fitted
on the same data must not move off the sentence's label by more than ``probe_max_drop`` nats
(:class:`~.label_probe.LabelProbeDrop`; task-agnostic, it reads what the word counts cannot).

What each signal was measured to tell, and the blind reads the rule was chosen from, are in docs/design/single-word.md.
"""

from ..datasets.examples import load_examples
from ..datasets.label_words import LabelLean, SynonymLabelLean, label_word_counts
from ..resources.sentiment_lexicon import LEXICON_NAME
from ..resources.synonyms import SynonymList
from ..shared.inputs import label_reason
from .label_lean import LEAN_MARGIN, LabelLeanShift
from .label_probe import LABEL_PROBE_MAX_DROP, LabelProbe, LabelProbeDrop
from .lexicon_swap import MIN_VALENCE, SentimentLexiconSwap
from .named_rule import NamedRule
from .negation_swap import NegationSwap

LABEL_RULES = {
    "lean-synonyms-lexicon": "'lean-synonyms', and no word of VADER's sentiment lexicon (|valence| >= 1) put in or "
    "taken out (sentiment tasks)",
    "lean-synonyms": "'lean', and the lean of each word pooled with its counter-fitted synonyms moves <= max_shift",
    "lean": "no negator put in or taken out; the words' label lean in the training data moves <= max_shift nats",
    "paper": "the paper's rule: sentence-encoder cosine > 0.8 only",
}
DEFAULT_LABEL_RULE = "lean-synonyms-lexicon"
#: the rules that also read each word's lean pooled with its counter-fitted synonyms
POOLED_RULES = ("lean-synonyms", "lean-synonyms-lexicon")


class LabelRule(NamedRule):
    """A named, ordered list of constraints a one-word swap ``x'`` must pass against ``x`` to keep ``x``'s label.

    Args:
        name: the rule's name (one of :data:`LABEL_RULES` for the built-in ones).
        constraints: TextAttack constraints, cheapest first.
        settings: what the summary row says after the name (e.g. the margin and the data).
        success_checks: checks of the candidates the victim misclassified, given the sentence's label (the probe).
    """


#: SP-Attack's default largest shift of the lean, nats (Eq. 6's own margin, LEAN_MARGIN, is 1; design/single-word.md)
LABEL_MAX_SHIFT = 0.5
#: SP-Attack's default prior of the label lean, in pseudo-occurrences: a word seen once leans (datasets/label_words.py)
LABEL_PRIOR = 1.0
#: label names that make a task a sentiment task (the lexicon's part of ``'lean-synonyms-lexicon'`` applies)
SENTIMENT_NAMES = (("negative", "neg"), ("positive", "pos"))


def is_sentiment_task(label_names):
    """Whether labels named ``label_names`` are sentiment labels: a negative and a positive one among them (case
    ignored: ``negative``/``positive``, ``neg``/``pos``)."""
    names = {str(n).strip().casefold() for n in label_names or ()}
    return all(any(alias in names for alias in aliases) for aliases in SENTIMENT_NAMES)


def build_label_rule(
    name=DEFAULT_LABEL_RULE,
    lean=None,
    max_shift=LEAN_MARGIN,
    synonym_lean=None,
    lexicon=True,
    probe=None,
    probe_max_drop=LABEL_PROBE_MAX_DROP,
):
    """The label rule called ``name``. ``lean``: a :class:`~..datasets.label_words.LabelLean` of the victim's
    training sentences (needed by ``"lean"`` and ``"lean-synonyms"``); ``synonym_lean``: a
    :class:`~..datasets.label_words.SynonymLabelLean` of the same sentences (needed by ``"lean-synonyms"``);
    ``max_shift``: the largest shift kept, in nats; ``lexicon``: whether ``"lean-synonyms-lexicon"``'s sentiment
    lexicon applies (a sentiment task) or is left out (the summary row says which); ``probe``: a
    :class:`~.label_probe.LabelProbe` of the same sentences whose log-probability of the label may fall by at most
    ``probe_max_drop`` nats on a success (None, or ``probe_max_drop`` None: no probe)."""
    if name not in LABEL_RULES:  # the recipe checks its parameter first (attack_recipes/sp_attack.py); Python callers
        raise ValueError(f"label_rule={name!r} is not a label rule; choose one of {', '.join(map(repr, LABEL_RULES))}")
    if name == "paper":
        return LabelRule(name, settings="cosine > 0.8 only")
    if lean is None:
        raise ValueError(f"label rule {name!r} needs the label lean of the victim's training sentences")
    source = f"; label data {lean.name}" if lean.name else ""
    constraints = [NegationSwap(), LabelLeanShift(lean, max_shift=max_shift)]
    settings = f"no negator in or out; label-lean shift <= {max_shift:g} nat"
    if name in POOLED_RULES:
        if synonym_lean is None:
            raise ValueError(f"label rule {name!r} needs the synonym-pooled label lean of the training sentences")
        constraints.append(LabelLeanShift(synonym_lean, max_shift=max_shift))
        settings += ", also pooled with each word's synonyms"
    if getattr(lean, "prior", None) is not None:
        settings += f", a word seen once counts (prior {lean.prior:g})"
    if name == "lean-synonyms-lexicon" and lexicon:
        constraints.append(SentimentLexiconSwap())
        settings += f"; no word of the sentiment lexicon ({LEXICON_NAME}, |valence| >= {MIN_VALENCE:g}) in or out"
    elif name == "lean-synonyms-lexicon":
        settings += "; sentiment lexicon off (not a sentiment task)"
    checks = []
    if probe is not None and probe_max_drop is not None:
        checks.append(LabelProbeDrop(probe, probe_max_drop))
        settings += f"; a label probe's log P(label) falls <= {probe_max_drop:g} nat"
    return LabelRule(name, constraints, settings=settings + source, success_checks=checks)


def label_rule_for_data(
    name=DEFAULT_LABEL_RULE,
    data="mr",
    max_shift=LEAN_MARGIN,
    prior=None,
    lexicon=True,
    origin=None,
    num_classes=None,
    label_names=None,
    probe_max_drop=LABEL_PROBE_MAX_DROP,
    sentence_encoder=None,
    device=None,
):
    """:func:`build_label_rule` with the label lean of ``data``'s training sentences (``'mr'`` or a CSV with
    text,label columns). ``prior``: the lean's prior in pseudo-occurrences (None: Eq. 6's add-one smoothing);
    ``origin``: why this data (said in the summary row, e.g. "the data κ was computed on"); ``num_classes`` and
    ``label_names``: the model's, to read the data's labels as its classes (a row with another label is left out);
    ``probe_max_drop``: the label probe's margin (None: no probe), the probe fitted on the same sentences with
    ``sentence_encoder`` (a slot value or an encoder; on ``device``) when first asked.
    A name that is no rule, data without labels or without any of the model's labels: ``ValueError``, one line."""
    if name not in LABEL_RULES:
        raise ValueError(f"label_rule={name!r} is not a label rule; choose one of {', '.join(map(repr, LABEL_RULES))}")
    if name == "paper":
        return build_label_rule(name)
    try:
        examples = load_examples(data, "train")
    except OSError as e:
        raise ValueError(f"label data {data!r} cannot be read: {e.strerror or e}") from None
    if not any(y is not None for _, y in examples):
        raise ValueError(f"label data {data!r} has no labels; pass a CSV with text,label columns")
    labelled = [(t, y) for t, y in examples if y is not None]
    if num_classes is not None or label_names:
        classes = [(t, label_reason(y, num_classes, label_names)[0]) for t, y in labelled]
        if not any(c is not None for _, c in classes):
            theirs = ", ".join(sorted({str(y) for _, y in labelled})[:8])
            ours = ", ".join(label_names) if label_names else f"0..{num_classes - 1}"
            raise ValueError(
                f"label data {data!r} has none of the model's labels (its labels: {theirs}; the model's: {ours})"
            )
        labelled = [(t, c) for t, c in classes if c is not None]
    source = f"{data}:train" if data == "mr" else str(data)
    source += f" ({origin})" if origin else ""
    lean = LabelLean.from_examples(labelled, name=source, prior=prior)
    pooled = None
    if name in POOLED_RULES:  # the synonym list the package ships (the resource slot)
        pooled = SynonymLabelLean(label_word_counts(labelled), SynonymList(), name=source, prior=prior)
    probe = None
    classes = {y for _, y in labelled}
    if probe_max_drop is not None and len(classes) > 1 and all(isinstance(y, int) for y in classes):
        # the probe's columns are the victim's class numbers (data read without the model's classes has none)
        probe = LabelProbe(labelled, encoder=sentence_encoder, name=source, device=device)
    return build_label_rule(
        name,
        lean=lean,
        max_shift=max_shift,
        synonym_lean=pooled,
        lexicon=lexicon,
        probe=probe,
        probe_max_drop=probe_max_drop,
    )
