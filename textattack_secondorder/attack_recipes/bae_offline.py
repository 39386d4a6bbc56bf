"""BAE-R (Garg & Ramakrishnan 2020) as TextAttack builds it, with this package's masked-LM and sentence-encoder slots.

TextAttack's ``bae`` loads BERT and the Universal Sentence Encoder from the hub; this
recipe keeps its search, goal and thresholds and takes the two models from the resources
layer, so benchmarks can run it beside our attacks offline.
"""

from textattack import Attack
from textattack.constraints.pre_transformation import (
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import GreedyWordSwapWIR

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
        "masked_lm_dtype": (
            None,
            "weights dtype of the masked LM when loaded here: None = float32, 'bfloat16', 'float16' (CUDA), 'auto'",
        ),
    }

    @classmethod
    def _build(cls, model_wrapper, **p):
        from ..resources import sentence_encoder_constraint
        from ..transformations.word_swap_proposer import WordSwapProposer

        transformation = WordSwapProposer(
            p["masked_lm"], max_candidates=p["max_candidates"], device=p["device"], dtype=p["masked_lm_dtype"]
        )
        constraints = [RepeatModification(), StopwordModification()]
        if p["pos"]:
            from textattack.constraints.grammaticality import PartOfSpeech

            constraints.append(PartOfSpeech(allow_verb_noun_swap=True))
        constraints.append(
            sentence_encoder_constraint(
                p["sentence_encoder"],
                threshold=p["similarity_threshold"],
                metric="cosine",
                compare_against_original=True,
                window_size=15,
                skip_text_shorter_than_window=True,
            )
        )
        goal_function = UntargetedClassification(model_wrapper)
        return Attack(goal_function, constraints, transformation, GreedyWordSwapWIR(wir_method="delete"))
