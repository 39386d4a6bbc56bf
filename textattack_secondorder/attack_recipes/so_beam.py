"""SO-Beam (Zhang et al. 2021, Algorithm 2; docs/methods.md §1.4): beam search over the natural neighbourhood.

textattack attack --recipe "so-beam^..." --model-from-file recipes/models/mr_cnn.py ...
"""

from ..search_methods.second_order import SecondOrderBeamSearch
from .second_order import COMMON_PARAMS, SecondOrderRecipe


class SOBeam(SecondOrderRecipe):
    """SO-Beam (paper Algorithm 2): beam search over the neighbourhood minimising Eq. 4."""

    name = "so-beam"
    PARAMS = dict(
        COMMON_PARAMS,
        beam_width=(20, "Algorithm 2: beam size beta = 20"),
        max_depth=(6, "Algorithm 2: at most k = 6 substitutions"),
        expand_chunk=(
            1,
            "beam members expanded per batch, best first, stopping at the first chunk with a vulnerable "
            "example (same neighbourhood, success and distance; 0 = whole beam, Algorithm 2's "
            "best-of-step choice; docs/methods.md §9)",
        ),
        query_budget=(50_000, "model queries per example, x and x ⊕ p counted separately (reference code: 50,000)"),
    )

    @classmethod
    def _search(cls, p):
        return SecondOrderBeamSearch(
            beam_width=p["beam_width"], max_depth=p["max_depth"], expand_chunk=p["expand_chunk"]
        )
