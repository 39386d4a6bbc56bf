"""Goal functions of textattack-secondorder."""

from .patch_words import PatchPair, PatchWordSelector, apply_patch
from .second_order import (
    PatchWordModification,
    PatchWordsUnique,
    SecondOrderClassification,
    SecondOrderGoalFunctionResult,
    beam_loss,
)

__all__ = [
    "PatchPair",
    "PatchWordSelector",
    "apply_patch",
    "beam_loss",
    "PatchWordModification",
    "PatchWordsUnique",
    "SecondOrderClassification",
    "SecondOrderGoalFunctionResult",
]
