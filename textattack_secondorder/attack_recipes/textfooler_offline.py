"""
TextFooler built from TextAttack's parts with this package's resource slots
==========================================================================

Jin et al. (2019), "Is BERT Really Robust?", as TextAttack's ``textfooler``
recipe builds it, except that the two parts which need downloads are taken
from the resources layer:

* swap candidates: the ``synonyms`` slot (counter-fitted neighbours online,
  the packaged GloVe+WordNet list offline) instead of the 50 nearest
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
from textattack import Attack
from textattack.constraints.pre_transformation import (
    InputColumnModification,
    RepeatModification,
    StopwordModification,
)
from textattack.goal_functions import UntargetedClassification
from textattack.search_methods import GreedyWordSwapWIR

from .recipe import SORecipe

# TextFooler's public implementation's stopword list, as TextAttack's recipe uses it.
# fmt: off
TEXTFOOLER_STOPWORDS = frozenset(
    ["a", "about", "above", "across", "after", "afterwards", "again", "against", "ain", "all", "almost", "alone", "along", "already", "also", "although", "am", "among", "amongst", "an", "and", "another", "any", "anyhow", "anyone", "anything", "anyway", "anywhere", "are", "aren", "aren't", "around", "as", "at", "back", "been", "before", "beforehand", "behind", "being", "below", "beside", "besides", "between", "beyond", "both", "but", "by", "can", "cannot", "could", "couldn", "couldn't", "d", "didn", "didn't", "doesn", "doesn't", "don", "don't", "down", "due", "during", "either", "else", "elsewhere", "empty", "enough", "even", "ever", "everyone", "everything", "everywhere", "except", "first", "for", "former", "formerly", "from", "hadn", "hadn't", "hasn", "hasn't", "haven", "haven't", "he", "hence", "her", "here", "hereafter", "hereby", "herein", "hereupon", "hers", "herself", "him", "himself", "his", "how", "however", "hundred", "i", "if", "in", "indeed", "into", "is", "isn", "isn't", "it", "it's", "its", "itself", "just", "latter", "latterly", "least", "ll", "may", "me", "meanwhile", "mightn", "mightn't", "mine", "more", "moreover", "most", "mostly", "must", "mustn", "mustn't", "my", "myself", "namely", "needn", "needn't", "neither", "never", "nevertheless", "next", "no", "nobody", "none", "noone", "nor", "not", "nothing", "now", "nowhere", "o", "of", "off", "on", "once", "one", "only", "onto", "or", "other", "others", "otherwise", "our", "ours", "ourselves", "out", "over", "per", "please", "s", "same", "shan", "shan't", "she", "she's", "should've", "shouldn", "shouldn't", "somehow", "something", "sometime", "somewhere", "such", "t", "than", "that", "that'll", "the", "their", "theirs", "them", "themselves", "then", "thence", "there", "thereafter", "thereby", "therefore", "therein", "thereupon", "these", "they", "this", "those", "through", "throughout", "thru", "thus", "to", "too", "toward", "towards", "under", "unless", "until", "up", "upon", "used", "ve", "was", "wasn", "wasn't", "we", "were", "weren", "weren't", "what", "whatever", "when", "whence", "whenever", "where", "whereafter", "whereas", "whereby", "wherein", "whereupon", "wherever", "whether", "which", "while", "whither", "who", "whoever", "whole", "whom", "whose", "why", "with", "within", "without", "won", "won't", "would", "wouldn", "wouldn't", "y", "yet", "you", "you'd", "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves"]
)
# fmt: on


class TextFoolerOffline(SORecipe):
    """TextFooler (Jin et al. 2019) with swap candidates and sentence encoder from the resource slots."""

    name = "textfooler-offline"
    PARAMS = {
        "synonyms": (None, "word->synonyms JSON; None = the synonyms slot (counter-fitted online, packaged list offline)"),
        "max_candidates": (50, "swap candidates per word (TextFooler: 50 nearest neighbours)"),
        "sentence_encoder": (None, "sentence-encoder slot value ('use', a SentenceTransformer path); None = slot default"),
        "use_sentence_encoder": (True, "apply the sentence-similarity constraint"),
        # TextFooler's code forgets to divide the angle by pi: 1 - 0.5/pi = 0.840845057 (TextAttack's note).
        "similarity_threshold": (0.840845057, "minimum angular similarity in a 15-word window (TextFooler via TextAttack)"),
        "pos": (False, "part-of-speech constraint (needs flair's POS model, a download)"),
        "wir_method": ("delete", "word importance ranking of GreedyWordSwapWIR (TextFooler: delete)"),
    }

    @classmethod
    def _build(cls, model_wrapper, **p):
        from textattack_secondorder.resources import load_synonyms, sentence_encoder_constraint
        from textattack_secondorder.transformations.word_swap_synonym_list import WordSwapSynonymList

        # "Swap words with their 50 closest embedding nearest-neighbors" -> the synonyms slot.
        transformation = WordSwapSynonymList(load_synonyms(p["synonyms"]), max_candidates=p["max_candidates"])
        # Don't modify the same word twice or TextFooler's stopwords.
        constraints = [RepeatModification(), StopwordModification(stopwords=TEXTFOOLER_STOPWORDS)]
        # During entailment, only edit the hypothesis.
        constraints.append(InputColumnModification(["premise", "hypothesis"], {"premise"}))
        if p["pos"]:
            from textattack.constraints.grammaticality import PartOfSpeech

            constraints.append(PartOfSpeech(allow_verb_noun_swap=True))
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
        goal_function = UntargetedClassification(model_wrapper)
        search_method = GreedyWordSwapWIR(wir_method=p["wir_method"])
        return Attack(goal_function, constraints, transformation, search_method)
