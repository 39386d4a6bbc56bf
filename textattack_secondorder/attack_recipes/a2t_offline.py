"""
A2T built from TextAttack's parts with this package's resource slots
====================================================================

Yoo & Qi (2021), "Towards Improving Adversarial Training of NLP Models" (Findings of EMNLP), the attack
built for adversarial training, as TextAttack's ``a2t_yoo_2021`` recipe builds it, with the three parts
that need downloads taken from the resources layer (docs/design/defenses.md):

* swap candidates: the ``synonyms`` slot (the packaged counter-fitted neighbour list offline, already
  thresholded; docs/design/offline-resources.md) in place of the 20 nearest counter-fitted vectors with cosine ≥ 0.8;
* sentence similarity: the ``sentence_encoder`` slot (all-MiniLM-L6-v2 offline) at A2T's cosine 0.9 on the
  whole sentence, in place of SBERT ``stsb-distilbert-base``;
* part of speech: the ``pos_tagger`` slot (spaCy) read in NLTK's universal tag set
  (:class:`~..constraints.universal_part_of_speech.UniversalPartOfSpeech`), in place of NLTK's tagger.

Word importance is the gradient's (TextAttack's ``GreedyWordSwapWIR(wir_method="gradient")``: one forward
and backward pass, the L1 norm of each word's gradient at the embeddings), so the victim must give a
gradient (``model_wrapper.get_grad``); at most 10 % of the words change (at least 4 may, as in A2T).

    textattack attack --recipe a2t-offline --model mr-cnn ...
    textattack-so defend --defense a2t --model mr-cnn --out models/mr-cnn-a2t   # adversarial training
"""

from textattack.constraints.pre_transformation import (
    InputColumnModification,
    MaxModificationRate,
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import GreedyWordSwapWIR

from ..constraints.universal_part_of_speech import UniversalPartOfSpeech
from ..models.token_classifier import TokenClassifier
from ..resources import load_synonyms, sentence_encoder_constraint
from ..transformations.word_swap_synonym_list import WordSwapSynonymList
from .input_guard import GuardedAttack
from .param import Param
from .recipe import SORecipe


class A2TOffline(SORecipe):
    """A2T (Yoo & Qi 2021) with swap candidates, sentence encoder and tagger from the resource slots."""

    name = "a2t-offline"
    PARAMS = {
        "synonyms": Param(
            None, "word->synonyms JSON; None = the synonyms slot (counter-fitted online, packaged list offline)"
        ),
        "max_candidates": Param(20, "swap candidates per word (A2T: the 20 nearest counter-fitted neighbours)", low=1),
        "sentence_encoder": Param(
            None, "sentence-encoder slot value; None = slot default (A2T: SBERT stsb-distilbert-base)"
        ),
        "similarity_threshold": Param(
            0.9, "minimum cosine of the whole sentence and the original (A2T)", low=-1, high=1
        ),
        "pos": Param(True, "the part-of-speech constraint, verb/noun swaps refused (A2T)"),
        "max_rate": Param(0.1, "largest share of the words changed (A2T: 10 %)", low=0, high=1),
        "min_threshold": Param(4, "words that may always change, however short the text (A2T: 4)", low=1),
        "model_batch_size": Param(32, "texts per victim query (A2T)", low=1),
    }

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        # the word importance ranking takes a gradient: one line (exit 2) for a victim that gives none
        TokenClassifier.require_access(model_wrapper, "A2T's gradient word importance")
        with cls.parameter_errors(params):
            #
            # Swap words with their nearest counter-fitted neighbours (A2T: 20, cosine >= 0.8) -> the
            # synonyms slot's neighbour list, already thresholded (docs/design/offline-resources.md).
            #
            transformation = WordSwapSynonymList(load_synonyms(p["synonyms"]), max_candidates=p["max_candidates"])
            #
            # Don't modify the same word twice or a stopword; in entailment only the hypothesis.
            #
            constraints = [RepeatModification(), StopwordModification()]
            constraints.append(InputColumnModification(["premise", "hypothesis"], {"premise"}))
            #
            # The swapped word keeps its part of speech, nouns and verbs not exchanged (A2T) -> the
            # pos_tagger slot read in NLTK's universal tags.
            #
            if p["pos"]:
                constraints.append(UniversalPartOfSpeech(allow_verb_noun_swap=False))
            #
            # At most 10 % of the words change (A2T), at least 4 may.
            #
            constraints.append(MaxModificationRate(max_rate=p["max_rate"], min_threshold=p["min_threshold"]))
            #
            # The sentence stays within cosine 0.9 of the original (A2T: SBERT stsb-distilbert-base) ->
            # the sentence-encoder slot.
            #
            constraints.append(
                sentence_encoder_constraint(p["sentence_encoder"], threshold=p["similarity_threshold"], metric="cosine")
            )
            #
            # Goal is untargeted classification.
            #
            goal_function = UntargetedClassification(model_wrapper, model_batch_size=p["model_batch_size"])
            #
            # Greedily swap words in the order of their gradient's L1 norm (A2T's cheap importance ranking),
            # over the words the victim reads.
            #
            max_len = getattr(model_wrapper, "max_length", None) or min(
                1024, model_wrapper.tokenizer.model_max_length, model_wrapper.model.config.max_position_embeddings - 2
            )
            search_method = GreedyWordSwapWIR(wir_method="gradient", truncate_words_to=max_len)
        return GuardedAttack(goal_function, constraints, transformation, search_method, recipe=cls.name)
