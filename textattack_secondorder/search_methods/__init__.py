"""Search methods of textattack-secondorder, one per file (as in ``textattack.search_methods``)."""

from .neighborhood_search import NeighborhoodSearch
from .random_neighborhood_walk import RandomNeighborhoodWalk
from .second_order_beam_search import SecondOrderBeamSearch
from .second_order_enumeration import SecondOrderEnumeration
from .sp_attack import SPAttackSearch

__all__ = [
    "NeighborhoodSearch",
    "SecondOrderBeamSearch",
    "SecondOrderEnumeration",
    "RandomNeighborhoodWalk",
    "SPAttackSearch",
]
