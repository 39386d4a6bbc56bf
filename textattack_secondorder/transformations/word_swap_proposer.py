"""Word swaps proposed by the masked-LM slot (BAE-R style, Garg & Ramakrishnan 2020).

TextAttack's ``WordSwapMaskedLM(method="bae")`` needs a hub masked LM; this
transformation asks the package's word proposer instead (DistilBERT online,
the offline proposer otherwise), for all positions of a text in one batch.
"""

from textattack.transformations import WordSwap

from ..resources import word_proposer
from ..shared.text import match_case


class WordSwapProposer(WordSwap):
    """Replace word ``i`` by the proposer's top ``max_candidates`` whole words for position ``i``.

    Args:
        proposer: a ``WordProposer``, a masked-LM slot name/path, or ``None`` (slot default).
        max_candidates: candidates per position (BAE: 50).
    """

    def __init__(self, proposer=None, max_candidates=50, device=None, dtype=None, **kwargs):
        super().__init__(**kwargs)
        self.proposer = word_proposer(proposer, device=device, dtype=dtype)
        self.max_candidates = int(max_candidates)

    def _get_transformations(self, current_text, indices_to_modify):
        indices = sorted(indices_to_modify)
        if not indices:
            return []
        # over-fetch: pieces and non-words are dropped after ranking
        proposals = self.proposer.propose([current_text.words], [indices], top_k=2 * self.max_candidates)[0]
        out = []
        for i, cands in zip(indices, proposals):
            original = current_text.words[i]
            kept = []
            for tok, _ in cands:
                if self.proposer.is_word(tok) and tok.lower() != original.lower() and tok.lower() not in kept:
                    kept.append(tok.lower())
                if len(kept) == self.max_candidates:
                    break
            out.extend(current_text.replace_word_at_index(i, match_case(w, original)) for w in kept)
        return out

    def extra_repr_keys(self):
        return ["proposer", "max_candidates"]
