"""The robustness index and the evaluation of a model on perturbed sets (docs/design/meaning.md).

FlagEval's RB-index is the average relative accuracy drop over the ``T`` perturbed sets::

    RB = (1/T) Σ_{i=1..T} (Acc_org − Acc_dist_i) / Acc_org

smaller is more robust, and it can be negative. Each set also gets its mean
source-side chrF ``s_src(x, x̂)`` (docs/design/meaning.md) so the accuracy drop can be
read against how much the texts were changed.
"""

import logging

import numpy as np

from ...models.prediction import predict_labels
from ...models.probe import model_label_names
from ...shared.label_names import readable_names
from ..meaning import source_chrf
from .result import PerturbedSet, RobustnessReport, set_name
from .sets import load_part, part_key, part_path, save_part

logger = logging.getLogger(__name__)


def robustness_index(acc_original, accuracies):
    """FlagEval's RB-index: ``RB = (1/T) Σ_i (Acc_org − Acc_i) / Acc_org`` (docs/design/meaning.md).

    Args:
        acc_original: accuracy on the original set (> 0).
        accuracies: accuracies on the ``T`` perturbed sets.
    Returns the mean relative accuracy drop: 0 = unaffected, 1 = every set at 0 accuracy,
    negative when the model does better on perturbed sets.
    """
    accuracies = [float(a) for a in accuracies]
    if not accuracies:
        raise ValueError("robustness_index needs at least one perturbed set")
    acc_original = float(acc_original)
    if acc_original <= 0:
        raise ValueError("Acc_org must be positive: the relative drop is undefined when the model is never right")
    return float(np.mean([(acc_original - a) / acc_original for a in accuracies]))


def accuracy(predictions, labels):
    """Share of ``predictions`` equal to ``labels`` (NaN for no labels)."""
    if not labels:
        return float("nan")
    return float(np.mean([int(p) == int(y) for p, y in zip(predictions, labels)]))


def make_set(perturbation, texts):
    """The :class:`PerturbedSet` of ``perturbation`` (``texts -> perturbed texts``, with ``level``, ``method``
    and ``settings()``) applied to ``texts``."""
    logger.info("building the %s set (%s) for %d texts", perturbation.level, perturbation.method, len(texts))
    perturbed = perturbation(list(texts))
    return PerturbedSet(
        set_name(perturbation.level, perturbation.method),
        perturbation.level,
        perturbation.method,
        perturbed,
        perturbation.settings(),
    )


def _row(s, texts, labels, predictions, acc_org):
    acc = accuracy(predictions, labels)
    chrfs = [source_chrf(o, p) for o, p in zip(texts, s.texts)]
    changed = [c for c, o, p in zip(chrfs, texts, s.texts) if o != p]
    return {
        "set": s.name,
        "level": s.level,
        "method": s.method,
        "examples": len(s.texts),
        "changed_pct": 100.0 * float(np.mean([o != p for o, p in zip(texts, s.texts)])) if texts else 0.0,
        "accuracy": acc,
        "accuracy_drop": acc_org - acc,
        "relative_drop": (acc_org - acc) / acc_org if acc_org > 0 else float("nan"),
        "mean_chrf": float(np.mean(chrfs)) if chrfs else float("nan"),
        "std_chrf": float(np.std(chrfs)) if chrfs else float("nan"),
        "mean_chrf_changed": float(np.mean(changed)) if changed else float("nan"),
    }


def evaluate_sets(model_wrapper, texts, labels, sets, batch_size=64, settings=None, skipped_levels=None):
    """Accuracy and mean chrF of every set, and the RB-index over the perturbed ones (a :class:`RobustnessReport`)."""
    labels = [int(y) for y in labels]
    preds = {"original": predict_labels(model_wrapper, texts, batch_size, desc="original")}
    acc_org = accuracy(preds["original"], labels)
    rows = [
        {
            "set": "original",
            "level": "original",
            "method": "",
            "examples": len(texts),
            "changed_pct": 0.0,
            "accuracy": acc_org,
            "accuracy_drop": 0.0,
            "relative_drop": 0.0,
            "mean_chrf": 1.0,
            "std_chrf": 0.0,
            "mean_chrf_changed": float("nan"),
        }
    ]
    for s in sets:
        preds[s.name] = predict_labels(model_wrapper, s.texts, batch_size, desc=s.name)
        rows.append(_row(s, texts, labels, preds[s.name], acc_org))
    rb = robustness_index(acc_org, [r["accuracy"] for r in rows[1:]]) if sets and acc_org > 0 else float("nan")
    names = readable_names(model_label_names(model_wrapper))
    return RobustnessReport(
        list(texts), labels, list(sets), rows, preds, rb, dict(settings or {}), dict(skipped_levels or {}), names
    )


def make_or_reuse_set(perturbation, texts, labels, parts_dir=None):
    """:func:`make_set`, saving the finished set under ``parts_dir`` and reusing one saved there under the
    same content key (:func:`~.sets.part_key`; docs/design/hostile-input.md). Returns ``(set, reused)``."""
    if parts_dir is None:
        return make_set(perturbation, texts), False
    path = part_path(
        parts_dir, set_name(perturbation.level, perturbation.method), part_key(perturbation, texts, labels)
    )
    saved = load_part(path)
    if saved is not None:
        logger.warning("reusing the %s set an earlier run saved in %s", saved.name, path)
        return saved, True
    made = make_set(perturbation, texts)
    save_part(path, made)
    return made, False


def run_robustness(
    model_wrapper, examples, perturbations, batch_size=64, settings=None, skipped_levels=None, parts_dir=None
):
    """Build each perturbed set of ``examples`` (list of ``(text, label)``) and evaluate ``model_wrapper`` on all.

    ``perturbations``: callables ``texts -> perturbed texts`` with ``level``, ``method`` and
    ``settings()`` (``CharPerturbation``, ``WordPerturbation``, ``BackTranslation``,
    ``AdversarialPerturbation``). With ``parts_dir`` each finished set is saved there at once and
    a rerun reuses it (:func:`make_or_reuse_set`). Returns a :class:`RobustnessReport`.
    """
    texts = [t for t, _ in examples]
    labels = [y for _, y in examples]
    if any(y is None for y in labels):
        raise ValueError("the robustness report needs gold labels (a CSV with a label column, or 'mr')")
    sets = [make_or_reuse_set(p, texts, labels, parts_dir)[0] for p in perturbations]
    settings = dict(settings or {})
    for s in sets:
        settings[s.name] = s.settings  # adversarial counts are known only after the run
    return evaluate_sets(model_wrapper, texts, labels, sets, batch_size, settings, skipped_levels)
