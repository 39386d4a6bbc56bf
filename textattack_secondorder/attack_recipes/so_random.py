"""
SO-Random: the random baseline of the double-perturbation paper
===============================================================

Zhang, C., Zhao, J., Zhang, H., Chang, K.-W., Hsieh, C.-J. (2021). "Double Perturbation: On the
Robustness of Robustness and Counterfactual Bias Evaluation." NAACL 2021, appendix A.1.
https://arxiv.org/abs/2104.05232 (docs/design/search.md)

    textattack attack --recipe "so-random^seed=1" --model-from-file recipes/models/mr_cnn.py ...
"""

from ..search_methods import RandomNeighborhoodWalk
from ..transformations.neighborhood import WordSwapNeighborhood
from .param import Param
from .recipe import SORecipe
from .second_order import COMMON_PARAMS, double_perturbation_goal, search_depth, second_order_attack


class SORandom(SORecipe):
    """Random baseline (paper A.1): random walk of up to 6 substitutions in the same neighbourhood."""

    name = "so-random"
    PARAMS = dict(
        COMMON_PARAMS,
        max_depth=Param(6, "A.1: randomly replacing up to 6 words", low=1),
        seed=Param(0, "random seed of the walk", low=0),
        query_budget=Param(50_000, "model queries per example", low=1),
    )

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # The same neighbourhood as SO-Beam (Algorithm 1, κ = 20, δ = 3).
            #
            transformation = WordSwapNeighborhood(
                p["masked_lm"], kappa=p["kappa"], delta=p["delta"], device=p["device"], dtype=p["masked_lm_dtype"]
            )
            #
            # Goal (paper §3, Eq. 2): the same as SO-Beam's (goal function + its two constraints).
            #
            goal_function, constraints = double_perturbation_goal(model_wrapper, p, transformation.proposer)
            #
            # A.1: "randomly replacing up to 6 words": each step moves to one neighbour drawn uniformly
            # at random (seeded) and continues from it. The paper reports 15-25 % success against
            # 77-96 % for SO-Beam: the loss of Eq. 4 is what makes SO-Beam work.
            #
            search_method = RandomNeighborhoodWalk(
                max_depth=search_depth(p, goal_function.neighbor_rule), seed=p["seed"], prefetch=transformation.prefetch
            )
            #
            # Summary rows of a second-order run (docs/design/search.md): victim accuracy, perplexity.
            #
            return second_order_attack(cls.name, p, goal_function, constraints, transformation, search_method)
