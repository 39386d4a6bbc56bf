"""
SP-Attack: single-word perturbation attack (Xu et al., "Single Word Change is All You Need")
===========================================================================================

Xu et al., "Single Word Change is All You Need: Designing Attacks and Defenses for Text
Classifiers", §4 (docs/design/single-word.md).

Change exactly one word of the sentence, into one of the top-M words by flip
capability κ (computed by EUBA, ``textattack-so flip-capability``), choosing among
the misclassified candidates by similarity and fluency.

    textattack-so flip-capability --model mr-cnn --dataset mr --split train --num-examples 1000 \\
        --out results/kappa_mr-cnn.json
    textattack attack --recipe "sp-attack^kappa='results/kappa_mr-cnn.json'" \\
        --model-from-file recipes/models/mr_cnn.py ...

Without ``kappa`` the recipe computes κ first with EUBA on ``kappa_examples``
training sentences of ``kappa_dataset`` (the model's own training data: by default the data set its folder
records, ``mr`` for the demo victims; a user's model names its CSV) and caches it under a content key
(``evaluation/flip_capability/cache.py``); later runs with the same model and data reuse it.

The M words are the top of κ among those the rules could keep (``pool``, :mod:`~..transformations.sp_attack_pool`).
A success counts only when the swap reads as a sentence (``fluency_rule``, :mod:`~..constraints.fluency_rules`: by
default the κ word replaces an adjective or adverb and keeps its part of speech, in context, and the causal LM loses at
most ``fluency_lm_budget`` nats) and keeps the sentence's label (``label_rule``, :mod:`~..constraints.label_rules`: by
default no negator in or out, the words' label lean in the victim's training data — ``label_data``, by default the
data κ was computed on — moves at most ``label_max_shift`` nats, each word alone and pooled with its synonyms, a
word seen once counting, on a sentiment task no word of VADER's lexicon in or out, and a label probe fitted on the same
data loses at most ``label_probe_max_drop`` nats of the label). The checks that need no victim run before it; the
summary table names both rules, the pool, their data and what was active.
"""

from textattack.goal_functions import UntargetedClassification

from ..constraints.fluency_rules import (
    DEFAULT_FLUENCY_RULE,
    DEFAULT_FLUENCY_SLOTS,
    FLUENCY_LM_BUDGET,
    FLUENCY_RULES,
    FLUENCY_SLOTS,
    build_fluency_rule,
)
from ..constraints.label_probe import LABEL_PROBE_MAX_DROP
from ..constraints.label_rules import (
    DEFAULT_LABEL_RULE,
    LABEL_MAX_SHIFT,
    LABEL_PRIOR,
    LABEL_RULES,
    is_sentiment_task,
    label_rule_for_data,
)
from ..datasets.examples import load_examples
from ..evaluation.flip_capability.cache import KappaDataError, cached_flip_capability, check_kappa_labels
from ..evaluation.flip_capability.ownership import load_kappa
from ..metrics.label_rule import label_rule_metrics
from ..models.probe import model_label_names, probe_model
from ..models.provenance import recorded_training_data
from ..search_methods import SPAttackSearch
from ..shared.inputs import label_reason
from ..transformations.sp_attack_pool import DEFAULT_POOL, POOLS, SPAttackPool
from ..transformations.word_swap_word_list import WordSwapWordList
from .input_guard import GuardedAttack
from .param import Param
from .recipe import RecipeParameterError, SORecipe


class SPAttack(SORecipe):
    """SP-Attack (Xu et al., §4) with the defaults of the paper."""

    name = "sp-attack"
    PARAMS = {
        "kappa": Param(
            None,
            "saved flip capabilities (JSON/CSV from `textattack-so flip-capability`) or a "
            "FlipCapabilityResult; None = compute with EUBA first",
        ),
        "top_m": Param(50, "§4: the top M = 50 words by κ", low=1),
        "pool": Param(
            DEFAULT_POOL,
            "which words the top M is taken from: 'admissible' (the words the label and fluency rules could keep in "
            "place of a word that leans nowhere: no negator, no lexicon word, lean <= label_max_shift, a form "
            "English has for a slot's part of speech) or 'paper' (every word of κ)",
            choices=tuple(POOLS),
        ),
        "max_successes": Param(50, "§4: stop after k = 50 misclassified candidates", low=1),
        "query_batch_size": Param(32, "candidates per model query batch", low=1),
        "weighting": Param(
            "paper",
            "joint criterion weights: 'paper' (α=3 on cos, β=20 on PPL ratio) or 'code' "
            "(the released code: 20 on cos, 3 on PPL ratio)",
            choices=("paper", "code"),
        ),
        "similarity_threshold": Param(
            0.8, "§6: a success needs sentence-encoder cosine > 0.8 (USE in the paper)", low=-1, high=1
        ),
        "sentence_encoder": Param(None, "sentence-encoder slot (USE online, all-MiniLM-L6-v2 offline)"),
        "causal_lm": Param(None, "causal-LM slot for perplexity (gpt2 online, gemma offline)"),
        "seed": Param(0, "pool shuffle seed", low=0),
        "kappa_dataset": Param(
            None,
            "when κ is computed here: the model's training data ('mr' or a CSV with text,label); None = the data set "
            "the model's folder records (the demo victims: mr)",
        ),
        "kappa_examples": Param(1000, "when κ is computed here: training sentences (paper: 1,000)", low=1),
        "kappa_m": Param(512, "when κ is computed here: EUBA early stop m (paper default 512)", low=1),
        "label_rule": Param(
            DEFAULT_LABEL_RULE,
            "which successes keep the label (docs/design/single-word.md): 'lean-synonyms-lexicon' (no negator in or "
            "out, "
            "the words' label lean, alone and pooled with their synonyms, moves <= label_max_shift nats, and no "
            "word of the VADER sentiment lexicon in or out), 'lean-synonyms' (without the lexicon), 'lean' (the "
            "words alone) or 'paper' (cosine > 0.8 only)",
            choices=tuple(LABEL_RULES),
        ),
        "label_max_shift": Param(
            LABEL_MAX_SHIFT,
            "label rules 'lean*': largest shift of the words' lean, nats (Eq. 6's margin is 1; 0.5 kept the label "
            "for blind readers in 6 of 6 picks on fresh MR training rows against 8 of 9 at 1 nat: "
            "docs/design/single-word.md)",
            low=0.0,
        ),
        "label_data": Param(
            None,
            "label rules 'lean*': the victim's training data ('mr' or a CSV with text,label); None = the data κ was "
            "computed on (recorded in the κ file), else the data set the model's folder records",
        ),
        "label_prior": Param(
            LABEL_PRIOR,
            "label rules 'lean*': the lean's prior in pseudo-occurrences, so that a word seen once in the data leans "
            "(1: once is 1.1 nats on two balanced labels); None = Eq. 6's add-one smoothing of words seen twice",
            low=0.0,
            none_ok=True,
        ),
        "label_probe_max_drop": Param(
            LABEL_PROBE_MAX_DROP,
            "label rules 'lean*': a success's largest fall of a label probe's log P(label), nats (logistic regression "
            "on sentence-encoder vectors of label_data, fitted once and cached); None = no probe",
            low=0.0,
            none_ok=True,
        ),
        "task": Param(
            None,
            "'sentiment': the sentiment lexicon of 'lean-synonyms-lexicon' applies; any other name: it is left out; "
            "None = a sentiment task when the model's label names hold a negative and a positive one",
        ),
        "fluency_rule": Param(
            DEFAULT_FLUENCY_RULE,
            "which successes read as a sentence: 'natural' (the κ word replaces a word of fluency_slots and keeps its "
            "part of speech, in context, and the causal LM loses <= fluency_lm_budget nats), 'pos' (the part of "
            "speech only) or 'paper' (no check, the paper's pool)",
            choices=tuple(FLUENCY_RULES),
        ),
        "fluency_slots": Param(
            DEFAULT_FLUENCY_SLOTS,
            "fluency rules 'natural' and 'pos': which words the κ word may replace: 'modifiers' (adjectives and "
            "adverbs) or 'content' (nouns and verbs too)",
            choices=tuple(FLUENCY_SLOTS),
        ),
        "fluency_lm_budget": Param(
            FLUENCY_LM_BUDGET,
            "fluency rule 'natural': nats of causal-LM log-likelihood the swap may cost",
            low=0.0,
        ),
        "device": Param(None, "device for the encoder / language model"),
    }

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # §2 (docs/design/single-word.md): the flip capability κ(w) of a word is the share of
            # training sentences it misclassifies by replacing one word; EUBA computes it (or a
            # saved κ is read).
            #
            kappa = p["kappa"]
            if kappa is None:
                dataset = cls.kappa_data(model_wrapper, p["kappa_dataset"])
                kappa = cls.kappa_from_data(model_wrapper, dataset, p["kappa_examples"], p["kappa_m"])
            else:  # a saved κ or a result: another model's is said (a transfer attack), ownership.py
                kappa = load_kappa(kappa, model_wrapper)
            #
            # docs/design/single-word.md: a candidate the label rule refuses (a negator put in or taken out, a swap that
            # moves the words towards a label in the victim's training data) is not an adversarial example; the
            # rule's constraints remove it from the pool before the victim sees it.
            #
            rule = cls.label_rule(p, kappa, model_wrapper)
            #
            # Not in the paper (docs/design/single-word.md): a success reads as a sentence. The κ word keeps the part
            # of speech of the word it replaces, in context (TextFooler's and A2T's constraint), checked after the
            # label rule's look-ups and before the victim; the causal LM's budget judges the misclassified
            # candidates only, before they count towards k.
            #
            fluency = build_fluency_rule(
                p["fluency_rule"],
                lm_budget=p["fluency_lm_budget"],
                causal_lm=p["causal_lm"],
                device=p["device"],
                slots=p["fluency_slots"],
            )
            #
            # §4: "Take the top M = 50 words by κ": the pool is every sentence with exactly one of its
            # l words replaced by one of them (l × M single-word perturbations). With pool='admissible' the M
            # words are the top of κ among those the rules could keep (docs/design/single-word.md): a word they
            # refuse in every slot (on a transformer, most of the top of κ: opinion words) adds nothing to the pool.
            #
            pool = SPAttackPool(kappa, p["top_m"], p["pool"], (rule, fluency))
            transformation = WordSwapWordList(pool.words, allow_empty=True)
            #
            # Untargeted: a success is a misclassified candidate.
            #
            goal_function = UntargetedClassification(model_wrapper)
            #
            # §4: the pool is shuffled (seeded) and queried in batches until k = 50 misclassified
            # candidates are found; among those with sentence-encoder cosine > 0.8 (§6.1) the output
            # maximises α · cos(H(x'), H(x)) - β · PPL(x') / PPL(x), α = 3, β = 20 (Eq. 4; the
            # authors' code: 20 and 3, weighting="code").
            #
            search_method = SPAttackSearch(
                max_successes=p["max_successes"],
                query_batch_size=p["query_batch_size"],
                weighting=p["weighting"],
                similarity_threshold=p["similarity_threshold"],
                sentence_encoder=p["sentence_encoder"],
                causal_lm=p["causal_lm"],
                seed=p["seed"],
                device=p["device"],
                fluency_rule=fluency,
                label_rule=rule,
            )
        return GuardedAttack(
            goal_function,
            rule.constraints + fluency.constraints,
            transformation,
            search_method,
            recipe=cls.name,
            summary_metrics=label_rule_metrics(rule, fluency, pool),
        )

    @classmethod
    def label_rule(cls, p, kappa, model_wrapper):
        """The run's :class:`~..constraints.label_rules.LabelRule`. ``'lean*'`` read the words' label lean from the
        victim's training data: ``label_data``, else the data κ was computed on (the κ file records it), else the data
        set the model's folder records; none of them: one line saying what to pass. The sentiment lexicon applies on
        a sentiment task (``task``, else the model's label names)."""
        if p["label_rule"] == "paper":
            return label_rule_for_data("paper")
        data, origin = p["label_data"], "label_data"
        if data is None:
            data, origin = kappa.data_source(), "the data κ was computed on"
        if data is None:
            data, origin = recorded_training_data(model_wrapper), "the data the model's folder records"
        if data is None:
            raise RecipeParameterError(
                f"recipe '{cls.name}': label_rule={p['label_rule']!r} reads each word's label lean in the victim's "
                "training data, and neither the κ file nor the model says which: pass label_data=YOUR_TRAIN.csv "
                "(columns text,label), or label_rule='paper'"
            )
        outputs = probe_model(model_wrapper)
        names = model_label_names(model_wrapper, outputs)
        sentiment = p["task"] == "sentiment" if p["task"] is not None else is_sentiment_task(names)
        try:
            return label_rule_for_data(
                p["label_rule"],
                data,
                p["label_max_shift"],
                prior=p["label_prior"],
                lexicon=sentiment,
                origin=origin,
                num_classes=outputs,
                label_names=names,
                probe_max_drop=p["label_probe_max_drop"],
                sentence_encoder=p["sentence_encoder"],
                device=p["device"],
            )
        except ValueError as e:
            raise RecipeParameterError(f"recipe '{cls.name}': label_data={data!r}: {e}") from None

    @classmethod
    def kappa_data(cls, model_wrapper, dataset):
        """The data κ is computed on here: ``kappa_dataset``, else the data set the model's folder records (the demo
        victims: ``mr``); neither: one line saying what to pass (never a data set the user did not name)."""
        dataset = dataset if dataset is not None else recorded_training_data(model_wrapper)
        if dataset is None:
            raise RecipeParameterError(
                f"recipe '{cls.name}' needs the flip capability κ of the victim's words: pass kappa=KAPPA.json (from "
                "`textattack-so flip-capability --model MODEL --dataset YOUR_TRAIN.csv --out KAPPA.json`) or "
                "kappa_dataset=YOUR_TRAIN.csv (columns text,label)"
            )
        return dataset

    @classmethod
    def kappa_from_data(cls, model_wrapper, dataset, limit, m):
        """κ by EUBA on the first ``limit`` training rows of ``dataset``, cached under a content key
        (docs/design/single-word.md).

        Labels may be class numbers or the model's label names (:func:`~..shared.inputs.label_reason`);
        refuses data whose labels the model cannot have (:class:`RecipeParameterError`, one line).
        """
        outputs = probe_model(model_wrapper)
        try:
            check_kappa_labels(outputs, dataset)  # a known dataset is refused before it is loaded
            examples = load_examples(dataset, "train", limit=limit)
            if any(y is None for _, y in examples):
                raise KappaDataError(f"κ data '{dataset}' has no labels; pass a CSV with text,label columns")
            names = model_label_names(model_wrapper, outputs)
            examples = [(t, _class_number(y, outputs, names, dataset)) for t, y in examples]
            kappa, _, _ = cached_flip_capability(
                model_wrapper, examples, m=m, num_outputs=outputs, data_name=f"{dataset}:train[:{limit}]"
            )
            kappa.settings.setdefault("dataset", dataset)
        except KappaDataError as e:
            raise RecipeParameterError(f"recipe '{cls.name}': {e}") from None
        return kappa


def _class_number(label, num_classes, names, dataset):
    """A κ data label as a class number: one of the model's label names becomes its number; a name the model
    does not have is a ``KappaDataError``; a number is left to ``check_kappa_labels``, which lists them all."""
    value, reason = label_reason(label, num_classes, names)
    if reason is None:
        return value
    if isinstance(label, str):
        raise KappaDataError(f"κ data '{dataset}': {reason}")
    return label
