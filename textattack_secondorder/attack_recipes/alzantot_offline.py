"""
Alzantot genetic attack, with this package's synonyms slot
==========================================================

Alzantot, M., Sharma, Y., Elgohary, A., Ho, B.-J., Srivastava, M., Chang, K.-W. (2018).
"Generating Natural Language Adversarial Examples." EMNLP 2018. https://arxiv.org/abs/1804.07998

As TextAttack's ``alzantot`` recipe builds it, with the synonyms slot in place of the
counter-fitted embedding (docs/design/offline-resources.md).
"""

from textattack.constraints.overlap import MaxWordsPerturbed
from textattack.constraints.pre_transformation import (
    InputColumnModification,
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import AlzantotGeneticAlgorithm

from ..resources import load_synonyms
from ..transformations.word_swap_synonym_list import WordSwapSynonymList
from .input_guard import GuardedAttack
from .param import Param
from .recipe import SORecipe


class AlzantotOffline(SORecipe):
    """Alzantot et al. (2018) genetic attack as TextAttack builds it, with the synonyms slot.

    Replaced offline: the 8 nearest counter-fitted neighbours + ``WordEmbeddingDistance``
    become the synonyms slot's list (already a thresholded neighbour list); the Google
    1-billion-words LM filter has no offline model and is dropped.
    """

    name = "alzantot-offline"
    PARAMS = {
        "synonyms": Param(None, "synonyms slot (Alzantot: 8 nearest counter-fitted neighbours)"),
        "max_candidates": Param(8, "Alzantot: N = 8 nearest neighbours", low=1),
        "max_percent": Param(0.2, "Alzantot: at most 20 % of words perturbed", low=0, high=1),
        "pop_size": Param(60, "Alzantot: population 60", low=1),
        "max_iters": Param(20, "Alzantot: 20 generations", low=1),
    }

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # Swap words with their embedding nearest-neighbors (counter-fitted Paragram embeddings):
            # "[We] fix the hyperparameter values to S = 60, N = 8, K = 4, and δ = 0.5" -> the
            # synonyms slot's list, already thresholded, so no WordEmbeddingDistance(0.5) here.
            #
            transformation = WordSwapSynonymList(load_synonyms(p["synonyms"]), max_candidates=p["max_candidates"])
            #
            # Don't modify the same word twice or stopwords.
            #
            constraints = [RepeatModification(), StopwordModification()]
            #
            # During entailment, only edit the hypothesis.
            #
            constraints.append(InputColumnModification(["premise", "hypothesis"], {"premise"}))
            #
            # Maximum words perturbed percentage of 20% (TextAttack's recipe).
            # The Google 1-billion-words LM filter (K = 4) has no offline model and is dropped.
            #
            constraints.append(MaxWordsPerturbed(max_percent=p["max_percent"]))
            #
            # Goal is untargeted classification.
            #
            goal_function = UntargetedClassification(model_wrapper)
            #
            # Perform word substitution with a genetic algorithm: population S = 60, 20 generations.
            #
            search_method = AlzantotGeneticAlgorithm(
                pop_size=p["pop_size"], max_iters=p["max_iters"], post_crossover_check=False
            )
        return GuardedAttack(goal_function, constraints, transformation, search_method, recipe=cls.name)
