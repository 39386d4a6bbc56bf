"""
SO-Enum: the closest vulnerable example by enumeration (double perturbation)
============================================================================

Zhang, C., Zhao, J., Zhang, H., Chang, K.-W., Hsieh, C.-J. (2021). "Double Perturbation: On the
Robustness of Robustness and Counterfactual Bias Evaluation." NAACL 2021, §3.2 ("brute-force
attack"). https://arxiv.org/abs/2104.05232 (docs/design/search.md)

    textattack attack --recipe "so-enum^max_distance=2" --model-from-file recipes/models/mr_cnn.py ...
"""

from ..search_methods import SecondOrderEnumeration
from ..transformations.neighborhood import WordSwapNeighborhood
from .param import Param
from .recipe import SORecipe
from .second_order import COMMON_PARAMS, double_perturbation_goal, second_order_attack


class SOEnum(SORecipe):
    """SO-Enum: enumerate Neighbor_k(x0), closest first; returns a closest vulnerable example."""

    name = "so-enum"
    PARAMS = dict(
        COMMON_PARAMS,
        max_distance=Param(2, "enumerate Neighbor_k for k <= 2 (paper: small neighbourhood, k = 2)", low=1),
        eval_batch_size=Param(256, "candidates per goal-function call (early stop between batches)", low=1),
        query_budget=Param(
            100_000, "model queries per example (reference code: 100,000); enumeration is exponential", low=1
        ),
    )

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # Algorithm 1: the natural neighbourhood, κ = 20, δ = 3 (as for SO-Beam).
            #
            transformation = WordSwapNeighborhood(
                p["masked_lm"], kappa=p["kappa"], delta=p["delta"], device=p["device"], dtype=p["masked_lm_dtype"]
            )
            #
            # Goal (paper §3, Eq. 2-3): find x near x0 with f(x ⊕ p) != f(x) for the patch pair p of
            # x0, a swap the patch rule keeps in its sentence; the patch position is never modified (goal
            # function + its two constraints).
            #
            goal_function, constraints = double_perturbation_goal(model_wrapper, p, transformation.proposer)
            #
            # §3.2, brute force: enumerate Neighbor_k(x0) level by level, every sentence at distance 1
            # before any at distance 2, and stop at the first vulnerable one (a closest one);
            # k = 2 (§3.3.1, small neighbourhood), guarded by a 100,000-query budget (authors' code).
            #
            search_method = SecondOrderEnumeration(
                max_distance=p["max_distance"], eval_batch_size=p["eval_batch_size"], prefetch=transformation.prefetch
            )
            #
            # Summary rows of a second-order run (docs/design/search.md): victim accuracy, perplexity.
            #
            return second_order_attack(cls.name, p, goal_function, constraints, transformation, search_method)
