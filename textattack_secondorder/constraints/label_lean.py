"""A one-word swap must not move the sentence's words towards another label (docs/design/single-word.md).

SP-Attack puts in one of the words that flip the victim most often (the top of κ); on a sentiment task those are
mostly words of the other label ("superb" → "bad"), and a sentence that now says the opposite is not an
adversarial example. This check reads the victim's own training data: each word's lean to each label is its
log-frequency margin over the other labels (Xu et al.'s Eq. 6, :class:`~..datasets.label_words.LabelLean`), and a
swap ``w -> w'`` is kept when ``max_c lean(w')[c] − lean(w)[c]`` is at most ``max_shift`` nats. It refuses putting in
a word of the other label as well as taking out a word of the sentence's own one ("superb" → "que"). No label is
needed: a swap that moves the words towards the sentence's own label does not flip the victim.
"""

from textattack.constraints import Constraint

from .word_swap_position import swapped_word

#: the paper's own margin for a word that belongs to another label (Eq. 6, SP-Defense's special words)
LEAN_MARGIN = 1.0


class LabelLeanShift(Constraint):
    """Keep a one-word swap that moves the words' label lean by at most ``max_shift`` nats.

    Args:
        lean: a :class:`~..datasets.label_words.LabelLean` of the victim's training sentences.
        max_shift: the largest shift kept (default: Eq. 6's margin, 1 nat).
    """

    def __init__(self, lean, max_shift=LEAN_MARGIN, compare_against_original=True):
        super().__init__(compare_against_original)
        self.lean = lean
        self.max_shift = float(max_shift)

    def shift(self, transformed_text, reference_text):
        """The swap's shift in nats (None when ``transformed_text`` is not a one-word swap of the reference)."""
        swap = swapped_word(transformed_text, reference_text)
        return None if swap is None else self.lean.shift(swap[1], swap[2])

    def _check_constraint(self, transformed_text, reference_text):
        shift = self.shift(transformed_text, reference_text)
        return shift is not None and shift <= self.max_shift

    def admits_word(self, word):
        """Whether ``word`` may replace a word that leans nowhere: its own lean to every label is at most
        ``max_shift`` (SP-Attack's pool leaves out a κ word this check would refuse in such a slot)."""
        return self.lean.shift("", word) <= self.max_shift

    def extra_repr_keys(self):
        return ["max_shift", "lean"]
