"""BAE-R (Garg & Ramakrishnan 2020) as TextAttack builds it, with this package's masked-LM and sentence-encoder slots.

TextAttack's ``bae`` loads BERT and the Universal Sentence Encoder from the hub; this
recipe keeps its search, goal and thresholds and takes the two models from the resources
layer, so benchmarks can run it beside our attacks offline.
"""

from textattack.constraints.grammaticality import PartOfSpeech
from textattack.constraints.pre_transformation import (
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import GreedyWordSwapWIR

from ..resources import sentence_encoder_constraint
from ..transformations.word_swap_proposer import WordSwapProposer
from .input_guard import GuardedAttack
from .param import MASKED_LM_DTYPE, Param
from .recipe import SORecipe


class BAEOffline(SORecipe):
    """BAE-R (Garg & Ramakrishnan 2020) as TextAttack builds it, with the masked-LM and sentence-encoder slots."""

    name = "bae-offline"
    PARAMS = {
        "masked_lm": Param(None, "masked-LM slot (BAE: bert-base-uncased; offline: the slot's proposer)"),
        "max_candidates": Param(50, "BAE: top 50 masked-LM tokens per position", low=1),
        "sentence_encoder": Param(None, "sentence-encoder slot (BAE: USE; offline: all-MiniLM-L6-v2)"),
        "similarity_threshold": Param(
            0.936338023, "BAE via TextAttack: USE cosine >= 0.936 in a 15-word window", low=-1, high=1
        ),
        "pos": Param(False, "part-of-speech constraint (needs flair's POS model, a download)"),
        "device": Param(None, "device of the word proposer"),
        "masked_lm_dtype": MASKED_LM_DTYPE,
    }

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # "We perturb an input sentence by either replacing a token or inserting a new token in
            # the sentence, by means of masking a part of the input and using a LM to fill in the
            # mask" (BAE-R: replace). TextAttack's BAEGarg2019 keeps the top K = 50 masked-LM
            # tokens, whole words only -> the masked-LM slot.
            #
            transformation = WordSwapProposer(
                p["masked_lm"], max_candidates=p["max_candidates"], device=p["device"], dtype=p["masked_lm_dtype"]
            )
            #
            # Don't modify the same word twice or stopwords.
            #
            constraints = [RepeatModification(), StopwordModification()]
            #
            # "For the R operations we add an additional check for grammatical correctness ... by
            # filtering out predicted tokens that do not form the same part of speech (POS) as the
            # original token" (TextAttack's note); off by default here: flair's POS model is a download.
            #
            if p["pos"]:
                constraints.append(PartOfSpeech(allow_verb_noun_swap=True))
            #
            # "[We] set a threshold of 0.8 for the cosine similarity between USE-based embeddings of
            # the adversarial and input text", in a window of 15 words; TextAttack: 1 - (1 - 0.8) / π
            # = 0.936338023 (the BAE code, like TextFooler's, forgets the / π) -> the sentence-encoder slot.
            #
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
            #
            # Goal is untargeted classification.
            #
            goal_function = UntargetedClassification(model_wrapper)
            #
            # "We estimate the token importance Ii of each token t_i ∈ S = [t1, . . . , tn], by
            # deleting ti from S and computing the decrease in probability of predicting the correct
            # label y, similar to (Jin et al., 2019)."
            #
            search_method = GreedyWordSwapWIR(wir_method="delete")
        return GuardedAttack(goal_function, constraints, transformation, search_method, recipe=cls.name)
