"""Constraints of textattack-secondorder, one per file (as in ``textattack.constraints``).

Four of them judge a one-word swap in its sentence (part of speech, WordNet sense, causal-LM and
masked-LM likelihood); the patch rules of the second-order recipes are
built from them (:mod:`textattack_secondorder.goal_functions.patch_rules`), and any TextAttack attack
can use them as they are. Two judge a neighbour against the sentence it came from (part of speech kept,
the causal LM's budget per changed word): the neighbour rules are built from them
(:mod:`textattack_secondorder.goal_functions.neighbor_rules`).
"""

from .causal_lm_fit import CausalLMFit
from .chrf import MinimumChrF
from .lexical_link import LexicalLink
from .neighbor_fluency import NeighborFluency
from .neighbor_part_of_speech import NeighborPartOfSpeech
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
    "NeighborFluency",
    "NeighborPartOfSpeech",
    "PatchJudge",
    "PatchPartOfSpeech",
    "PatchWordModification",
    "PatchWordsUnique",
    "PseudoLogLikelihoodDrop",
    "WordNetSynonym",
]
