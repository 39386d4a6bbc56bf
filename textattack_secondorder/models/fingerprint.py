"""A digest naming a model's weights and vocabulary: the model part of every content key (docs/methods.md §2.3, §7).

The wrapper's class, every tensor of its ``model.state_dict()`` (name, dtype, shape, bytes)
and the tokenizer's vocabulary; retraining, another checkpoint or another vocabulary gives
another digest, and the same model loaded in another process gives the same one (a class
defined in a ``--model-from-file`` ``.py`` lives in a module TextAttack names ``temp_<time>``
on every load: that name counts as ``temp``). A wrapper without a torch model is fingerprinted by its outputs on fixed
probe texts. Used by the κ cache and by the shard keys of sharded runs.
"""

import json
import os
import re
from pathlib import Path

import numpy as np

from ..shared.digest import Digest
from .victims import VICTIMS, victim_path

FINGERPRINT_TEXTS = (
    "the film is good and the acting is fine .",
    "a dull , boring movie .",
    "not bad at all , a good watch",
    "one of the worst films of the year",
)


def _class_name(obj):
    """``module.qualname`` of ``obj``'s class, TextAttack's per-load ``temp_<time>`` module named ``temp``."""
    module = type(obj).__module__
    return f"{'temp' if re.fullmatch(r'temp_[0-9.]+', module) else module}.{type(obj).__qualname__}"


def _update_tensor(h, name, tensor):
    t = tensor.detach().cpu().contiguous()
    h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()  # bfloat16 has no numpy view
    h.update(t.numpy().tobytes() if t.numel() else b"")


def model_fingerprint(model_wrapper):
    """Hex digest naming the model's weights and vocabulary (see the module docstring)."""
    h = Digest(f"{_class_name(model_wrapper)}|".encode())
    model = getattr(model_wrapper, "model", None)
    state = None
    if model is not None and hasattr(model, "state_dict"):
        try:
            state = model.state_dict()
        except Exception:  # noqa: BLE001 - fall back to outputs
            state = None
    if state:
        h.update(f"{_class_name(model)}|".encode())
        for name in sorted(state):
            if hasattr(state[name], "detach"):
                _update_tensor(h, name, state[name])
    else:
        out = np.asarray(model_wrapper(list(FINGERPRINT_TEXTS)), dtype=np.float64)
        h.update(b"outputs|" + np.round(out, 6).tobytes())
    tokenizer = getattr(model_wrapper, "tokenizer", None)
    vocab = getattr(tokenizer, "get_vocab", None)
    if callable(vocab):
        try:
            h.update(json.dumps(sorted(vocab().items())).encode())
        except Exception:  # noqa: BLE001 - a tokenizer without a listable vocabulary
            pass
    return h.hexdigest()


def spec_fingerprint(spec):
    """Cheap digest of the files behind a model spec (a ``.py`` file, a folder, a demo victim's folder).

    Names, sizes and modification times of the files, without loading the model: a retrained or
    replaced model under the same name gets a new digest. ``""`` for a hub id or unknown name.
    """
    path = Path(str(spec).split("^")[0])
    if not path.exists():
        try:
            path = Path(victim_path(spec)) if spec in VICTIMS else path
        except Exception:  # noqa: BLE001 - not a demo victim
            return ""
    if not path.exists():
        return ""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    h = Digest()
    for f in files:
        st = os.stat(f)
        h.update(f"{f.relative_to(path) if path.is_dir() else f.name}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest(20)
