"""A one-word swap puts in a WordNet synonym of the word's usual sense, for its part of speech
(docs/design/patch-rules.md).

Counter-fitted neighbour lists mix synonyms with related words, other senses and other parts of
speech (``old -> antiquated``, ``pretty -> handsome``, ``credits -> loans``). This constraint keeps a
swap ``w -> w'`` only when a lemma of ``w'`` shares a synset with a lemma of ``w`` among the first
``max_sense`` WordNet senses of ``w`` — WordNet lists senses most frequent first — and, by default,
that sense is also among the first senses of ``w'`` (``actor -> player`` share a sense, but a player
is first of all someone who plays a game), in the part of speech ``w`` has in its sentence (its Penn
tag from the ``pos_tagger`` slot; lemmas from lemminflect).
The senses come from the packaged WordNet 3.0 table (:mod:`textattack_secondorder.resources.wordnet`).
"""

import lemminflect
from textattack.constraints import Constraint

from ..resources import load_pos_tagger
from ..resources.wordnet import WORDNET_POS, shared_sense
from .patch_part_of_speech import UPOS_OF_TAG
from .word_swap_position import swapped_word


def lemmas_of(word, upos):
    """``word`` and its lemmas as a word of universal part of speech ``upos`` (lemminflect)."""
    return {word} | set(lemminflect.getAllLemmas(word, upos=upos).get(upos, ()))


class WordNetSynonym(Constraint):
    """Accept a one-word swap whose new word shares one of the old word's first WordNet senses.

    Args:
        max_sense: how many of the old word's senses count, most frequent first (default 1).
        max_sense_new: the shared sense must also be among the new word's first ``max_sense_new``
            senses (default 1: the new word too usually means that; None = any of its senses).
        tagger: an object with ``tags(attacked_text)`` (default: the ``pos_tagger`` slot).
    """

    def __init__(self, max_sense=1, max_sense_new=1, tagger=None, compare_against_original=True):
        super().__init__(compare_against_original)
        for name, value in (("max_sense", max_sense), ("max_sense_new", max_sense_new)):
            if value is not None and int(value) < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        self.max_sense = int(max_sense)
        self.max_sense_new = None if max_sense_new is None else int(max_sense_new)
        self.tagger = tagger if tagger is not None else load_pos_tagger()

    def _check_constraint(self, transformed_text, reference_text):
        swap = swapped_word(transformed_text, reference_text)
        if swap is None:
            return False
        i, old, new = swap
        prefix = (self.tagger.tags(reference_text)[i] or "")[:2]  # Penn tag prefix: NN, VB, JJ, RB
        pos = WORDNET_POS.get(prefix)
        if pos is None:
            return False
        old_lemmas, new_lemmas = lemmas_of(old, UPOS_OF_TAG[prefix]), lemmas_of(new, UPOS_OF_TAG[prefix])
        return shared_sense(old_lemmas, new_lemmas, pos, self.max_sense, self.max_sense_new) is not None

    def extra_repr_keys(self):
        return ["max_sense", "max_sense_new"]
