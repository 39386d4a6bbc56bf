"""Batched prediction: the one loop every evaluation uses to ask a model about many texts.

Two levels, one loop each:

* :func:`predict_probabilities` / :func:`predict_labels` call a TextAttack ``ModelWrapper``
  (anything ``list[str] -> scores``) in batches and turn its outputs into probabilities
  with :func:`to_probabilities` (logits or probabilities, numpy/torch/list accepted).
* :func:`predict_logits` runs a Hugging Face ``(model, tokenizer)`` pair directly, padding
  each batch to its longest text (training, κ/ρ and SP-Defense use it).
"""

import numpy as np
import torch
from tqdm.auto import tqdm


def to_probabilities(outputs, expected_rows=None):
    """Model outputs (logits or probabilities, numpy/torch/list) -> float64 numpy probabilities.

    Raises ``ValueError`` naming the problem when the shape is not (rows, classes).
    """
    if hasattr(outputs, "detach"):
        outputs = outputs.detach().cpu().numpy()
    arr = np.asarray(outputs, dtype=np.float64)
    if arr.ndim != 2 or (expected_rows is not None and arr.shape[0] != expected_rows):
        raise ValueError(
            f"model returned an array of shape {arr.shape}; expected ({expected_rows or 'n'}, num_classes) "
            "scores for a list of texts"
        )
    if arr.shape[1] < 2:
        raise ValueError(f"model returned {arr.shape[1]} score(s) per text; a classifier needs at least 2 classes")
    if not (np.all(arr >= 0) and np.allclose(arr.sum(1), 1.0, atol=1e-4)):
        arr = arr - arr.max(1, keepdims=True)
        arr = np.exp(arr)
        arr /= arr.sum(1, keepdims=True)
    return arr


def predict_probabilities(model_wrapper, texts, batch_size=64, desc=None):
    """Probabilities of a TextAttack model wrapper for ``texts``, ``batch_size`` texts per call.

    ``desc`` shows a progress bar with that label when there is more than one batch.
    Returns an array of shape ``(len(texts), num_classes)`` (``(0, 0)`` for no texts).
    """
    texts = list(texts)
    starts = range(0, len(texts), int(batch_size))
    if desc is not None and len(starts) > 1:
        starts = tqdm(starts, desc=desc, leave=False, dynamic_ncols=True)
    out = []
    for s in starts:
        batch = texts[s : s + int(batch_size)]
        out.append(to_probabilities(model_wrapper(batch), len(batch)))
    return np.concatenate(out) if out else np.zeros((0, 0))


def predict_labels(model_wrapper, texts, batch_size=64, desc=None):
    """``argmax`` of :func:`predict_probabilities` as a list of ints."""
    probs = predict_probabilities(model_wrapper, texts, batch_size, desc)
    return [int(i) for i in probs.argmax(axis=1)] if len(probs) else []


def predict_logits(model, tokenizer, texts, batch_size=128, max_length=None, device=None):
    """Logits of a Hugging Face ``model`` for ``texts`` (padded per batch), in eval mode; a CPU tensor."""
    model.eval()
    device = device or next(model.parameters()).device
    max_length = max_length or tokenizer.model_max_length
    out = []
    with torch.no_grad():
        for i in range(0, len(texts), batch_size):
            enc = tokenizer(
                list(texts[i : i + batch_size]),
                padding="longest",
                truncation=True,
                max_length=max_length,
                return_tensors="pt",
            ).to(device)
            out.append(model(**enc).logits.float().cpu())
    if not out:
        return torch.zeros((0, model.config.num_labels))
    return torch.cat(out)
