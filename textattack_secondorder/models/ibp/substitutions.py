"""The perturbation set of certified training and ``certify``: every word kept or swapped for a neighbour.

Jia et al. (2019) certify a classifier against every combination of word substitutions, each word of the
input kept or replaced by one of its counter-fitted neighbours (docs/design/certified.md). Here a position is
one token of the word victim's tokenizer (what the model sees) and its choice set is the token itself
and the neighbours of its word in a synonym list (by default the ``synonyms`` slot, the packaged
counter-fitted list that ``alzantot-offline`` and the patch words read too):

* a neighbour outside the victim's vocabulary becomes ``[UNK]`` (id 1, the zero vector), as the
  tokenizer would make it, so the set covers what the model actually sees;
* a token that starts with an apostrophe (``'m``, ``'re``: one token for the tokenizer) also gets the
  neighbours of the word after it, with the apostrophe kept: TextAttack's word list strips the
  apostrophe and may swap ``m`` for ``meters``, which the tokenizer then reads as ``'meters``.

Every swap of a synonym-list attack (``WordSwapSynonymList``: alphabetic word for alphabetic word)
replaces one token by one token, so the length of a sentence never changes and each position's
choices can be bounded on their own (``tests/test_ibp.py`` checks the inclusion on MR sentences).
"""

import torch

from ...resources.synonyms import SynonymList
from ...shared.padding import pad_right


class SubstitutionSets:
    """Choice sets (token ids) of a word victim's positions under a synonym list.

    Args:
        tokenizer: the victim's word tokenizer (``build_word_tokenizer``): its vocabulary and ``[UNK]``.
        synonyms: a :class:`SynonymList`, a ``{word: [synonyms]}`` dict, a JSON path, or ``None`` for
            the ``synonyms`` resource slot.
        max_length: truncation (default: the tokenizer's ``model_max_length``), as the victim truncates.
    """

    def __init__(self, tokenizer, synonyms=None, max_length=None):
        self.tokenizer = tokenizer
        self.synonyms = synonyms if isinstance(synonyms, SynonymList) else SynonymList(synonyms)
        self.vocab = tokenizer.get_vocab()
        self.unk_id = self.vocab[tokenizer.unk_token]
        self.pad_id = tokenizer.pad_token_id
        self.max_length = int(max_length or tokenizer.model_max_length)
        self._cache = {}

    def words(self, token):
        """The token itself and the tokens a swap may put in its place (lower case, no duplicates)."""
        token = token.lower()
        out = [token]
        for s in self.synonyms.get(token, ()):
            if s not in out:
                out.append(s)
        if token.startswith("'") and len(token) > 1:  # TextAttack swaps the word after the apostrophe
            for s in self.synonyms.get(token[1:], ()):
                if "'" + s not in out:
                    out.append("'" + s)
        return out

    def choice_ids(self, token):
        """Token ids of :meth:`words` (``[UNK]`` for words outside the vocabulary), the token's own first."""
        key = token.lower()
        ids = self._cache.get(key)
        if ids is None:
            ids = []
            for w in self.words(key):
                i = self.vocab.get(w, self.unk_id)
                if i not in ids:
                    ids.append(i)
            self._cache[key] = ids
        return ids

    def encode_text(self, text):
        """``(token_ids, choices)`` of one text: the victim's ids and, per position, the ids it may hold.

        The tokens are read from the tokenizer's own offsets, so they are exactly the ones the model sees.
        """
        enc = self.tokenizer(text, truncation=True, max_length=self.max_length, return_offsets_mapping=True)
        ids = list(enc["input_ids"])
        choices = []
        for i, (start, end) in zip(ids, enc["offset_mapping"]):
            own = self.choice_ids(text[start:end])
            if own[0] != i:  # the tokenizer read its span otherwise: its id first, the span's choices too
                own = [i] + [x for x in own if x != i]
            choices.append(own)
        return ids, choices

    def encode(self, texts):
        """A batch: ``(input_ids, attention_mask, choice_ids)``; ``choice_ids`` is ``(batch, length, K)`` with
        each position's own id first and short choice lists padded by repeating it (a repeat changes no box)."""
        rows = [self.encode_text(t) for t in texts]
        return batch_choices(rows, self.pad_id)


def batch_choices(rows, pad_id):
    """Pad ``[(token_ids, choices)]`` (from :meth:`SubstitutionSets.encode_text`) into one batch."""
    input_ids, attention_mask = pad_right([ids for ids, _ in rows], pad_id)
    width = max([len(c) for _, choices in rows for c in choices] or [1])
    choice_ids = input_ids.unsqueeze(-1).repeat(1, 1, width)
    for b, (_, choices) in enumerate(rows):
        for t, own in enumerate(choices):
            choice_ids[b, t, : len(own)] = torch.tensor(own, dtype=torch.long)
    return input_ids, attention_mask, choice_ids
