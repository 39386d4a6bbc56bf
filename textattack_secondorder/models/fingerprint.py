"""A digest naming a model's weights and vocabulary: the model part of every content key (docs/design/single-word.md,
docs/design/sharding.md).

The wrapper's class, every tensor of its ``model.state_dict()`` (name, dtype, shape, bytes)
and the tokenizer's vocabulary; retraining, another checkpoint or another vocabulary gives
another digest, and the same model loaded in another process gives the same one (a class
defined in a ``--model-from-file`` ``.py`` lives in a module TextAttack names ``temp_<time>``
on every load: that name counts as ``temp``). A wrapper without a torch model is fingerprinted by its outputs on fixed
probe texts. Used by the κ cache and by the shard keys of sharded runs; :func:`spec_fingerprint`
names the files behind a model spec without loading it (the gate's content keys, sweep shards).
"""

import json
import os
import re
from pathlib import Path

import numpy as np

from ..resources.paths import cache_dir
from ..shared.digest import Digest
from ..shared.files import atomic_write_text
from .victims import METRICS_FILE, VICTIMS, victim_path

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


def _hash_model(h, model_wrapper):
    """Add the model's class, its tensors (or its outputs on fixed probe texts) and its vocabulary to ``h``."""
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
    return h


def model_fingerprint(model_wrapper):
    """Hex digest naming the model's weights and vocabulary (see the module docstring)."""
    return _hash_model(Digest(f"{_class_name(model_wrapper)}|".encode()), model_wrapper).hexdigest()


def weights_fingerprint(model_wrapper):
    """Hex digest of the model alone: :func:`model_fingerprint` without the wrapper's class, so the same folder
    loaded by ``textattack-so`` and by the stock ``textattack attack`` (another wrapper) gets the same digest. What a
    κ file records of its model (docs/design/single-word.md)."""
    return _hash_model(Digest(b"weights|"), model_wrapper).hexdigest()


def file_digest(path, memo_dir=None):
    """SHA-256 of a file's bytes, remembered under its path, size and modification time in
    ``memo_dir`` (default: the package cache's ``file_digests/``), so an unchanged file is read once:
    a re-judge of the gate stays well under a second for a model of hundreds of MB, and a fresh
    checkout or copy of the same file (new modification time) gets the same digest."""
    path = Path(path)
    st = os.stat(path)
    memo_dir = Path(memo_dir) if memo_dir is not None else cache_dir("file_digests")
    memo = memo_dir / Digest(f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}").hexdigest(32)
    try:
        return memo.read_text().strip()
    except OSError:
        pass
    h = Digest()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    try:
        memo_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(memo, digest)
    except OSError:  # a read-only cache: the digest is still right, only not remembered
        pass
    return digest


# A demo victim's training record (its seconds, dev figures, device) sits in the model's folder but is not the
# model: retraining bit-identical weights writes another one on every run.
TRAINING_RECORDS = frozenset({METRICS_FILE})


def spec_path(spec):
    """The file or folder behind a model spec on this machine (a ``.py`` file, a folder, a demo victim's folder),
    ``None`` for a hub id, an unknown name or a demo victim not trained here."""
    path = Path(str(spec).split("^")[0])
    if not path.exists() and spec in VICTIMS:
        path = Path(victim_path(spec))
    return path if path.exists() else None


def spec_fingerprint(spec):
    """Digest of the files behind a model spec (a ``.py`` file, a folder, a demo victim's folder), without
    loading the model: the names and contents of the files (:func:`file_digest`), a folder's
    :data:`TRAINING_RECORDS` left out. A model retrained to other weights or replaced under the same name gets a
    new digest; the same files copied or checked out elsewhere, or the same weights trained again, get the same
    one. ``""`` for a hub id or unknown name.
    """
    path = spec_path(spec)
    if path is None:
        return ""
    if path.is_file():
        files = [path]
    else:
        files = sorted(
            p for p in path.rglob("*") if p.is_file() and p.relative_to(path).as_posix() not in TRAINING_RECORDS
        )
    h = Digest()
    for f in files:
        h.update(f"{f.relative_to(path) if path.is_dir() else f.name}|{file_digest(f)}\n".encode())
    return h.hexdigest(20)
