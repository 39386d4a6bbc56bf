"""
BAE and Alzantot's genetic attack built from TextAttack's parts with this package's resource slots
=================================================================================================

TextAttack's ``bae`` and ``alzantot`` recipes load models from the hub (BERT
masked LM, the Universal Sentence Encoder, counter-fitted vectors, the Google
1-billion-words LM). These builders keep each recipe's search, goal and
thresholds and put the resources layer in the slots that cannot load offline,
so benchmarks can run them beside our attacks on the same victim. Which slot
replaced what is stated beside each choice.
"""
from textattack import Attack
from textattack.constraints.overlap import MaxWordsPerturbed
from textattack.constraints.pre_transformation import (
    InputColumnModification,
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import AlzantotGeneticAlgorithm, GreedyWordSwapWIR

from .recipe import SORecipe


class BAEOffline(SORecipe):
    """BAE-R (Garg & Ramakrishnan 2020) as TextAttack builds it, with the masked-LM and sentence-encoder slots."""

    name = "bae-offline"
    PARAMS = {
        "masked_lm": (None, "masked-LM slot (BAE: bert-base-uncased; offline: the slot's proposer)"),
        "max_candidates": (50, "BAE: top 50 masked-LM tokens per position"),
        "sentence_encoder": (None, "sentence-encoder slot (BAE: USE; offline: all-MiniLM-L6-v2)"),
        "similarity_threshold": (0.936338023, "BAE via TextAttack: USE cosine >= 0.936 in a 15-word window"),
        "pos": (False, "part-of-speech constraint (needs flair's POS model, a download)"),
        "device": (None, "device of the word proposer"),
        "masked_lm_dtype": (None, "weights dtype of the masked LM when loaded here: None = float32, 'bfloat16', "
                                  "'float16' (CUDA), 'auto'"),
    }

    @classmethod
    def _build(cls, model_wrapper, **p):
        from ..resources import sentence_encoder_constraint
        from ..transformations.word_swap_proposer import WordSwapProposer

        transformation = WordSwapProposer(p["masked_lm"], max_candidates=p["max_candidates"], device=p["device"],
                                          dtype=p["masked_lm_dtype"])
        constraints = [RepeatModification(), StopwordModification()]
        if p["pos"]:
            from textattack.constraints.grammaticality import PartOfSpeech

            constraints.append(PartOfSpeech(allow_verb_noun_swap=True))
        constraints.append(
            sentence_encoder_constraint(
                p["sentence_encoder"], threshold=p["similarity_threshold"], metric="cosine",
                compare_against_original=True, window_size=15, skip_text_shorter_than_window=True,
            )
        )
        goal_function = UntargetedClassification(model_wrapper)
        return Attack(goal_function, constraints, transformation, GreedyWordSwapWIR(wir_method="delete"))


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

        synonyms = p["synonyms"] if isinstance(p["synonyms"], dict) else load_synonyms(p["synonyms"])
        transformation = WordSwapSynonymList(synonyms, max_candidates=p["max_candidates"])
        constraints = [RepeatModification(), StopwordModification()]
        constraints.append(InputColumnModification(["premise", "hypothesis"], {"premise"}))
        constraints.append(MaxWordsPerturbed(max_percent=p["max_percent"]))
        goal_function = UntargetedClassification(model_wrapper)
        search = AlzantotGeneticAlgorithm(pop_size=p["pop_size"], max_iters=p["max_iters"], post_crossover_check=False)
        return Attack(goal_function, constraints, transformation, search)
