"""Swap one word for each word of a fixed list (SP-Attack's top-M flip-capability words, Xu et al. §4)."""

from textattack.transformations import WordSwap

from ..shared.text import match_case


class WordSwapWordList(WordSwap):
    """At every modifiable position, the sentences with that word replaced by each listed word.

    For a sentence of ``l`` words and ``M`` listed words this is SP-Attack's pool of
    ``l × M`` single-word perturbations.
    """

    def __init__(self, words, allow_empty=False, **kwargs):
        super().__init__(**kwargs)
        self.words = [w.lower() for w in words]
        if not self.words and not allow_empty:
            raise ValueError("WordSwapWordList needs at least one word")

    def _get_replacement_words(self, word):
        low = word.lower()
        return [match_case(w, word) for w in self.words if w != low]

    def extra_repr_keys(self):
        return ["words"]
