"""Alzantot et al. (2018) genetic attack as TextAttack builds it, with this package's synonyms slot."""

from textattack import Attack
from textattack.constraints.overlap import MaxWordsPerturbed
from textattack.constraints.pre_transformation import (
    InputColumnModification,
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import AlzantotGeneticAlgorithm

from .recipe import SORecipe


class AlzantotOffline(SORecipe):
    """Alzantot et al. (2018) genetic attack as TextAttack builds it, with the synonyms slot.

    Replaced offline: the 8 nearest counter-fitted neighbours + ``WordEmbeddingDistance``
    become the synonyms slot's list (already a thresholded neighbour list); the Google
    1-billion-words LM filter has no offline model and is dropped.
    """

    name = "alzantot-offline"
    PARAMS = {
        "synonyms": (None, "synonyms slot (Alzantot: 8 nearest counter-fitted neighbours)"),
        "max_candidates": (8, "Alzantot: N = 8 nearest neighbours"),
        "max_percent": (0.2, "Alzantot: at most 20 % of words perturbed"),
        "pop_size": (60, "Alzantot: population 60"),
        "max_iters": (20, "Alzantot: 20 generations"),
    }

    @classmethod
    def _build(cls, model_wrapper, **p):
        from ..resources import load_synonyms
        from ..transformations.word_swap_synonym_list import WordSwapSynonymList

        synonyms = load_synonyms(p["synonyms"])
        transformation = WordSwapSynonymList(synonyms, max_candidates=p["max_candidates"])
        constraints = [RepeatModification(), StopwordModification()]
        constraints.append(InputColumnModification(["premise", "hypothesis"], {"premise"}))
        constraints.append(MaxWordsPerturbed(max_percent=p["max_percent"]))
        goal_function = UntargetedClassification(model_wrapper)
        search = AlzantotGeneticAlgorithm(pop_size=p["pop_size"], max_iters=p["max_iters"], post_crossover_check=False)
        return Attack(goal_function, constraints, transformation, search)
