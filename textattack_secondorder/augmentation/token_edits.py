"""One-word substitutions as token-id operations on batched tensors (docs/design/defenses.md, speed).

SP-Defense changes one word of a sentence per augmentation, and its gradient mode checks K
candidate substitutions per sentence. Writing each candidate as text and tokenizing it again cost
far more than the model (docs/design/defenses.md, speed). Here the
sentences are tokenized once and a substitution is a splice of token ids:

* :class:`EncodedExamples` — texts tokenized once, on the model's device: the ids of the text
  (no special tokens, not truncated), where each of TextAttack's words lies among them, the ids
  of the words alone (what the gradient mode's forward pass sees) and each word's capitalisation;
* :class:`SurfaceTable` — the token ids of replacement words as they would be written into a
  sentence (:func:`~..shared.text.match_case`: as is, capitalised, all caps), for a cased vocabulary
  three different spellings, tokenized once;
* :func:`splice` — rows with one token span replaced by another sequence (any lengths), as tensor
  gathers; :meth:`EncodedExamples.model_inputs` adds the special tokens, truncates as the tokenizer
  does and pads to the longest row.

The result equals tokenizing the rewritten text (``tests/test_sp_defense_tokens.py`` compares the
two) wherever the tokenizer splits at word boundaries, which is checked per sentence when it is
encoded: a word's tokens in the sentence must be its tokens alone (WordPiece and word-level
tokenizers; not byte-level BPE, which spells a word differently after a space). For a sentence where
that fails (``separable`` False) the edit is written as text and tokenized, as before.
"""

import bisect

import numpy as np
import torch
from textattack.shared import AttackedText

from ..shared.padding import pad_right

AS_IS, CAPITALISED, ALL_CAPS = 0, 1, 2


def case_of(like):
    """Which spelling :func:`~..shared.text.match_case` gives a word replacing ``like``."""
    if like.isupper() and len(like) > 1:
        return ALL_CAPS
    if like[:1].isupper():
        return CAPITALISED
    return AS_IS


def spelled(word, case):
    """``word`` in spelling ``case``: ``spelled(w, case_of(like)) == match_case(w, like)`` (a test pins it)."""
    if case == ALL_CAPS:
        return word.upper()
    if case == CAPITALISED:
        return word[:1].upper() + word[1:]
    return word


def word_char_spans(text, words):
    """``[(start, end)]`` of each of ``words`` in ``text``: where TextAttack's ``replace_word_at_index``
    splices a replacement (its sequential, case-sensitive search)."""
    spans, cursor = [], 0
    for w in words:
        start = text.index(w, cursor)
        spans.append((start, start + len(w)))
        cursor = start + len(w)
    return spans


def special_tokens_around(tokenizer):
    """``(prefix, suffix)`` ids the tokenizer adds around one sequence (``[CLS]`` / ``[SEP]``; none for
    the word models), found by tokenizing a probe with and without them."""
    probe = "a"
    bare = tokenizer(probe, add_special_tokens=False)["input_ids"]
    full = tokenizer(probe)["input_ids"]
    for k in range(len(full) - len(bare) + 1):
        if full[k : k + len(bare)] == bare:
            return full[:k], full[k + len(bare) :]
    raise ValueError("cannot find where the tokenizer puts its special tokens")


class SurfaceTable:
    """Token ids of ``words`` in each spelling (as is, capitalised, all caps), tokenized once.

    ``ids[case, k]`` (padded with -1) and ``lengths[case, k]`` on ``device``; for a tokenizer that
    lower-cases, the three spellings give the same ids.
    """

    def __init__(self, tokenizer, words, device):
        self.words = list(words)
        ids, lengths = [], []
        as_is = tokenizer(self.words, add_special_tokens=False)["input_ids"] if self.words else []
        probe = self.words[:200]
        # a tokenizer that lower-cases gives every spelling the same ids: tokenize one
        lowers = not probe or all(
            tokenizer([spelled(w, case) for w in probe], add_special_tokens=False)["input_ids"] == as_is[: len(probe)]
            for case in (CAPITALISED, ALL_CAPS)
        )
        for case in (AS_IS, CAPITALISED, ALL_CAPS):
            toks = (
                as_is
                if case == AS_IS or lowers
                else tokenizer([spelled(w, case) for w in self.words], add_special_tokens=False)["input_ids"]
            )
            t, present = pad_right(toks, -1)
            ids.append(t.to(device))
            lengths.append(present.sum(1).to(device))
        width = max(t.shape[1] for t in ids)
        self.ids = torch.stack([torch.nn.functional.pad(t, (0, width - t.shape[1]), value=-1) for t in ids])
        self.lengths = torch.stack(lengths)

    def __len__(self):
        return len(self.words)

    def tokens(self, case, index):
        """``(ids (R, S), lengths (R,))`` of the surfaces ``index`` spelled as ``case`` (tensors (R,))."""
        return self.ids[case, index], self.lengths[case, index]


def splice(content, lengths, starts, ends, new, new_lengths):
    """Rows of ``content`` (R, L; ``lengths``) with ids ``[starts, ends)`` replaced by ``new[:, :new_lengths]``.

    All arguments are tensors on one device; returns ``(content (R, L'), lengths (R,))``, padded with 0.
    """
    out_len = lengths - (ends - starts) + new_lengths
    width = int(out_len.max()) if len(out_len) else 0
    j = torch.arange(width, device=content.device)[None, :]
    s, e, n = starts[:, None], ends[:, None], new_lengths[:, None]
    before = j < s
    inside = (j >= s) & (j < s + n)
    src = torch.where(before, j, j - n + (e - s)).clamp(0, max(content.shape[1] - 1, 0))
    old = content.gather(1, src) if content.shape[1] else torch.zeros_like(j).expand(len(starts), -1)
    ins = new.gather(1, (j - s).clamp(0, max(new.shape[1] - 1, 0))) if new.shape[1] else old
    out = torch.where(inside, ins, old)
    out = torch.where(j < out_len[:, None], out, torch.zeros_like(out))
    return out, out_len


class EncodedExamples:
    """Texts tokenized once for one-word edits (module docstring); every tensor on ``clf.device``.

    Per text ``t``: ``words[t]`` (TextAttack's words), ``content`` / ``content_lengths`` (ids of the
    text without special tokens, not truncated), ``spans[t, i]`` = ``[start, end)`` of word ``i`` among
    them, ``cases[t, i]`` (spelling of word ``i``), ``words_only`` / ``words_only_lengths`` and
    ``word_of_token`` (-1 outside words) for the words tokenized on their own, ``separable[t]``.
    """

    def __init__(self, clf, texts):
        tok, device = clf.tokenizer, clf.device
        self.clf, self.texts = clf, list(texts)
        self.prefix, self.suffix = special_tokens_around(tok)
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        self.max_content = clf.max_length - len(self.prefix) - len(self.suffix)
        self.words = [AttackedText(t).words if t else [] for t in self.texts]
        self.num_words = np.array([len(w) for w in self.words])
        enc = (
            tok(self.texts, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
            if self.texts
            else None
        )
        split = [w if w else ["x"] for w in self.words]  # words of an empty row are never used
        only = tok(split, is_split_into_words=True, add_special_tokens=False, verbose=False) if self.texts else None
        content, spans, cases, words_only, word_of, separable = [], [], [], [], [], []
        for t, (text, words) in enumerate(zip(self.texts, self.words)):
            ids = enc["input_ids"][t]
            starts = [a for a, _ in enc["offset_mapping"][t]]
            ends = [b for _, b in enc["offset_mapping"][t]]
            chars = word_char_spans(text, words)
            tok_spans = [(bisect.bisect_left(starts, a), bisect.bisect_left(starts, b)) for a, b in chars]
            w_ids = only["input_ids"][t] if words else []
            w_of = [(-1 if w is None else w) for w in only.word_ids(t)] if words else []
            # a word's tokens in the sentence are its tokens alone, and no token crosses a word's edge
            ok = all(
                ends[k] <= b and (s == 0 or ends[s - 1] <= a)
                for (a, b), (s, e) in zip(chars, tok_spans)
                for k in range(s, e)
            )
            ok = ok and all(
                ids[s:e] == [x for x, wi in zip(w_ids, w_of) if wi == i] for i, (s, e) in enumerate(tok_spans)
            )
            content.append(ids)
            spans.append(tok_spans)
            cases.append([case_of(w) for w in words])
            words_only.append(w_ids)
            word_of.append(w_of)
            separable.append(ok)
        # right-padded with 0 on the host, then moved: nothing reads past a row's length (splice, with_specials)
        self.content, present = pad_right(content)
        self.content, self.content_lengths = self.content.to(device), present.sum(1).to(device)
        width = max([len(s) for s in spans] + [1])
        self.spans = torch.zeros((len(spans), width, 2), dtype=torch.long)
        self.cases = torch.zeros((len(spans), width), dtype=torch.long)
        for t, (s, c) in enumerate(zip(spans, cases)):
            if s:
                self.spans[t, : len(s)] = torch.tensor(s)
                self.cases[t, : len(c)] = torch.tensor(c)
        self.spans, self.cases = self.spans.to(device), self.cases.to(device)
        self.words_only, present = pad_right(words_only)
        self.words_only, self.words_only_lengths = self.words_only.to(device), present.sum(1).to(device)
        self.word_of_token = pad_right(word_of, -1)[0].to(device)
        self.separable = np.array(separable, dtype=bool)

    def __len__(self):
        return len(self.texts)

    def with_specials(self, content, lengths, word_of=None):
        """Model inputs from content rows: special tokens added, truncated to ``clf.max_length`` as the
        tokenizer truncates, padded to the longest row (on the right). Returns ``(input_ids,
        attention_mask)``, plus the word index of every position (-1 elsewhere) when ``word_of`` is given."""
        device = content.device
        kept = lengths.clamp(max=self.max_content)
        n_pre, n_suf = len(self.prefix), len(self.suffix)
        total = kept + n_pre + n_suf
        width = int(total.max()) if len(total) else 0
        j = torch.arange(width, device=device)[None, :]
        body = (j >= n_pre) & (j < n_pre + kept[:, None])
        src = (j - n_pre).clamp(0, content.shape[1] - 1).expand(len(content), -1)
        ids = torch.where(body, content.gather(1, src), torch.full_like(j, self.pad_id).expand_as(body))
        if n_pre:
            ids[:, :n_pre] = torch.tensor(self.prefix, device=device)
        if n_suf:
            suf = torch.tensor(self.suffix, device=device)
            k = (j - n_pre - kept[:, None]).clamp(0, n_suf - 1)
            in_suf = (j >= n_pre + kept[:, None]) & (j < total[:, None])
            ids = torch.where(in_suf, suf[k], ids)
        mask = (j < total[:, None]).long()
        if word_of is None:
            return ids, mask
        words = torch.where(body, word_of.gather(1, src), torch.full_like(ids, -1))
        return ids, mask, words

    def original_inputs(self, rows):
        """Model inputs of the texts ``rows`` (a LongTensor), unchanged."""
        return self.with_specials(self.content[rows], self.content_lengths[rows])

    def words_only_inputs(self, rows):
        """``(input_ids, attention_mask, word index per position)`` of the words of ``rows`` tokenized on their
        own (as ``tokenizer(words, is_split_into_words=True, truncation=True, max_length=...)`` gives them)."""
        return self.with_specials(
            self.words_only[rows], self.words_only_lengths[rows], word_of=self.word_of_token[rows]
        )

    def edited_content(self, rows, word_index, table, surface_index):
        """Content rows of ``rows`` with word ``word_index`` replaced by ``table``'s surface ``surface_index``
        in the spelling of the word it replaces (all LongTensors of one length on the device).

        Returns ``(content, lengths)``. Rows whose sentence is not ``separable`` are rewritten as text and
        tokenized (the only host round trip, and only for such rows)."""
        span = self.spans[rows, word_index]
        cases = self.cases[rows, word_index]
        new, new_len = table.tokens(cases, surface_index)
        content, lengths = splice(
            self.content[rows], self.content_lengths[rows], span[:, 0], span[:, 1], new.clamp(min=0), new_len
        )
        odd = [k for k, r in enumerate(rows.tolist()) if not self.separable[r]] if not self.separable.all() else []
        if not odd:
            return content, lengths
        rows_l, wi_l, si_l = rows.tolist(), word_index.tolist(), surface_index.tolist()
        redo = []
        for k in odd:
            at = AttackedText(self.texts[rows_l[k]])
            if wi_l[k] >= len(at.words) or not table.words:  # nothing to write (the caller drops such a row)
                redo.append(content[k, : int(lengths[k])].tolist())
                continue
            text = at.replace_word_at_index(wi_l[k], spelled(table.words[si_l[k]], case_of(at.words[wi_l[k]]))).text
            redo.append(self.clf.tokenizer(text, add_special_tokens=False)["input_ids"])
        width = max(content.shape[1], max(len(r) for r in redo))
        content = torch.nn.functional.pad(content, (0, width - content.shape[1]), value=0)
        fixed, present = pad_right(redo)
        content[odd] = torch.nn.functional.pad(fixed, (0, width - fixed.shape[1]), value=0).to(content.device)
        lengths[odd] = present.sum(1).to(content.device)
        return content, lengths
