"""Victim models of textattack-secondorder.

* :func:`load_victim` / :func:`victim_dir` / :func:`train_victim`: the demo victims
  ``mr-cnn``, ``mr-lstm``, ``mr-bow`` (Zhang et al. 2021 base models: frozen GloVe
  50d + one hidden layer of 100) and ``mr-minilm`` (fine-tuned all-MiniLM-L6-v2),
  trained on first use and cached as Hugging Face model directories.
* :class:`SOModelWrapper`: TextAttack model wrapper that pads per batch, not to 512.
* :class:`TokenClassifier`: token-level view (ids, probabilities, masked gradients) for κ/ρ and SP-Defense.
* :mod:`.prediction`: the batched prediction loop (model wrappers and raw Hugging Face models).
* :func:`load_model_wrapper`: a model wrapper from a name the command line accepts.
* :func:`model_fingerprint`: content digest of a victim (keys of the parts interrupted runs reuse).
* :func:`register_auto_classes`: lets ``AutoModelForSequenceClassification`` (and
  ``textattack attack --model DIR``) load the word-level models.

Attributes are imported lazily: importing this package does not import torch.
"""

import importlib

_LAZY = {
    "register_auto_classes": "word_models",
    "build_word_model": "word_models",
    "build_word_tokenizer": "word_models",
    "SOModelWrapper": "wrappers",
    "load_victim": "victims",
    "victim_dir": "victims",
    "train_victim": "victims",
    "read_metrics": "victims",
    "is_trained": "victims",
    "VICTIMS": "victims",
    "UnknownVictimError": "victims",
    "TokenClassifier": "token_classifier",
    "GradientAccessError": "token_classifier",
    "model_fingerprint": "fingerprint",
    "load_model_wrapper": "loading",
    "predict_probabilities": "prediction",
    "predict_labels": "prediction",
    "predict_logits": "prediction",
    "to_probabilities": "prediction",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
