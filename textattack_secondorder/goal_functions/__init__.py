"""Goal functions of textattack-secondorder and the patch words of the double-perturbation goal."""

from .patch_words import PatchPair, PatchWordSelector, apply_patch
from .second_order import SecondOrderClassification, SecondOrderGoalFunctionResult, beam_loss

__all__ = [
    "PatchPair",
    "PatchWordSelector",
    "apply_patch",
    "beam_loss",
    "SecondOrderClassification",
    "SecondOrderGoalFunctionResult",
]
