"""Device choice shared by the victim wrapper and the word proposers: TextAttack's rule."""

import os


def resolve_device(device=None):
    """``device`` if given, else ``$TA_DEVICE``, else CUDA when available, else CPU (as TextAttack decides).

    Does not import TextAttack, so the proposers stay usable without it.
    """
    import torch

    if device is not None:
        return torch.device(device)
    return torch.device(os.environ.get("TA_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu"))
