"""A one-word swap must not put in or take out a word of a sentiment lexicon (docs/design/single-word.md).

On a transformer victim the top of κ is the common opinion words ("excellent", "great", "good", "failed",
"worst"), and SP-Attack puts them where the sentence said something else ("painfully redundant" → "amazing
redundant"). A 3,200-sentence training set gives such words little lean ("good" is in as many negative MR reviews
as positive ones, 0.12 nat), so :class:`~.label_lean.LabelLeanShift` lets them through. This check reads a lexicon
of valences people gave the words out of context (VADER, :mod:`~..resources.sentiment_lexicon`) and refuses a swap
when either word's valence is ``min_valence`` or more in size. It is specific to sentiment: on another task it only
costs the attack the swaps of opinion words.
"""

from textattack.constraints import Constraint

from ..resources.sentiment_lexicon import vader_valences
from .word_swap_position import swapped_word

#: the size of valence from which a word counts as an opinion word (VADER's scale runs from -4 to +4)
MIN_VALENCE = 1.0


class SentimentLexiconSwap(Constraint):
    """Refuse a one-word swap in which the old or the new word has a lexicon valence of ``min_valence`` or more in
    size (``valences``: ``{word: valence}``, default VADER's; a word it does not list has valence 0)."""

    def __init__(self, valences=None, min_valence=MIN_VALENCE, compare_against_original=True):
        super().__init__(compare_against_original)
        self.valences = vader_valences() if valences is None else valences
        self.min_valence = float(min_valence)

    def polar(self, word):
        return abs(self.valences.get(word, 0.0)) >= self.min_valence

    def _check_constraint(self, transformed_text, reference_text):
        swap = swapped_word(transformed_text, reference_text)
        return swap is not None and not (self.polar(swap[1]) or self.polar(swap[2]))

    def admits_word(self, word):
        """Whether ``word`` may be put in at all (it is no opinion word of the lexicon)."""
        return not self.polar(word)

    def extra_repr_keys(self):
        return ["min_valence"]
