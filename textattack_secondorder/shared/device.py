"""Device choice shared by the victim wrapper and the word proposers: TextAttack's rule."""

import os

# torch inside resolve_device: the CLI imports this module at parse time (through resources.proposers), and
# `textattack-so --help` must not import torch (0.5 s instead of ~20 s with TextAttack/torch, measured).


def resolve_device(device=None):
    """``device`` if given, else ``$TA_DEVICE``, else CUDA when available, else CPU (as TextAttack decides).

    Does not import TextAttack, so the proposers stay usable without it.
    """
    import torch

    if device is not None:
        return torch.device(device)
    return torch.device(os.environ.get("TA_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu"))
