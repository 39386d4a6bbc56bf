"""A one-word swap keeps the word's part of speech and inflection in its sentence (docs/design/patch-rules.md).

The word being replaced must be a content word by the tag it has in the reference sentence (a common
noun, verb, adjective or adverb; not a proper noun, pronoun, preposition, determiner or other function
word), and the new word must carry that same tag (Penn Treebank tags: ``captures`` is VBZ, so
``caught`` (VBD/VBN) cannot replace it; ``pretty`` in "dig pretty deep" is an adverb, so the
adjective ``handsome`` cannot): it must be the usual form for that tag of one of its lemmas in
lemminflect's English lexicon — so a word the lexicon does not know (``mala``, ``nah``, ``gonna``)
is refused — and the tagger must read it with that tag in the new sentence. Tags come from the
``pos_tagger`` slot (spaCy). With ``names=True`` a word next to a proper noun is left alone ("star trek",
"johnny rico": a swap inside a name).
"""

import lemminflect
from textattack.constraints import Constraint

from ..resources import load_pos_tagger
from .word_swap_position import swapped_word

#: Penn tags of the content words a patch may replace.
CONTENT_TAGS = frozenset(["NN", "NNS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "JJ", "JJR", "JJS", "RB", "RBR", "RBS"])
#: Penn tags of the modifiers (adjectives and adverbs): the slots SP-Attack's fluency rule fills by default
MODIFIER_TAGS = frozenset(["JJ", "JJR", "JJS", "RB", "RBR", "RBS"])
NAME_TAGS = frozenset(["NNP", "NNPS"])


#: Universal part of speech of each Penn tag prefix (lemminflect's lemma classes).
UPOS_OF_TAG = {"NN": "NOUN", "VB": "VERB", "JJ": "ADJ", "RB": "ADV"}


def can_carry(word, tag):
    """True when lemminflect knows ``word`` as the usual ``tag`` form of one of its lemmas of that part of
    speech (its first inflection: ``conflict`` is not the usual NNS of ``conflict``, though lemminflect
    lists it too; ``complicated`` is an adjective, and the verb's VB form is ``complicate``)."""
    upos = UPOS_OF_TAG.get(tag[:2])
    for lemma in lemminflect.getAllLemmas(word, upos=upos).get(upos, ()):
        forms = lemminflect.getInflection(lemma, tag=tag)
        if forms and forms[0] == word:
            return True
    return False


class PatchPartOfSpeech(Constraint):
    """Accept a one-word swap only where the old word is a content word and the new word carries its tag.

    Args:
        tagger: an object with ``tags(attacked_text)`` (default: the ``pos_tagger`` slot).
        names: also refuse a word next to a proper noun (default True).
        slots: the Penn tags the replaced word may have (default: every content word's, :data:`CONTENT_TAGS`).
    """

    def __init__(self, tagger=None, names=True, slots=CONTENT_TAGS, compare_against_original=True):
        super().__init__(compare_against_original)
        self.tagger = tagger if tagger is not None else load_pos_tagger()
        self.names = bool(names)
        self.slots = tuple(sorted(set(slots)))  # sorted: the same repr on every run
        if not set(self.slots) <= CONTENT_TAGS:
            raise ValueError(f"slots must be content-word tags ({', '.join(sorted(CONTENT_TAGS))})")

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        tags = self.tagger.tags(reference_text)
        lexical = []  # the old word is a content word, not beside a name; the new word can carry its tag
        for t in transformed_texts:
            swap = swapped_word(t, reference_text)
            if swap is None or tags[swap[0]] not in self.slots:
                continue
            i = swap[0]
            if self.names and any(0 <= j < len(tags) and tags[j] in NAME_TAGS for j in (i - 1, i + 1)):
                continue
            if can_carry(swap[2], tags[i]):
                lexical.append((t, i))
        # and the tagger reads the new word in its sentence with the old word's tag
        retagged = self.tagger.tag_many([t for t, _ in lexical])
        return [t for (t, i), new_tags in zip(lexical, retagged) if new_tags[i] == tags[i]]

    def admits_word(self, word):
        """Whether ``word`` can carry the tag of some slot (lemminflect knows it as the usual form of one): a string no
        English lexicon knows ("besco") takes no slot, whatever the sentence, nor a noun where only modifiers may go."""
        return any(can_carry(word, tag) for tag in self.slots)

    def extra_repr_keys(self):
        return ["names", "slots"]
