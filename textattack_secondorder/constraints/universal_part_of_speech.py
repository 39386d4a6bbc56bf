"""TextAttack's ``PartOfSpeech`` constraint with the package's offline tagger (docs/design/defenses.md).

TextAttack's constraint tags a window of four words either side of each swapped word with NLTK's
perceptron tagger in the universal tag set (``NOUN``, ``VERB``, ``ADJ`` ...) and accepts the swap when
the old and the new word get the same tag (A2T: ``allow_verb_noun_swap=False``). Here the window is
tagged by the ``pos_tagger`` slot (spaCy's ``en_core_web_sm`` copy, Penn Treebank tags), and each Penn
tag is read in the universal tag set by NLTK's own table (Petrov et al.'s ``en-ptb`` map), so the
comparison is TextAttack's. The windows of all candidates of one step are tagged in one spaCy ``pipe``
call (TextAttack tags them one by one).
"""

from textattack.constraints.grammaticality import PartOfSpeech
from textattack.shared import AttackedText

from ..resources import load_pos_tagger

#: Penn Treebank tag -> universal tag (NLTK's ``en-ptb.map``; spaCy's extra tags as punctuation or X).
UNIVERSAL_OF_PENN = {
    **dict.fromkeys(["NN", "NNS", "NNP", "NNPS"], "NOUN"),
    **dict.fromkeys(["VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"], "VERB"),
    **dict.fromkeys(["JJ", "JJR", "JJS"], "ADJ"),
    **dict.fromkeys(["RB", "RBR", "RBS", "WRB"], "ADV"),
    **dict.fromkeys(["PRP", "PRP$", "WP", "WP$"], "PRON"),
    **dict.fromkeys(["DT", "PDT", "WDT", "EX"], "DET"),
    "IN": "ADP",
    **dict.fromkeys(["TO", "RP", "POS"], "PRT"),
    "CD": "NUM",
    "CC": "CONJ",
    **dict.fromkeys([".", ",", ":", "``", "''", "-LRB-", "-RRB-", "$", "#", "HYPH", "NFP"], "."),
}


def universal_tag(penn):
    """The universal tag of a Penn tag (``X`` for the rest: FW, LS, SYM, UH, spaCy's XX/ADD/AFX)."""
    return UNIVERSAL_OF_PENN.get(penn, "X")


class UniversalPartOfSpeech(PartOfSpeech):
    """A word swap keeps the word's universal part of speech in its ±4-word window (TextAttack's rule).

    Args:
        tagger: an object with ``tag_many([AttackedText]) -> [Penn tags per word]`` (default: the
            ``pos_tagger`` slot).
        allow_verb_noun_swap: as TextAttack's (A2T: False; TextFooler: True).
        compare_against_original: as TextAttack's.
    """

    def __init__(self, tagger=None, allow_verb_noun_swap=True, compare_against_original=True):
        # no NLTK/flair/stanza model is loaded: tagger_type only names what is used, for the attack's repr
        super().__init__(
            tagger_type="spacy",
            allow_verb_noun_swap=allow_verb_noun_swap,
            compare_against_original=compare_against_original,
        )
        self.tagger = tagger if tagger is not None else load_pos_tagger()

    @staticmethod
    def _window(words, i, word):
        """TextAttack's context: up to 4 words before position ``i``, ``word``, up to 3 after."""
        before, after = words[max(i - 4, 0) : i], words[i + 1 : min(i + 4, len(words))]
        return before + [word] + after, len(before)

    def _tags(self, windows):
        """Universal tag of the centre word of each ``(words, index)`` window, all in one tagger call."""
        keys = [" ".join(w) for w, _ in windows]
        todo = sorted({k for k in keys if k not in self._pos_tag_cache})
        for key, tags in zip(todo, self.tagger.tag_many([AttackedText(k) for k in todo])):
            self._pos_tag_cache[key] = tags
        out = []
        for key, (_, i) in zip(keys, windows):
            tags = self._pos_tag_cache[key]
            # a window whose words TextAttack splits differently from spaCy: the tag at that word's position
            out.append(universal_tag(tags[i]) if i < len(tags) and tags[i] else "X")
        return out

    def _get_pos(self, before_ctx, word, after_ctx):
        return self._tags([(before_ctx + [word] + after_ctx, len(before_ctx))])[0]

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        checks = []  # (text index, reference window, swapped window)
        for t, text in enumerate(transformed_texts):
            try:
                indices = text.attack_attrs["newly_modified_indices"]
            except KeyError:
                raise KeyError("Cannot apply part-of-speech constraint without `newly_modified_indices`") from None
            for i in indices:
                words = reference_text.words
                checks.append((t, self._window(words, i, words[i]), self._window(words, i, text.words[i])))
        tags = self._tags([w for _, a, b in checks for w in (a, b)])
        refused = {t for k, (t, _, _) in enumerate(checks) if not self._can_replace_pos(tags[2 * k], tags[2 * k + 1])}
        return [text for t, text in enumerate(transformed_texts) if t not in refused]
