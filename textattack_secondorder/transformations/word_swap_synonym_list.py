"""Word swap from a fixed synonym list (offline TextFooler-like attacks).

TextFooler-style recipes swap a word for its counter-fitted embedding neighbours
(``WordSwapEmbedding``), which needs the ``paragramcf`` download. This
transformation reads the neighbours from a word->synonyms list instead (by default
the ``synonyms`` resource slot), the
same list the Double Perturbation patch words come from (Zhang et al. 2021, Sec. 3).
"""

import logging

from textattack.transformations import WordSwap
from textattack.transformations.word_swaps.word_swap_embedding import recover_word_case

from ..resources.synonyms import SynonymList

logger = logging.getLogger(__name__)


class WordSwapSynonymList(WordSwap):
    """Replace a word by its synonyms from a :class:`SynonymList`.

    Args:
        synonyms: a ``SynonymList``, a ``{word: [synonyms]}`` dict, a path to such a
            JSON file, or ``None`` for the ``synonyms`` resource slot (``$TA_SO_SYNONYMS``,
            counter-fitted online, the packaged copy of the counter-fitted list offline).
        max_candidates (int or None): keep at most this many synonyms per word, in the
            list's order (None = all).

    Replacements keep the case of the original word (lower, UPPER, Capitalised), as
    TextAttack's ``WordSwapEmbedding`` does.
    """

    def __init__(self, synonyms=None, max_candidates=None, **kwargs):
        super().__init__(**kwargs)
        self.synonyms = synonyms if isinstance(synonyms, SynonymList) else SynonymList(synonyms)
        self.max_candidates = max_candidates

    def _get_replacement_words(self, word):
        candidates = self.synonyms.get(word.lower(), ())
        if self.max_candidates is not None:
            candidates = candidates[: self.max_candidates]
        out = []
        for c in candidates:
            r = recover_word_case(c, word)
            if r != word and r not in out:
                out.append(r)
        return out

    def extra_repr_keys(self):
        return ["synonyms", "max_candidates"]
