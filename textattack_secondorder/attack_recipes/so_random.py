"""Random baseline of the double-perturbation paper (Zhang et al. 2021, A.1; docs/methods.md §1.4).

textattack attack --recipe "so-random^..." --model-from-file recipes/models/mr_cnn.py ...
"""

from ..search_methods.second_order import RandomNeighborhoodWalk
from .second_order import COMMON_PARAMS, SecondOrderRecipe


class SORandom(SecondOrderRecipe):
    """Random baseline (paper A.1): random walk of up to 6 substitutions in the same neighbourhood."""

    name = "so-random"
    PARAMS = dict(
        COMMON_PARAMS,
        max_depth=(6, "A.1: randomly replacing up to 6 words"),
        seed=(0, "random seed of the walk"),
        query_budget=(50_000, "model queries per example"),
    )

    @classmethod
    def _search(cls, p):
        return RandomNeighborhoodWalk(max_depth=p["max_depth"], seed=p["seed"])
