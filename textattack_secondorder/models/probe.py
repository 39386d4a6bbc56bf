"""One probe call on a victim before the long work starts (docs/design/hostile-input.md).

A model wrapper that returns NaN, the wrong number of rows or of columns, or raises,
would otherwise fail deep inside an attack or an evaluation, or silently give wrong
numbers. :func:`probe_model` calls it once on a few texts (the first examples, plus
ordinary sentences so that there are always two) and raises :class:`ModelProbeError`
naming the model and the shape or values it returned. :func:`check_outputs` is the
same check for any later call; :func:`screen_rows` probes once and drops the rows the
victim cannot take, as every long ``textattack-so`` command does.
"""

import numpy as np

from ..shared.errors import UsageError, UserError
from ..shared.inputs import bad_text_reason, screen_examples, skipped_summary_text

# Ordinary sentences every text classifier can take: the probe always has two rows.
PROBE_TEXTS = ("the film is good and the acting is fine .", "a dull , boring movie .")


class ModelProbeError(ValueError, UserError):
    """The victim's outputs cannot be used (names the model and what it returned)."""


def model_name(model_wrapper):
    """A short name of a model wrapper for messages: its class and the inner model's name or path."""
    inner = getattr(model_wrapper, "model", None)
    path = getattr(getattr(inner, "config", None), "_name_or_path", "") or ""
    inner_name = "" if inner is None else f" around {type(inner).__name__}" + (f" ({path})" if path else "")
    return f"{type(model_wrapper).__name__}{inner_name}"


def model_label_names(model_wrapper, num_classes=None):
    """The model's label names in class order (its ``config.id2label``), or ``None``.

    ``None`` when the wrapper has no Hugging Face config, when ``id2label`` is not keyed
    ``0 .. n-1``, or when it has another number of names than ``num_classes`` (the classes the
    probe counted). A model saved without names has ``LABEL_0``, ``LABEL_1`` ...; those are returned
    too, so that a refused name's reason shows what the model calls its classes.
    """
    inner = getattr(model_wrapper, "model", None)
    id2label = getattr(getattr(inner, "config", None), "id2label", None)
    if not isinstance(id2label, dict) or not id2label:
        return None
    try:
        by_id = {int(k): str(v) for k, v in id2label.items()}
    except (TypeError, ValueError):
        return None
    if sorted(by_id) != list(range(len(by_id))) or (num_classes is not None and len(by_id) != num_classes):
        return None
    return [by_id[i] for i in range(len(by_id))]


def _preview(arr, limit=6):
    flat = arr.reshape(-1)
    shown = ", ".join(f"{v:.4g}" for v in flat[:limit])
    return f"[{shown}{', ...' if flat.size > limit else ''}]"


def check_outputs(outputs, n_texts, name="the model", num_classes=None):
    """``outputs`` of one call on ``n_texts`` texts as a float array ``(n_texts, classes)``.

    Raises :class:`ModelProbeError` for outputs that are not numbers, not two-dimensional,
    with another number of rows, fewer than two columns (or not ``num_classes``), or with
    NaN/infinite values.
    """
    if isinstance(outputs, (list, tuple)) and outputs and hasattr(outputs[0], "detach"):
        outputs = [o.detach().cpu().numpy() for o in outputs]
    elif hasattr(outputs, "detach"):
        outputs = outputs.detach().cpu().numpy()
    try:
        arr = np.asarray(outputs, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ModelProbeError(
            f"{name} returned {type(outputs).__name__} outputs that are not an array of numbers ({e}); expected "
            f"scores of shape ({n_texts}, num_classes) for {n_texts} texts"
        ) from None
    if arr.ndim != 2 or arr.shape[0] != n_texts:
        raise ModelProbeError(
            f"{name} returned scores of shape {arr.shape} for {n_texts} texts; expected ({n_texts}, num_classes): "
            "one row per text, one column per class"
        )
    if arr.shape[1] < 2 or (num_classes is not None and arr.shape[1] != num_classes):
        want = "at least 2" if num_classes is None else str(num_classes)
        raise ModelProbeError(f"{name} returned {arr.shape[1]} column(s) per text; expected {want} (one per class)")
    bad = ~np.isfinite(arr)
    if bad.any():
        rows = sorted(set(np.nonzero(bad)[0].tolist()))
        raise ModelProbeError(
            f"{name} returned {int(bad.sum())} NaN/infinite score(s) in row(s) {rows} of {n_texts}: "
            f"{_preview(arr[rows[0]])}"
        )
    return arr


def probe_model(model_wrapper, texts=(), name=None):
    """Call ``model_wrapper`` once on the first ``texts`` (at most 2, completed with :data:`PROBE_TEXTS`).

    Returns the number of classes. Raises :class:`ModelProbeError` when the outputs are
    unusable or the model raises on the ordinary probe sentences. A model that raises
    only on the given texts passes (those rows are skipped later, with the error).
    """
    name = name or model_name(model_wrapper)
    given = [t for t in texts if isinstance(t, str)][:2]
    batch = given + list(PROBE_TEXTS[: max(0, 2 - len(given))])
    try:
        outputs = model_wrapper(batch)
    except Exception as e:  # noqa: BLE001 - tell which input makes it fail
        if given:
            try:
                outputs = model_wrapper(list(PROBE_TEXTS))
            except Exception:  # noqa: BLE001
                pass
            else:
                return check_outputs(outputs, len(PROBE_TEXTS), name).shape[1]
        raise ModelProbeError(f"{name} raised {type(e).__name__} on the probe texts {batch!r}: {e}") from e
    return check_outputs(outputs, len(batch), name).shape[1]


def screen_rows(examples, model=None, labelled=True, indexed=False, duplicates=True):
    """Probe the victim once, then drop the rows that cannot be used (docs/design/hostile-input.md) and say so.

    Returns ``(good [(text, label)], skipped [(row, text, label, reason)])`` (``indexed``: good as
    ``[(row, text, label)]``); a victim with unusable outputs raises ``ModelProbeError`` (one line,
    exit code 2). ``duplicates=False`` keeps a row that repeats an earlier one. Labels may be class numbers or
    the model's label names (:func:`model_label_names`);
    without a model, labels are checked for being class numbers only. No usable row at all is a
    ``UsageError`` (one line naming the reasons, exit code 2), before any work starts.
    """
    num_classes = names = None
    if model is not None:
        num_classes = probe_model(model, [t for t, _ in examples if not bad_text_reason(t)][:2])
        names = model_label_names(model, num_classes)
    good, skipped = screen_examples(examples, num_classes, labelled=labelled, duplicates=duplicates, label_names=names)
    if not good:
        raise UsageError(
            "no usable row: the data set is empty"
            if not examples
            else f"no usable row: all {len(examples)} rows were skipped ({skipped_summary_text(skipped)})"
        )
    if skipped:
        print(f"skipping {len(skipped)} of {len(examples)} rows for bad input ({skipped_summary_text(skipped)})")
    return (good if indexed else [(t, y) for _, t, y in good]), skipped
