"""More candidate patch swaps for a rule that can judge them: WordNet synonyms and the masked LM's words
in ``p1``'s slot (docs/methods.md §1.2).

The paper's candidates are the listed (counter-fitted) synonyms of a word occurring once in ``x0``. A
judge with recall can afford more: :class:`MoreCandidates` adds, for each such word ``p1`` of a content
part of speech,

* the single-word members of ``p1``'s first WordNet senses in that part of speech (the packaged table),
  put into ``p1``'s inflection (lemminflect, from its Penn tag in ``x0``);
* the words the masked LM proposes in ``p1``'s slot (the neighbourhood's rule, κ = 20 and δ = 3 of
  docs/methods.md §1.1), which already fit the sentence's grammar.

Duplicates of a listed synonym, words already in ``x0`` and non-words are left out; the judge decides.
"""

from ..constraints.patch_part_of_speech import UPOS_OF_TAG
from ..resources.wordnet import WORDNET_POS, wordnet_senses
from ..transformations.neighborhood import DELTA, KAPPA, select_neighbor_words

WORDNET_SENSES = 4  # all the packaged table holds


def wordnet_synonyms(word, tag, senses=WORDNET_SENSES):
    """Single-word WordNet synonyms of ``word`` (lower case) in its first ``senses`` senses for the part of
    speech of Penn tag ``tag``, in ``word``'s inflection; ``[]`` for a tag without WordNet entries."""
    import lemminflect

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
    """WordNet synonyms and masked-LM words for the patch word positions of a sentence.

    Args:
        tagger: an object with ``tags(attacked_text)`` (Penn tags).
        proposer: a masked-LM :class:`~..resources.proposers.WordProposer` (None: no masked-LM words).
        kappa, delta: the neighbourhood rule on the proposer's scores (docs/methods.md §1.1).
    """

    def __init__(self, tagger, proposer=None, kappa=KAPPA, delta=DELTA):
        self.tagger = tagger
        self.proposer = proposer
        self.kappa = int(kappa)
        self.delta = float(delta)

    def __call__(self, attacked_text, positions):
        """``{position: [new words]}`` for the word positions ``positions`` of ``attacked_text``."""
        tags = self.tagger.tags(attacked_text)
        words = attacked_text.words
        content = [i for i in positions if (tags[i] or "")[:2] in UPOS_OF_TAG]
        out = {i: wordnet_synonyms(words[i].lower(), tags[i]) for i in content}
        if self.proposer is not None and content:
            proposals = self.proposer.propose([list(words)], [content], top_k=self.kappa + 1)[0]
            for i, cands in zip(content, proposals):
                kept = select_neighbor_words(cands or [], words[i], self.proposer.is_word, self.kappa, self.delta)
                out[i] += [w.lower() for w in kept if w.lower() not in out[i]]
        return out

    def __repr__(self):
        return f"MoreCandidates(wordnet, proposer={self.proposer!r})"
