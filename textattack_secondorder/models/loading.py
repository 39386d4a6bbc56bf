"""A TextAttack model wrapper from the names users type: demo victims, model folders, ``file.py^variable``."""

import os

from textattack.shared.utils import load_module_from_file

from ..shared.device import resolve_device, torch_dtype
from .victims import VICTIMS, load_model_and_tokenizer, load_victim
from .wrappers import SOModelWrapper


def load_model_wrapper(spec, device=None, batch_size=64, dtype=None):
    """A TextAttack ``ModelWrapper`` for ``spec`` (see :data:`~..shared.specs.MODEL_SPEC_HELP`) on ``device``,
    in ``dtype`` (default float32; :func:`~..shared.device.torch_dtype`). A wrapper from a ``.py`` file is used
    as the file builds it, moved to ``device`` / cast to ``dtype`` only when they are given."""
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
        wrapper = getattr(module, name)
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
    if not os.path.isdir(spec) and spec.startswith("mr-"):
        raise ValueError(f"unknown demo victim {spec!r}; valid: {', '.join(VICTIMS)}")
    # a local Hugging Face directory (our saved victims included) or, online, a hub model id
    model, tokenizer = load_model_and_tokenizer(spec, dtype)
    return SOModelWrapper(model, tokenizer, device=device, batch_size=batch_size)
