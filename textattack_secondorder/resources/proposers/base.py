"""Base of the masked-LM slot's word proposers: one interface, normalised tokens, dtype choice.

Every proposer returns, for each requested word position, the ``top_k`` candidates as
``(token, score)`` pairs sorted by decreasing score, *before* any word filtering. Tokens are
normalised across tokenizer families: a piece that starts a word is returned as the bare word
(``"good"``), a continuation piece with a ``"##"`` prefix (``"##ing"``), special tokens as they
are (``"[SEP]"``); :meth:`WordProposer.is_word` then tells whole alphabetic words apart. The
neighbourhood rule that keeps some of them (κ/δ, docs/design/neighbours.md) lives with the
neighbourhood transformation (``transformations/neighborhood.py``).

Nothing here loads a model at import time.
"""

import re

import torch

from ...shared.device import resolve_device, torch_dtype

# Candidates per position unless the caller asks otherwise: κ + 1 for the paper's κ = 20, so
# the neighbourhood rule can read L[κ] (docs/design/neighbours.md).
DEFAULT_TOP_K = 21

WORD_PATTERN = re.compile(r"^[^\W\d_]+$")  # letters only (any script), no digits/underscore/punctuation


#: the names ``resolve_dtype`` takes (None: float32); a torch dtype is taken as well
MASKED_LM_DTYPES = (None, "float32", "fp32", "bfloat16", "bf16", "float16", "fp16", "auto")


def resolve_dtype(dtype, device):
    """Torch dtype for a masked LM: ``None``/``"float32"`` (default, exact), ``"bfloat16"``,
    ``"float16"`` (CUDA only) or ``"auto"`` (float16 on CUDA, bfloat16 on a CPU with native
    bfloat16 support, else float32). What bfloat16 gains and keeps, and why int8 is not offered:
    docs/design/offline-resources.md.
    """
    if isinstance(dtype, str) and dtype.lower() == "auto":
        if device.type == "cuda":
            return torch.float16
        bf16 = (
            getattr(torch.backends.mkldnn, "is_available", lambda: False)()
            and torch.ops.mkldnn._is_mkldnn_bf16_supported()
        )
        return torch.bfloat16 if bf16 else torch.float32
    try:
        dtype = torch_dtype(dtype)
    except ValueError:
        raise ValueError(f"unknown dtype {dtype!r}; use float32, bfloat16, float16 or auto") from None
    if dtype == torch.float16 and device.type != "cuda":
        raise ValueError("float16 needs a CUDA device; on a CPU use bfloat16 (or auto)")
    return dtype


class WordProposer:
    """Base class: candidate replacement words for masked positions.

    Args:
        device: torch device (default: CUDA if available, else CPU).
        batch_size: how many masked inputs (or sentences, for causal LMs) go through
            the model at once. Inputs are padded to the longest in the batch, never to
            the model maximum.
    """

    name = "word-proposer"
    #: True when the proposals for position i depend only on the sentence with word i
    #: masked (not on the word being replaced), so callers may cache them per masked sentence.
    context_only = False

    def __init__(self, device=None, batch_size=64):
        self.device = resolve_device(device)
        self.batch_size = int(batch_size)

    @classmethod
    def available(cls):
        """What keeps this proposer's default model from loading here ("" = nothing; nothing is loaded)."""
        return ""

    def propose(self, sentences, positions, top_k=DEFAULT_TOP_K):
        """Top-``top_k`` replacement tokens for each requested word position.

        Args:
            sentences: list of sentences, each a list of words.
            positions: for each sentence, the list of word indices to mask.
            top_k: candidates per position.

        Returns:
            ``out[s][j]`` = list of ``(token, score)`` for ``positions[s][j]``, sorted by
            decreasing score (higher is better; only differences matter).
        """
        raise NotImplementedError

    #: True when the proposer also scores whole sentences (:meth:`pseudo_log_likelihood`): the masked
    #: LMs do, the causal-LM proposer does not.
    scores_sentences = False

    def pseudo_log_likelihood(self, sentences):
        """Pseudo-log-likelihood of each sentence (a list of words): every token masked in turn,
        the log-probabilities of the true tokens added (Salazar et al. 2020; docs/design/patch-rules.md)."""
        raise NotImplementedError(f"the {self.name} proposer does not score sentences; use a masked LM")

    def is_word(self, token):
        """True if ``token`` is a whole alphabetic word (not a sub-word piece or special token)."""
        return bool(token) and not token.startswith("##") and bool(WORD_PATTERN.match(token))

    def extra_repr(self):
        dtype = getattr(self, "dtype", None)
        shown = (
            f", dtype={str(dtype).replace('torch.', '')}" if dtype is not None and str(dtype) != "torch.float32" else ""
        )
        return f"device={self.device}, batch_size={self.batch_size}" + shown

    def __repr__(self):
        return f"{type(self).__name__}({self.extra_repr()})"


def topk_rows(scores, k, decode):
    """Top-k of each row of a 2-D tensor as lists of (token, float)."""
    k = min(k, scores.shape[-1])
    vals, idx = torch.topk(scores, k, dim=-1)
    vals = vals.tolist()
    idx = idx.tolist()
    return [[(decode(i), v) for i, v in zip(ri, rv)] for ri, rv in zip(idx, vals)]


def flatten_requests(sentences, positions):
    if len(sentences) != len(positions):
        raise ValueError("sentences and positions must have the same length")
    reqs = []
    for s, (words, pos) in enumerate(zip(sentences, positions)):
        for j, i in enumerate(pos):
            if not 0 <= i < len(words):
                raise IndexError(f"position {i} outside sentence {s} of {len(words)} words")
            reqs.append((s, j, i))
    return reqs


def masked_text(words, i, mask, max_words):
    """The input of a masked-LM proposer for word ``i``: ``words`` with word ``i`` replaced by ONE ``mask``
    token, joined by spaces; a sentence longer than ``max_words`` is cut to a window of ``max_words``
    words around ``i`` (shifted inwards at either end)."""
    lo = max(0, i - max_words // 2)
    hi = min(len(words), lo + max_words)
    lo = max(0, hi - max_words)
    ws = list(words[lo:hi])
    ws[i - lo] = mask
    return " ".join(ws)


class TokenNormalizer:
    """Maps vocabulary ids to normalised strings: word starts bare, continuations ``##``-prefixed."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        vocab = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        special = set(tokenizer.all_special_tokens)
        has_wordpiece = any(t is not None and t.startswith("##") for t in vocab[:50000])
        has_bpe_space = sum(1 for t in vocab[:50000] if t and t.startswith("\u0120")) > 100
        has_sp_space = sum(1 for t in vocab[:50000] if t and t.startswith("\u2581")) > 100
        out = []
        for t in vocab:
            if t is None:
                out.append("")
            elif t in special or (t.startswith("<") and t.endswith(">")) or (t.startswith("[") and t.endswith("]")):
                out.append(t)
            elif has_wordpiece:
                out.append(t)
            elif has_bpe_space or has_sp_space:
                mark = "\u0120" if has_bpe_space else "\u2581"
                out.append(t[len(mark) :] if t.startswith(mark) else "##" + t)
            else:
                out.append(t)
        self.strings = out

    def __call__(self, i):
        return self.strings[i] if i < len(self.strings) else ""


class MaskedScoring:
    """:meth:`WordProposer.pseudo_log_likelihood` for a masked LM.

    A subclass provides ``mask_id``, ``max_tokens``, ``_special_ids`` (ids never scored),
    ``_text(words)`` (the words as the model reads them), ``_encode(texts)`` (id lists with the
    special tokens) and ``_log_probs(ids_lists, positions)`` (log-softmax rows at the given positions
    of each input, batched, padded to the longest).
    """

    scores_sentences = True

    def pseudo_log_likelihood(self, sentences):
        masked, owner = [], []
        totals = [0.0] * len(sentences)
        for s, words in enumerate(sentences):
            ids = self._encode([self._text(words)])[0][: self.max_tokens]
            for t, x in enumerate(ids):
                if x not in self._special_ids:
                    copy = list(ids)
                    copy[t] = self.mask_id
                    masked.append((copy, [t]))
                    owner.append((s, x))
        order = sorted(range(len(masked)), key=lambda k: -len(masked[k][0]))  # longest first: little padding
        for b in range(0, len(order), self.batch_size):
            chunk = order[b : b + self.batch_size]
            rows = self._log_probs([masked[k][0] for k in chunk], [masked[k][1] for k in chunk])
            for k, lp in zip(chunk, rows):
                s, x = owner[k]
                totals[s] += float(lp[0, x])
        return totals
