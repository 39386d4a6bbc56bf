"""Device choice shared by the victim wrapper and the word proposers: TextAttack's rule."""

import os

import torch

from .specs import DTYPES


def resolve_device(device=None):
    """``device`` if given, else ``$TA_DEVICE``, else CUDA when available, else CPU (as TextAttack decides).

    Does not import TextAttack, so the proposers stay usable without it.
    """
    if device is not None:
        return torch.device(device)
    return torch.device(os.environ.get("TA_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu"))


def native_bfloat16(device=None):
    """Whether ``device`` computes in bfloat16 at full speed: a CUDA device that supports it, or a CPU whose oneDNN
    kernels do (AVX-512 and later). On an AVX2-only CPU bfloat16 arithmetic is emulated: Gemma-3-270M's scores took
    4.5x the CPU time of float32 there (docs/design/offline-resources.md)."""
    device = resolve_device(device)
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    if device.type == "cpu":
        try:
            return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
        except (AttributeError, RuntimeError):  # a torch without the check: assume emulation
            return False
    return False


# the names --dtype and the loaders accept, spelt the ways users spell them (DTYPES: the canonical ones)
_DTYPE_NAMES = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16"}
_DTYPE_NAMES.update({"float16": "float16", "fp16": "float16", "half": "float16"})


def torch_dtype(dtype=None):
    """``torch.float32`` for ``None``; else the torch dtype named ``dtype`` (float32, bfloat16, float16).

    Every model this package loads is loaded in this precision (``from_pretrained(..., dtype=...)``): a
    checkpoint saved in float16 (transformers 5 keeps a checkpoint's precision unless told) still runs in
    float32 unless half precision is asked for (``--dtype``).
    """
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype or torch.float32
    key = str(dtype).lower().replace("torch.", "")
    if key not in _DTYPE_NAMES:
        raise ValueError(f"unknown dtype {dtype!r}; use {', '.join(DTYPES)}")
    return getattr(torch, _DTYPE_NAMES[key])
