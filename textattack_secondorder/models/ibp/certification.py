"""Certified accuracy: which sentences no combination of synonym swaps can flip (docs/design/certified.md).

A sentence is *certified* when the interval bounds of :mod:`.bounds` (``eps = 1``) prove that every
sentence of its perturbation set (:mod:`.substitutions`: each token kept or swapped for a neighbour)
gets the model's prediction on it: the lower bound of ``z_pred - z_j`` is above :data:`TOLERANCE` for
every other class ``j``. *Certified accuracy* is the share of sentences that are both classified
correctly and certified (Jia et al. 2019).
"""

import time

import torch
from tqdm.auto import tqdm

from .bounds import certified_margins, check_boundable
from .substitutions import SubstitutionSets, batch_choices

#: a margin must clear this (in logits) to count: the bounds are computed with other float32 operations
#: than the model's forward pass (a conv as a sum of matrix products), which round differently
TOLERANCE = 1e-4
BATCH_SIZE = 64


def certify_texts(model, sets, texts, batch_size=BATCH_SIZE, progress=False):
    """Per text: ``(prediction, certified, margin)``; ``margin`` is the smallest lower bound of
    ``z_pred - z_j`` over the other classes (positive above :data:`TOLERANCE`: certified).

    ``sets`` is the :class:`SubstitutionSets` of the model's tokenizer and the synonym list.
    """
    check_boundable(model)
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    out = []
    try:
        with torch.no_grad():
            for start in tqdm(range(0, len(texts), batch_size), desc="certify", disable=not progress, leave=False):
                rows = [sets.encode_text(t) for t in texts[start : start + batch_size]]
                input_ids, attention_mask, choice_ids = (x.to(device) for x in batch_choices(rows, sets.pad_id))
                logits = model(input_ids=input_ids, attention_mask=attention_mask).logits.float()
                pred = logits.argmax(1)
                margins = certified_margins(model, choice_ids, attention_mask, pred).float()
                margins[torch.arange(len(pred), device=device), pred] = float("inf")
                low = margins.min(1).values
                for p, m in zip(pred.tolist(), low.tolist()):
                    out.append((p, m > TOLERANCE, m))
    finally:
        model.train(was_training)
    return out


def certified_accuracy(model, sets, data, batch_size=BATCH_SIZE):
    """``(accuracy, certified accuracy)`` of ``[(text, label)]``."""
    if not data:
        return float("nan"), float("nan")
    rows = certify_texts(model, sets, [t for t, _ in data], batch_size)
    correct = [p == y for (p, _, _), (_, y) in zip(rows, data)]
    certified = [c and ok for (_, c, _), ok in zip(rows, correct)]
    return sum(correct) / len(data), sum(certified) / len(data)


def certify(model, tokenizer, examples, synonyms=None, batch_size=BATCH_SIZE, progress=True):
    """The ``certify`` command's result for ``[(text, label)]``: ``{"summary", "examples"}``.

    ``summary``: ``n``, ``accuracy`` and ``certified_accuracy`` (shares of all ``n`` examples, 0-1),
    ``certified`` (share whose prediction is certified, right or wrong), ``seconds_per_example``.
    ``examples``: ``text``, ``label``, ``prediction``, ``correct``, ``certified``, ``margin`` (the
    certificate's worst lower bound of ``z_pred - z_j``), ``positions`` and ``combinations`` (how many
    sentences the certificate covers, the sentence itself included).
    """
    check_boundable(model)
    sets = SubstitutionSets(tokenizer, synonyms)
    start = time.perf_counter()
    texts = [t for t, _ in examples]
    rows = certify_texts(model, sets, texts, batch_size, progress=progress)
    seconds = time.perf_counter() - start
    out = []
    for (text, label), (pred, cert, margin) in zip(examples, rows):
        _, choices = sets.encode_text(text)
        combinations = 1
        for c in choices:
            combinations *= len(c)
        if combinations >= 2**53:  # past what a JSON reader keeps exactly (and past int64 for pandas)
            combinations = float(combinations)
        out.append(
            {
                "text": text,
                "label": label,
                "prediction": pred,
                "correct": pred == label,
                "certified": bool(cert),
                "margin": round(margin, 6),
                "positions": len(choices),
                "combinations": combinations,
            }
        )
    n = len(out)
    summary = {
        **shares(out),
        "seconds_per_example": round(seconds / n, 5) if n else None,
        "synonyms": sets.synonyms.source,
    }
    return {"summary": summary, "examples": out}


def shares(examples):
    """``n``, ``accuracy``, ``certified_accuracy`` and ``certified`` of a certificate's ``examples`` (shares of all)."""
    n = len(examples)
    return {
        "n": n,
        "accuracy": sum(r["correct"] for r in examples) / n if n else None,
        "certified_accuracy": sum(r["correct"] and r["certified"] for r in examples) / n if n else None,
        "certified": sum(r["certified"] for r in examples) / n if n else None,
    }
