"""SO-Enum (Zhang et al. 2021; docs/methods.md §1.4): enumerate the neighbourhood, closest first.

textattack attack --recipe "so-enum^..." --model-from-file recipes/models/mr_cnn.py ...
"""

from ..search_methods.second_order import SecondOrderEnumeration
from .second_order import COMMON_PARAMS, SecondOrderRecipe


class SOEnum(SecondOrderRecipe):
    """SO-Enum: enumerate Neighbor_k(x0), closest first; returns a closest vulnerable example."""

    name = "so-enum"
    PARAMS = dict(
        COMMON_PARAMS,
        max_distance=(2, "enumerate Neighbor_k for k <= 2 (paper: small neighbourhood, k = 2)"),
        eval_batch_size=(256, "candidates per goal-function call (early stop between batches)"),
        query_budget=(100_000, "model queries per example (reference code: 100,000); enumeration is exponential"),
    )

    @classmethod
    def _search(cls, p):
        return SecondOrderEnumeration(max_distance=p["max_distance"], eval_batch_size=p["eval_batch_size"])
