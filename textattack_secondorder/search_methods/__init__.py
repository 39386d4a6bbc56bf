"""Search methods of textattack-secondorder."""

from .second_order import RandomNeighborhoodWalk, SecondOrderBeamSearch, SecondOrderEnumeration

__all__ = ["SecondOrderBeamSearch", "SecondOrderEnumeration", "RandomNeighborhoodWalk"]
