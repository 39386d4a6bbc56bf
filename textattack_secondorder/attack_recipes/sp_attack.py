"""
SP-Attack: single-word perturbation attack (Xu et al., "Single Word Change is All You Need")
===========================================================================================

Xu et al., "Single Word Change is All You Need: Designing Attacks and Defenses for Text
Classifiers", §4 (docs/methods.md §2.3).

Change exactly one word of the sentence, into one of the top-M words by flip
capability κ (computed by EUBA, ``textattack-so flip-capability``), choosing among
the misclassified candidates by similarity and fluency.

    textattack-so flip-capability --model mr-cnn --dataset mr --split train --num-examples 1000 \\
        --out results/kappa_mr-cnn.json
    textattack attack --recipe "sp-attack^kappa='results/kappa_mr-cnn.json'" \\
        --model-from-file recipes/models/mr_cnn.py ...

Without ``kappa`` the recipe computes κ first with EUBA on ``kappa_examples``
training sentences of ``kappa_dataset`` (the model's own training data: MR by default,
refused for a model without 2 outputs) and caches it under a content key
(``evaluation/flip_capability/cache.py``); later runs with the same model and data reuse it.

A success counts only when the swap keeps the sentence's label (``label_rule``, docs/methods.md §2.5): by
default (``'lean-synonyms-lexicon'``) a candidate that puts in or takes out a negator, that moves the sentence's
words more than ``label_max_shift`` nats towards some label in the victim's training sentences (``label_data``,
default ``kappa_dataset``'s training split), each word read alone and pooled with its counter-fitted synonyms, or
that puts in or takes out a word of a sentiment lexicon (VADER, |valence| >= 1; specific to sentiment) is never
sent to the victim; ``label_rule='lean-synonyms'`` leaves out the lexicon, ``label_rule='lean'`` also the synonyms,
``label_rule='paper'`` is the paper's rule (cosine > 0.8 only). The summary table names the rule.
"""

from textattack.goal_functions import UntargetedClassification

from ..constraints.label_lean import LEAN_MARGIN
from ..constraints.label_rules import DEFAULT_LABEL_RULE, LABEL_RULES, label_rule_for_data
from ..datasets.examples import load_examples
from ..evaluation.flip_capability import FlipCapabilityResult
from ..evaluation.flip_capability.cache import KappaDataError, cached_flip_capability, check_kappa_labels
from ..metrics.label_rule import label_rule_metrics
from ..models.probe import model_label_names, probe_model
from ..search_methods import SPAttackSearch
from ..shared.inputs import label_reason
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
        "kappa_dataset": Param("mr", "when κ is computed here: dataset ('mr' or a CSV with text,label)"),
        "kappa_examples": Param(1000, "when κ is computed here: training sentences (paper: 1,000)", low=1),
        "kappa_m": Param(512, "when κ is computed here: EUBA early stop m (paper default 512)", low=1),
        "label_rule": Param(
            DEFAULT_LABEL_RULE,
            "which successes keep the label (docs/methods.md §2.5): 'lean-synonyms-lexicon' (no negator in or out, "
            "the words' label lean, alone and pooled with their synonyms, moves <= label_max_shift nats, and no "
            "word of the VADER sentiment lexicon in or out), 'lean-synonyms' (without the lexicon), 'lean' (the "
            "words alone) or 'paper' (cosine > 0.8 only)",
            choices=tuple(LABEL_RULES),
        ),
        "label_max_shift": Param(
            LEAN_MARGIN,
            "label rules 'lean*': largest shift of the words' lean, nats (Eq. 6's margin: 1)",
            low=0.0,
        ),
        "label_data": Param(
            None,
            "label rules 'lean*': the victim's training data ('mr' or a CSV with text,label; None = kappa_dataset)",
        ),
        "device": Param(None, "device for the encoder / language model"),
    }

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # §2 (docs/methods.md §2.1-2.2): the flip capability κ(w) of a word is the share of
            # training sentences it misclassifies by replacing one word; EUBA computes it (or a
            # saved κ is read).
            #
            kappa = p["kappa"]
            if kappa is None:
                kappa = cls.kappa_from_data(model_wrapper, p["kappa_dataset"], p["kappa_examples"], p["kappa_m"])
            elif not isinstance(kappa, FlipCapabilityResult):
                kappa = FlipCapabilityResult.load(kappa)
            #
            # §4: "Take the top M = 50 words by κ": the pool is every sentence with exactly one of its
            # l words replaced by one of them (l × M single-word perturbations).
            #
            transformation = WordSwapWordList(kappa.top_words(p["top_m"]))
            #
            # Untargeted: a success is a misclassified candidate.
            #
            goal_function = UntargetedClassification(model_wrapper)
            #
            # docs/methods.md §2.5: a candidate the label rule refuses (a negator put in or taken out, a swap that
            # moves the words towards a label in the victim's training data) is not an adversarial example; the
            # rule's constraints remove it from the pool before the victim sees it.
            #
            rule = cls.label_rule(p)
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
            )
        return GuardedAttack(
            goal_function,
            rule.constraints,
            transformation,
            search_method,
            recipe=cls.name,
            summary_metrics=label_rule_metrics(rule),
        )

    @classmethod
    def label_rule(cls, p):
        """The run's :class:`~..constraints.label_rules.LabelRule`; ``'lean*'`` read the words' label lean from
        ``label_data`` (default: ``kappa_dataset``) training sentences (docs/methods.md §2.5)."""
        data = p["label_data"] if p["label_data"] is not None else p["kappa_dataset"]
        try:
            return label_rule_for_data(p["label_rule"], data, p["label_max_shift"])
        except ValueError as e:
            raise RecipeParameterError(f"recipe '{cls.name}': label_data={data!r}: {e}") from None

    @classmethod
    def kappa_from_data(cls, model_wrapper, dataset, limit, m):
        """κ by EUBA on the first ``limit`` training rows of ``dataset``, cached under a content key (§2.3).

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
