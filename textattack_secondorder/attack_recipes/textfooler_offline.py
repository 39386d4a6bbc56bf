"""
TextFooler built from TextAttack's parts with this package's resource slots
==========================================================================

Jin et al. (2019), "Is BERT Really Robust?", as TextAttack's ``textfooler``
recipe builds it, except that the two parts which need downloads are taken
from the resources layer:

* swap candidates: the ``synonyms`` slot (counter-fitted neighbours online,
  the packaged copy of Jia et al.'s counter-fitted list offline: up to 8
  nearest neighbours per word, docs/design/offline-resources.md) instead of the 50 nearest
  counter-fitted PARAGRAM vectors with ``WordEmbeddingDistance`` (the list is
  already a thresholded neighbour list);
* sentence similarity: the ``sentence_encoder`` slot (USE online,
  all-MiniLM-L6-v2 offline) with TextAttack's own thresholds;
* the part-of-speech constraint needs a flair model download and is off by
  default (``pos=True`` turns it on when the flair model is available).

It is the baseline the benchmarks of this package compare against when the hub
cannot be reached, and the recipe that shows the registration mechanism working
end to end.
"""

from textattack.constraints.grammaticality import PartOfSpeech
from textattack.constraints.pre_transformation import (
    InputColumnModification,
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import GreedyWordSwapWIR

from ..resources import load_synonyms, sentence_encoder_constraint
from ..resources.stopwords import TEXTFOOLER_STOPWORDS
from ..transformations.word_swap_synonym_list import WordSwapSynonymList
from .input_guard import GuardedAttack
from .param import Param
from .recipe import SORecipe


class TextFoolerOffline(SORecipe):
    """TextFooler (Jin et al. 2019) with swap candidates and sentence encoder from the resource slots."""

    name = "textfooler-offline"
    PARAMS = {
        "synonyms": Param(
            None, "word->synonyms JSON; None = the synonyms slot (counter-fitted online, packaged list offline)"
        ),
        "max_candidates": Param(50, "swap candidates per word (TextFooler: 50 nearest neighbours)", low=1),
        "sentence_encoder": Param(
            None, "sentence-encoder slot value ('use', a SentenceTransformer path); None = slot default"
        ),
        "use_sentence_encoder": Param(True, "apply the sentence-similarity constraint"),
        # TextFooler's code forgets to divide the angle by pi: 1 - 0.5/pi = 0.840845057 (TextAttack's note).
        "similarity_threshold": Param(
            0.840845057,
            "minimum angular similarity in a 15-word window (TextFooler via TextAttack)",
            low=-1,
            high=1,
        ),
        "pos": Param(False, "part-of-speech constraint (needs flair's POS model, a download)"),
        "wir_method": Param(
            "delete",
            "word importance ranking of GreedyWordSwapWIR (TextFooler: delete)",
            choices=("unk", "delete", "weighted-saliency", "gradient", "random"),
        ),
    }

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # Swap words with their 50 closest embedding nearest-neighbors (counter-fitted PARAGRAM-SL999
            # vectors, minimum cosine 0.5; TextAttack's TextFoolerJin2019) -> the synonyms slot's
            # neighbour list, already thresholded (docs/design/offline-resources.md).
            #
            transformation = WordSwapSynonymList(load_synonyms(p["synonyms"]), max_candidates=p["max_candidates"])
            #
            # Don't modify the same word twice or TextFooler's stopwords.
            #
            constraints = [RepeatModification(), StopwordModification(stopwords=TEXTFOOLER_STOPWORDS)]
            #
            # During entailment, only edit the hypothesis.
            #
            constraints.append(InputColumnModification(["premise", "hypothesis"], {"premise"}))
            #
            # Only replace words with the same part of speech (or nouns with verbs); off by default
            # here: flair's POS model is a download.
            #
            if p["pos"]:
                constraints.append(PartOfSpeech(allow_verb_noun_swap=True))
            #
            # Universal Sentence Encoder with a minimum angular similarity of ε = 0.5 in a 15-word
            # window; TextFooler's code forgets to divide the angle by π: 1 - 0.5 / π = 0.840845057
            # (TextAttack's note) -> the sentence-encoder slot.
            #
            if p["use_sentence_encoder"]:
                constraints.append(
                    sentence_encoder_constraint(
                        p["sentence_encoder"],
                        threshold=p["similarity_threshold"],
                        metric="angular",
                        compare_against_original=False,
                        window_size=15,
                        skip_text_shorter_than_window=True,
                    )
                )
            #
            # Goal is untargeted classification.
            #
            goal_function = UntargetedClassification(model_wrapper)
            #
            # Greedily swap words with "Word Importance Ranking" (TextFooler: by deletion).
            #
            search_method = GreedyWordSwapWIR(wir_method=p["wir_method"])
        return GuardedAttack(goal_function, constraints, transformation, search_method, recipe=cls.name)
