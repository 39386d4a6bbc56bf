"""A one-word swap puts in a word the lexicons relate to the old one (docs/design/patch-rules.md).

The patch judge reads a swap in its sentence, but it learnt from human judgements of candidates that
a thesaurus and people proposed (SWORDS), among which antonyms and unrelated words are rare; the pair a
second-order attack chooses is the one the victim reacts to most, which among free proposals is the
antonym ("vague" → "strong", "banal" → "fine"). This check keeps ``w -> w'`` only when the lexicons
relate them: ``w'`` shares one of ``w``'s first four WordNet senses in the part of speech ``w`` has in
its sentence (and that sense is among ``w'``'s first four too), or ``w'`` is a listed synonym of ``w``
(counter-fitting keeps antonyms out of that list).
"""

from textattack.constraints import Constraint

from ..resources import load_pos_tagger, load_synonyms
from ..resources.wordnet import TABLE_SENSES, WORDNET_POS, sense_ranks
from .patch_part_of_speech import UPOS_OF_TAG
from .word_swap_position import swapped_word
from .wordnet_synonym import lemmas_of


class LexicalLink(Constraint):
    """Accept a one-word swap whose words share one of their first WordNet senses, or are listed synonyms.

    Args:
        synonyms: ``{word: synonyms}`` (default: the synonyms slot, the counter-fitted list).
        tagger: an object with ``tags(attacked_text)`` (default: the ``pos_tagger`` slot).
        senses: how many senses of each word count (at most the packaged table's 4).
    """

    def __init__(self, synonyms=None, tagger=None, senses=TABLE_SENSES, compare_against_original=True):
        super().__init__(compare_against_original)
        if not 1 <= int(senses) <= TABLE_SENSES:
            raise ValueError(f"senses must be between 1 and {TABLE_SENSES}, got {senses}")
        self.synonyms = synonyms if synonyms is not None else load_synonyms()
        self.tagger = tagger if tagger is not None else load_pos_tagger()
        self.senses = int(senses)

    def _check_constraint(self, transformed_text, reference_text):
        swap = swapped_word(transformed_text, reference_text)
        if swap is None:
            return False
        i, old, new = swap
        if new in {s.lower() for s in self.synonyms.get(old, ())}:
            return True
        prefix = (self.tagger.tags(reference_text)[i] or "")[:2]
        pos = WORDNET_POS.get(prefix)
        if pos is None:
            return False
        upos = UPOS_OF_TAG[prefix]
        _, rank1, rank2 = sense_ranks(lemmas_of(old, upos), lemmas_of(new, upos), pos, self.senses)
        return rank1 < self.senses

    def extra_repr_keys(self):
        return ["senses"]
