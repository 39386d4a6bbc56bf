"""Proposer on any Hugging Face ``AutoModelForMaskedLM`` (the paper's choice: ``distilbert-base-uncased``)."""

import os

import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer

from ...shared.device import torch_dtype
from ...shared.padding import pad_right
from .base import (
    DEFAULT_TOP_K,
    MaskedScoring,
    TokenNormalizer,
    WordProposer,
    flatten_requests,
    masked_text,
    resolve_dtype,
    topk_rows,
)


class MaskedLMProposer(MaskedScoring, WordProposer):
    """Proposer on any ``AutoModelForMaskedLM`` (the paper uses ``distilbert-base-uncased``).

    Each requested position gets its own input: the sentence with word ``i`` replaced by
    ONE mask token, even when the word tokenises into several pieces ("unwatchable" →
    ``un ##watch ##able`` becomes a single ``[MASK]``), so that the candidates are single
    tokens proposed for the whole word. All masked inputs of all sentences are batched
    (``batch_size`` at a time, padded to the longest input of the batch).

    Args:
        model: a model id, a local path, or an already loaded ``PreTrainedModel``.
        tokenizer: tokenizer (required when ``model`` is an object without
            ``name_or_path`` pointing to one).
        max_words: sentences longer than this are windowed around the masked word.
    """

    name = "masked-lm"
    context_only = True

    def __init__(
        self, model, tokenizer=None, device=None, batch_size=64, max_words=200, local_files_only=None, dtype=None
    ):
        super().__init__(device=device, batch_size=batch_size)
        self.dtype = resolve_dtype(dtype, self.device)
        kw = {}
        if local_files_only is not None:
            kw["local_files_only"] = local_files_only
        if isinstance(model, (str, os.PathLike)):
            self.model_name = str(model)
            self.model = AutoModelForMaskedLM.from_pretrained(self.model_name, dtype=torch_dtype(), **kw)
        else:
            self.model = model
            self.model_name = getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__
        if tokenizer is None:
            tokenizer = AutoTokenizer.from_pretrained(self.model_name, **kw)
        elif isinstance(tokenizer, (str, os.PathLike)):
            tokenizer = AutoTokenizer.from_pretrained(str(tokenizer), **kw)
        if tokenizer.mask_token_id is None:
            raise ValueError(f"tokenizer of {self.model_name} has no mask token")
        self.tokenizer = tokenizer
        self.model.to(self.device, self.dtype).eval()
        self.max_words = int(max_words)
        self._decode = TokenNormalizer(tokenizer)
        self._max_len = min(
            int(getattr(tokenizer, "model_max_length", 512) or 512),
            int(getattr(self.model.config, "max_position_embeddings", 512) or 512),
        )

    def extra_repr(self):
        return f"model={self.model_name!r}, " + super().extra_repr()

    def propose(self, sentences, positions, top_k=DEFAULT_TOP_K):
        reqs = flatten_requests(sentences, positions)
        out = [[None] * len(p) for p in positions]
        mask_id = self.tokenizer.mask_token_id
        for b in range(0, len(reqs), self.batch_size):
            chunk = reqs[b : b + self.batch_size]
            texts = [masked_text(sentences[s], i, self.tokenizer.mask_token, self.max_words) for s, _, i in chunk]
            enc = self.tokenizer(texts, padding=True, truncation=True, max_length=self._max_len, return_tensors="pt")
            ids = enc["input_ids"]
            is_mask = ids == mask_id
            if not bool(is_mask.any(dim=1).all()):
                raise ValueError("a masked word was truncated away; lower max_words")
            # First mask token of each row (there is exactly one unless the text contains one).
            mask_pos = is_mask.float().argmax(dim=1)
            with torch.no_grad():
                rows = self._mask_logits(enc, mask_pos).float().cpu()
            for (s, j, _), cands in zip(chunk, topk_rows(rows, top_k, self._decode)):
                out[s][j] = cands
        return out

    def _mask_logits(self, enc, mask_pos):
        """Vocabulary logits at the mask position of each row of a tokenised batch."""
        return self._position_logits(enc["input_ids"], enc["attention_mask"], torch.arange(len(mask_pos)), mask_pos)

    def _position_logits(self, input_ids, attention_mask, rows, cols):
        """Vocabulary logits at ``(rows[k], cols[k])`` of a padded batch."""
        logits = self.model(input_ids=input_ids.to(self.device), attention_mask=attention_mask.to(self.device)).logits
        return logits[rows.to(logits.device), cols.to(logits.device)]

    # -- sentence scores (MaskedScoring) ---------------------------------------
    @property
    def mask_id(self):
        return self.tokenizer.mask_token_id

    @property
    def max_tokens(self):
        return self._max_len

    @property
    def _special_ids(self):
        return set(self.tokenizer.all_special_ids)

    def _text(self, words):
        return " ".join(words)

    def _encode(self, texts):
        return self.tokenizer(list(texts), add_special_tokens=True)["input_ids"]

    def _log_probs(self, ids_lists, positions):
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        ids, am = pad_right(ids_lists, pad)
        rows = torch.tensor([r for r, pos in enumerate(positions) for _ in pos])
        cols = torch.tensor([p for pos in positions for p in pos])
        with torch.no_grad():
            lp = torch.log_softmax(self._position_logits(ids, am, rows, cols).float(), dim=-1).cpu()
        return list(torch.split(lp, [len(pos) for pos in positions]))
