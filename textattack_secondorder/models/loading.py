"""A TextAttack model wrapper from the names users type: demo victims, model folders, hub ids, ``file.py^variable``.

The one place that says why a Hugging Face classifier cannot be loaded (:func:`check_classifier_spec`): a
folder that is missing, one without ``config.json``, without a sequence-classification head or without
tokenizer files, a hub id while the hub cannot be reached. Both command lines print its
:class:`ModelLoadError` as one line and exit with code 2 (``textattack-so`` and, through the hook's
extension of TextAttack's ``ModelArgs``, the stock ``textattack attack --model-from-huggingface``).
"""

import json
import os

from textattack.shared.utils import load_module_from_file

from ..resources.resolution import hub_available, in_hf_cache
from ..shared.device import resolve_device, torch_dtype
from ..shared.errors import UsageError
from .catalogue import unknown_victim
from .victims import VICTIMS, load_model_and_tokenizer, load_victim
from .wrappers import SOModelWrapper, fast_model_wrapper

# what `save_pretrained` of a tokenizer writes, one of them at least (fast, WordPiece, BPE, SentencePiece)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json", "spiece.model")


class ModelLoadError(UsageError):
    """A model the user named cannot be loaded as a classifier (one line, exit code 2)."""


def _looks_like_path(spec):
    return spec.startswith(("/", "./", "../", "~")) or spec.endswith(("/", os.sep)) or os.sep + os.sep in spec


def check_classifier_spec(spec):
    """Raise :class:`ModelLoadError` (one line: the model and what is wrong) unless ``spec`` can be a Hugging
    Face sequence classifier: a folder with ``config.json`` of a ``...ForSequenceClassification`` model and
    tokenizer files, or a hub id that is cached or can be downloaded. Reads two small files; loads nothing."""
    path = os.path.expanduser(spec)
    if os.path.isdir(path):
        config_file = os.path.join(path, "config.json")
        if not os.path.isfile(config_file):
            raise ModelLoadError(
                f"model folder {spec!r} has no config.json: not a Hugging Face model folder "
                "(a model saved with save_pretrained has one)"
            )
        try:
            with open(config_file, encoding="utf-8") as f:
                architectures = json.load(f).get("architectures") or []
        except (OSError, ValueError) as e:
            raise ModelLoadError(f"model folder {spec!r}: config.json cannot be read: {e}") from None
        if architectures and not any(str(a).endswith("ForSequenceClassification") for a in architectures):
            raise ModelLoadError(
                f"model folder {spec!r} holds a {', '.join(architectures)} without a sequence-classification head: "
                "fine-tune it as a classifier (AutoModelForSequenceClassification) and save that"
            )
        if not any(os.path.isfile(os.path.join(path, name)) for name in TOKENIZER_FILES):
            raise ModelLoadError(
                f"model folder {spec!r} has no tokenizer files ({', '.join(TOKENIZER_FILES[:3])}, ...): save the "
                "tokenizer beside the model (tokenizer.save_pretrained(folder))"
            )
        return
    if os.path.exists(path):
        raise ModelLoadError(f"model {spec!r} is a file, not a Hugging Face model folder")
    if _looks_like_path(spec):
        raise ModelLoadError(f"model folder {spec!r} not found")
    if not in_hf_cache(spec) and not hub_available():
        raise ModelLoadError(
            f"{spec!r} is not a local folder, and the Hugging Face hub cannot be reached to load it as a model id "
            "(offline or HF_HUB_OFFLINE=1): give the path of a saved model folder"
        )


def load_error(spec, error):
    """The :class:`ModelLoadError` for ``error`` raised while loading ``spec``: one line naming both."""
    first = (str(error).strip().splitlines() or [""])[0]
    return ModelLoadError(f"cannot load model {spec!r}: {type(error).__name__}: {first}")


def load_classifier(spec, dtype=None):
    """``(model, tokenizer)`` of the Hugging Face classifier ``spec`` (folder or hub id), or
    :class:`ModelLoadError` saying in one line why not."""
    check_classifier_spec(spec)
    try:
        return load_model_and_tokenizer(os.path.expanduser(spec), dtype)
    except Exception as e:  # noqa: BLE001 - whatever transformers raises, the user gets one line naming the model
        raise load_error(spec, e) from e


def load_model_wrapper(spec, device=None, batch_size=64, dtype=None):
    """A TextAttack ``ModelWrapper`` for ``spec`` (see :data:`~..shared.specs.MODEL_SPEC_HELP`) on ``device``,
    in ``dtype`` (default float32; :func:`~..shared.device.torch_dtype`). A wrapper from a ``.py`` file is used
    as the file builds it (TextAttack's ``HuggingFaceModelWrapper`` swapped for the per-batch padding one:
    :func:`~.wrappers.fast_model_wrapper`), moved to ``device`` / cast to ``dtype`` only when they are given."""
    if not spec:
        raise ValueError("no model given")
    path, _, var = spec.partition("^")
    if path.endswith(".py"):
        if not os.path.exists(path):
            raise FileNotFoundError(f"model file {path!r} not found")
        module = load_module_from_file(path)
        name = var or "model"
        if not hasattr(module, name):
            raise ValueError(f"{path} defines no variable {name!r} (a TextAttack ModelWrapper)")
        wrapper = fast_model_wrapper(getattr(module, name), f"the model of {path}")
        model = getattr(wrapper, "model", None)
        if hasattr(model, "to") and dtype is not None:
            model.to(torch_dtype(dtype))
        if hasattr(model, "to") and device is not None:
            device = resolve_device(device)
            model.to(device)
            if hasattr(wrapper, "device"):
                wrapper.device = device
        return wrapper
    if spec in VICTIMS:
        return load_victim(spec, device=device, batch_size=batch_size, dtype=dtype)
    if unknown_victim(spec):
        raise ModelLoadError(unknown_victim(spec))
    # a local Hugging Face directory (our saved victims included) or, online, a hub model id
    model, tokenizer = load_classifier(spec, dtype)
    return SOModelWrapper(model, tokenizer, device=device, batch_size=batch_size)
