"""Constraints of textattack-secondorder, one per file (as in ``textattack.constraints``).

Four of them judge a one-word swap in its sentence (part of speech, WordNet sense, causal-LM and
masked-LM likelihood); the patch rules of the second-order recipes are
built from them (:mod:`textattack_secondorder.goal_functions.patch_rules`), and any TextAttack attack
can use them as they are.
"""

from .causal_lm_fit import CausalLMFit
from .chrf import MinimumChrF
from .lexical_link import LexicalLink
from .patch_judge import PatchJudge
from .patch_part_of_speech import PatchPartOfSpeech
from .patch_word_modification import PatchWordModification
from .patch_words_unique import PatchWordsUnique
from .pseudo_log_likelihood_drop import PseudoLogLikelihoodDrop
from .wordnet_synonym import WordNetSynonym

__all__ = [
    "CausalLMFit",
    "LexicalLink",
    "MinimumChrF",
    "PatchJudge",
    "PatchPartOfSpeech",
    "PatchWordModification",
    "PatchWordsUnique",
    "PseudoLogLikelihoodDrop",
    "WordNetSynonym",
]
