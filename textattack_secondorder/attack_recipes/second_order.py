"""
Double perturbation: SO-Beam, SO-Enum and the random baseline
=============================================================

Zhang, C., Zhao, J., Zhang, H., Chang, K.-W., Hsieh, C.-J. (2021).
"Double Perturbation: On the Robustness of Robustness and Counterfactual Bias
Evaluation." NAACL 2021. https://arxiv.org/abs/2104.05232

A model can be robust on a test sentence ``x0`` (the synonym swap ``p`` does not
change its prediction) and fragile on a natural sentence ``x̃0`` a word or two
away. These recipes search the masked-LM neighbourhood of ``x0`` for a
*vulnerable example*: ``f(x̃0 ⊕ p) != f(x̃0)``.

    textattack attack --recipe so-beam --model-from-file recipes/models/mr_cnn.py \\
        --dataset-from-file "recipes/datasets/mr.py^dataset" --num-examples 50
    textattack attack --recipe "so-beam^beam_width=10,max_depth=4" ...

From Python: ``SOBeam.build(model_wrapper, beam_width=10)`` with ``textattack.Attacker``.

Each recipe's ``build`` is in its own file (``so_beam.py``, ``so_enum.py``, ``so_random.py``);
this module holds what the three share: their common parameters, the goal function with its two
constraints (:func:`double_perturbation_goal`) and the attack class.
"""

from ..constraints import PatchWordModification, PatchWordsUnique
from ..goal_functions.neighbor_rules import (
    DEFAULT_NEIGHBOR_RULE,
    NEIGHBOR_LM_BUDGET,
    NEIGHBOR_LM_MAX_SCORED,
    NEIGHBOR_MAX_WORDS,
    NEIGHBOR_PICK_AMONG,
    NEIGHBOR_RULES,
    build_neighbor_rule,
)
from ..goal_functions.patch_rules import (
    CAUSAL_LM_MAX_DROP,
    DEFAULT_PATCH_RULE,
    JUDGE_SURE,
    PATCH_RULES,
    PatchRule,
    build_patch_rule,
)
from ..goal_functions.second_order import SecondOrderClassification
from ..metrics.second_order import second_order_summary_metrics
from ..resources import load_synonyms
from ..transformations.neighborhood import DELTA, KAPPA
from .input_guard import GuardedAttack
from .param import MASKED_LM_DTYPE, Param


class SecondOrderAttack(GuardedAttack):
    """A guarded attack whose transformation (``WordSwapNeighborhood``) keeps a per-example cache
    of masked-LM proposals: it is cleared with TextAttack's caches after every example."""

    def clear_cache(self, recursive=True):
        super().clear_cache(recursive)
        if hasattr(self.transformation, "clear_cache"):
            self.transformation.clear_cache()


def _rules(rules):
    """The help text of a rule parameter's choices, from the rules' own table (one home for the names)."""
    return "; ".join(f"'{name}': {text}" for name, text in rules.items())


# Parameters shared by the three recipes (defaults: paper §3 / Algorithm 1).
COMMON_PARAMS = {
    "synonyms": Param(
        None,
        "word->synonyms JSON for patch words; None = synonyms slot (counter-fitted online, "
        "the packaged copy of that list offline). Paper: counter-fitted synonyms (Jia et al. 2019)",
    ),
    "masked_lm": Param(
        None,
        "masked-LM slot: HF model name/path, 'gemma', 'minilm-mlm' or a WordProposer; "
        "None = slot default. Paper: distilbert-base-uncased",
    ),
    "patch_rule": Param(
        DEFAULT_PATCH_RULE,
        f"which swaps may be patch pairs (or a PatchRule object from Python): {_rules(PATCH_RULES)}; "
        "docs/design/patch-rules.md",
        choices=tuple(PATCH_RULES),
        objects_ok=True,
    ),
    "patch_judge_threshold": Param(
        None,
        "judge rule: the least probability, 0 to 1, that people accept the swap in its sentence; None = the "
        "judge file's default (chosen on SWORDS: docs/design/patch-rules.md); higher keeps fewer, surer pairs",
        low=0,
        high=1,
        none_ok=True,
    ),
    "patch_judge_sure": Param(
        JUDGE_SURE,
        "judge rule: the victim's candidate pairs are read on, its favourites first, until a kept pair reaches this "
        "probability on the judge file's readers' model (its 'prefer' block; else P(acceptable)); if none does, the "
        "surest kept pair is used; higher reads further and reports surer pairs, None takes the surest of the first "
        "chunk of 8 with a kept pair (docs/design/patch-rules.md)",
        low=0,
        high=1,
        none_ok=True,
    ),
    "patch_judge": Param(
        None,
        "judge rule: the judge's weights file (JSON written by scripts/fit_patch_judge.py); None = the packaged one",
    ),
    "patch_lm_drop": Param(
        CAUSAL_LM_MAX_DROP,
        "in-context rule: largest drop of the causal LM's log-likelihood log P(x ⊕ p) vs log P(x), in nats; "
        "larger keeps a pair in more sentences and fewer of those pairs keep the meaning, None drops the "
        "check (docs/design/patch-rules.md)",
        low=0,
        none_ok=True,
    ),
    "neighbor_rule": Param(
        DEFAULT_NEIGHBOR_RULE,
        f"which neighbours may be reported as x̃0 (and stand in so-beam's beam): {_rules(NEIGHBOR_RULES)}; "
        "docs/design/neighbours.md",
        choices=tuple(NEIGHBOR_RULES),
    ),
    "neighbor_lm_budget": Param(
        NEIGHBOR_LM_BUDGET,
        "natural rule: nats of causal-LM log P(x̃) each changed word may cost against x0, "
        "log P(x̃) >= log P(x0) - b * ||x̃ - x0||_0, checked on the vulnerable candidates before one is reported; "
        "None drops the check (docs/design/neighbours.md)",
        low=0,
        none_ok=True,
    ),
    "neighbor_max_words": Param(
        NEIGHBOR_MAX_WORDS,
        "natural rule: the most words x̃0 may change (the search goes no deeper); blind readers accepted 9 of 11 "
        "one-word x̃0, 12 of 34 two-word ones, none of 8 deeper ones (docs/design/neighbours.md); None = up to the "
        "search's own depth",
        low=1,
        none_ok=True,
    ),
    "neighbor_lm_total": Param(
        None,
        "natural rule: nats of causal-LM log P(x̃) the whole neighbour may cost against x0, however many words it "
        "changed (with neighbor_lm_budget: the smaller of the two); None = no sentence budget "
        "(docs/design/neighbours.md)",
        low=0,
        none_ok=True,
    ),
    "neighbor_similarity": Param(
        None,
        "natural rule: the least contextual similarity (sentence encoder, cosine) of every changed word to the word it "
        "replaced, checked on the vulnerable candidates before one is reported; None = no check "
        "(docs/design/neighbours.md)",
        low=-1,
        high=1,
        none_ok=True,
    ),
    "neighbor_pick_among": Param(
        NEIGHBOR_PICK_AMONG,
        "natural rule: of the vulnerable candidates of a search step the rule keeps, lowest loss first, compare this "
        "many and report the one whose changed words read most like the words they replaced (sentence encoder); 1 = "
        "the first kept; 4 raised the x̃0 blind readers accepted from 31 to 40 % at the same success "
        "(docs/design/neighbours.md)",
        low=1,
    ),
    "neighbor_lm_max_scored": Param(
        NEIGHBOR_LM_MAX_SCORED,
        "natural rule: vulnerable candidates the causal LM judges per attacked sentence, lowest loss first; later ones "
        "are refused unscored, so a sentence whose vulnerable neighbours are all broken costs a bounded time; None = "
        "no limit (docs/design/neighbours.md)",
        low=1,
        none_ok=True,
    ),
    "kappa": Param(KAPPA, "Algorithm 1: keep logits > max(L[kappa], L[0] - delta); paper kappa = 20", low=1),
    "delta": Param(DELTA, "Algorithm 1: paper delta = 3", low=0),
    "perplexity": Param(
        None,
        "median causal-LM perplexity of originals / vulnerable examples in the summary: True, "
        "False, or None = on when the causal LM is already cached here (no one-off load)",
        choices=(None, True, False),
    ),
    "causal_lm": Param(
        None,
        "causal-LM slot for perplexity, the in-context patch rule's fit and the natural neighbour rule's budget "
        "(None = gpt2 online, gemma offline)",
    ),
    "device": Param(None, "device of the word proposer (None = TextAttack's default device)"),
    "masked_lm_dtype": MASKED_LM_DTYPE,
}


def double_perturbation_goal(model_wrapper, p, masked_lm=None):
    """The goal function of paper §3 and the two constraints that keep its patch swap valid.

    ``p``: the recipe's settings (``synonyms``, ``patch_rule`` — a rule's name or a :class:`PatchRule` —,
    ``query_budget``); ``masked_lm``: the
    neighbourhood's word proposer, which the patch rule shares. Returns ``(goal_function, constraints)``.
    """
    #
    # §3.1: "a patch pair p = (p1, p2) is a synonym swap", from the counter-fitted synonym list of
    # Jia et al. (2019): among the swaps the patch rule keeps in x0 (docs/design/patch-rules.md), the pair
    # the model reacts to most. §3, Eq. 2: x is vulnerable when F(x; p) = f(x ⊕ p) - f(x) != 0;
    # candidates are ranked by the loss of Eq. 4. Every candidate costs two model outputs (x and
    # x ⊕ p): the query budget counts both.
    #
    rule = p["patch_rule"]
    if not isinstance(rule, PatchRule):  # a name: built with the recipe's models, shared with the neighbourhood
        rule = build_patch_rule(
            rule,
            masked_lm=masked_lm,
            causal_lm=p["causal_lm"],
            device=p["device"],
            lm_drop=p["patch_lm_drop"],
            judge_threshold=p["patch_judge_threshold"],
            judge_file=p["patch_judge"],
            judge_sure=p["patch_judge_sure"],
        )
    #
    # Not in the paper (docs/design/neighbours.md): a vulnerable candidate is reported only when the neighbour rule
    # keeps the sentence its substitutions make together; a refused one is not vulnerable and the search goes on.
    #
    goal_function = SecondOrderClassification(
        model_wrapper,
        load_synonyms(p["synonyms"]),
        query_budget=p["query_budget"],
        patch_rule=rule,
        neighbor_rule=neighbor_rule(p),
    )
    #
    # Algorithm 1: the position holding the patch word p1 is never modified, and no neighbour
    # brings p1 or p2 in elsewhere (x ⊕ p stays one swap).
    #
    constraints = [PatchWordModification(goal_function), PatchWordsUnique(goal_function)]
    return goal_function, constraints


def neighbor_rule(p):
    """The recipe's neighbour rule (docs/design/neighbours.md)."""
    return build_neighbor_rule(
        p["neighbor_rule"],
        lm_budget=p["neighbor_lm_budget"],
        causal_lm=p["causal_lm"],
        device=p["device"],
        lm_max_scored=p["neighbor_lm_max_scored"],
        lm_total=p["neighbor_lm_total"],
        min_similarity=p["neighbor_similarity"],
        pick_among=p["neighbor_pick_among"],
        max_words=p["neighbor_max_words"],
    )


def search_depth(p, rule):
    """How many substitutions the search stacks: the recipe's ``max_depth``, or fewer where the neighbour rule caps
    the words a neighbour may change (a deeper neighbour could never be reported)."""
    cap = rule.max_words if rule else None
    return p["max_depth"] if cap is None else min(p["max_depth"], cap)


def second_order_attack(recipe, p, goal_function, constraints, transformation, search_method):
    """The attack of a second-order recipe, with the summary rows of docs/design/search.md (victim accuracy,
    perplexity, the patch rule and the sentences it left without a pair)."""
    metrics = second_order_summary_metrics(
        p["perplexity"], p["causal_lm"], p["device"], patch_rule=goal_function.patch_rule.name
    )
    return SecondOrderAttack(
        goal_function, constraints, transformation, search_method, recipe=recipe, summary_metrics=metrics
    )
