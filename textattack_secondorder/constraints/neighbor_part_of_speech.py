"""A neighbour keeps the part of speech of every word it changed (docs/design/neighbours.md, neighbour rule).

Algorithm 1 judges each substitution by the masked LM at its one slot; stacked, they can swap a
noun for a preposition ("christian mythology" -> "christian in"), an adjective for a conjunction
("the actors are fantastic" -> "are because") or break a verb's agreement ("bisset delivers" ->
"bisset have"). This constraint compares the tagger's Penn tag of each changed position in the
neighbour ``x̃`` with the tag the original word has in ``x0`` and refuses ``x̃`` when one differs.
Proper and common nouns of the same number count as one tag (``NNP`` = ``NN``, ``NNPS`` = ``NNS``):
the tagger reads an unknown name either way. A word of a name in ``x0`` (tagged ``NNP``/``NNPS``) is
never changed: the masked LM fills a name's slot with "de" ("robert de , anne meara", "the santa de 2")
and no tag tells that apart. A word spaCy splits (``by-the-numbers``, ``wall-to-wall``, ``it's``) is left
alone too: its tag is one piece's, and one masked-LM word in its slot read as broken English to blind readers
("a mechanical action-comedy" -> "a mechanical family", "and wall-to-wall toe-tapping music" -> "and
unnecessary toe-tapping music"; docs/design/neighbours.md). Tags come from the ``pos_tagger`` slot (spaCy, cached
per text; its speed: docs/design/offline-resources.md).
"""

from textattack.constraints import Constraint

from ..resources import load_pos_tagger

#: tags read as the same part of speech here (a name and a common noun of the same number)
SAME_TAG = {"NNP": "NN", "NNPS": "NNS"}
NAME_TAGS = frozenset(["NNP", "NNPS"])


def tag_class(tag):
    return SAME_TAG.get(tag, tag)


class NeighborPartOfSpeech(Constraint):
    """Refuse a neighbour in which a changed word does not carry the tag of the word it replaced.

    Args:
        tagger: an object with ``tags(attacked_text)`` and ``tag_many(attacked_texts)`` (default: the
            ``pos_tagger`` slot).
    """

    def __init__(self, tagger=None, compare_against_original=True):
        super().__init__(compare_against_original)
        self.tagger = tagger if tagger is not None else load_pos_tagger()

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        if not transformed_texts:
            return []
        ref_tags = self.tagger.tags(reference_text)
        kept = []
        for t, tags in zip(transformed_texts, self.tagger.tag_many(transformed_texts)):
            changed = t.all_words_diff(reference_text) if len(tags) == len(ref_tags) else ()
            if all(self._keeps(reference_text.words[i], ref_tags[i], tags[i]) for i in changed):
                kept.append(t)
        return kept

    @staticmethod
    def _keeps(old_word, old_tag, new_tag):
        if old_tag in NAME_TAGS or not old_word.isalpha():  # a name, or a word spaCy splits: left alone
            return False
        return tag_class(new_tag) == tag_class(old_tag)

    def extra_repr_keys(self):
        return ["tagger"] + super().extra_repr_keys()
