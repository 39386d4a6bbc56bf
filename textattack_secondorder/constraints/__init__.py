"""Constraints of textattack-secondorder, one per file (as in ``textattack.constraints``)."""

from .chrf import MinimumChrF
from .patch_word_modification import PatchWordModification
from .patch_words_unique import PatchWordsUnique

__all__ = ["MinimumChrF", "PatchWordModification", "PatchWordsUnique"]
