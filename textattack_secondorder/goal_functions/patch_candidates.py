"""More candidate patch swaps for a rule that can judge them: WordNet synonyms (docs/design/patch-rules.md).

The paper's candidates are the listed (counter-fitted) synonyms of a word occurring once in ``x0``. A
judge with recall can afford more: :class:`MoreCandidates` adds, for each such word ``p1`` of a content
part of speech, the single-word members of ``p1``'s first WordNet senses in that part of speech (the
packaged table), put into ``p1``'s inflection (lemminflect, from its Penn tag in ``x0``). Duplicates of a
listed synonym, words already in ``x0`` and non-words are left out; the judge decides.

The masked LM's words in ``p1``'s slot were tried as candidates too and left out: the pair an attack
chooses is the one the victim reacts to most, and among the masked LM's words that is the antonym
("vague" → "strong", "banal" → "fine"; docs/design/patch-rules.md).
"""

import lemminflect

from ..constraints.patch_part_of_speech import UPOS_OF_TAG
from ..resources.wordnet import TABLE_SENSES, WORDNET_POS, wordnet_senses


def wordnet_synonyms(word, tag, senses=TABLE_SENSES):
    """Single-word WordNet synonyms of ``word`` (lower case) in its first ``senses`` senses for the part of
    speech of Penn tag ``tag``, in ``word``'s inflection; ``[]`` for a tag without WordNet entries."""
    prefix = (tag or "")[:2]
    pos, upos = WORDNET_POS.get(prefix), UPOS_OF_TAG.get(prefix)
    if pos is None:
        return []
    synsets, lemmas = wordnet_senses()
    table = lemmas.get(pos, {})
    own = {word} | set(lemminflect.getAllLemmas(word, upos=upos).get(upos, ()))
    out = []
    for lemma in own:
        for k in table.get(lemma, ())[:senses]:
            for member in synsets[k] if k >= 0 else ():
                if member in own:
                    continue
                forms = lemminflect.getInflection(member, tag=tag)
                form = (forms[0] if forms else member).lower()
                if form not in out:
                    out.append(form)
    return out


class MoreCandidates:
    """WordNet synonyms for the patch word positions of a sentence.

    Args:
        tagger: an object with ``tags(attacked_text)`` (Penn tags).
    """

    def __init__(self, tagger):
        self.tagger = tagger

    def __call__(self, attacked_text, positions):
        """``{position: [new words]}`` for the word positions ``positions`` of ``attacked_text``."""
        tags = self.tagger.tags(attacked_text)
        words = attacked_text.words
        return {i: wordnet_synonyms(words[i].lower(), tags[i]) for i in positions if (tags[i] or "")[:2] in UPOS_OF_TAG}

    def __repr__(self):
        return "MoreCandidates(wordnet)"
