"""Constraints of textattack-secondorder, one per file (as in ``textattack.constraints``).

The last four judge a one-word swap in its sentence; the patch rules of the second-order recipes are
built from them (:mod:`textattack_secondorder.goal_functions.patch_rules`), and any TextAttack attack
can use them as they are.
"""

from .chrf import MinimumChrF
from .masked_lm_fit import MaskedLMFit
from .patch_part_of_speech import PatchPartOfSpeech
from .patch_word_modification import PatchWordModification
from .patch_words_unique import PatchWordsUnique
from .pseudo_log_likelihood_drop import PseudoLogLikelihoodDrop
from .wordnet_synonym import WordNetSynonym

__all__ = [
    "MaskedLMFit",
    "MinimumChrF",
    "PatchPartOfSpeech",
    "PatchWordModification",
    "PatchWordsUnique",
    "PseudoLogLikelihoodDrop",
    "WordNetSynonym",
]
