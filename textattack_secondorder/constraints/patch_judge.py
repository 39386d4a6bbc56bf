"""The patch judge: would people call ``p2`` an appropriate substitute for ``p1`` in this sentence?
(docs/design/patch-rules.md)

A second-order finding is only a finding when its patch swap ``x ⊕ p`` keeps the meaning of ``x``.
The judge scores a one-word swap with a logistic regression over the signals of
:class:`.swap_signals.SwapSignals` (the causal LM's and the masked LM's view of the swap, WordNet
senses, the synonym list, the part of speech)::

    P(acceptable | x, p1, p2) = σ(b + Σ_k w_k · (s_k − μ_k) / σ_k)

fitted to human judgements of word substitutions in context (SWORDS, Lee et al. 2021, development
split; CC-BY-3.0-US) by ``scripts/fit_patch_judge.py``. The fitted weights ship as
``data/patch_judge.json``; the swap is kept when the probability is at least ``threshold``.

The file may hold a second logistic regression over the same signals, ``prefer``, fitted to blind readers of
MR pairs (``fit_patch_judge.py --fit-on mr``): it does not decide whether a swap is kept, only how sure the
judge is of a kept one (:meth:`PatchJudge.last_probability`), which the patch rule uses to pick the pair it
reports (docs/design/patch-rules.md).
"""

import json

import numpy as np
from textattack.constraints import Constraint

from ..resources.errors import ResourceError
from ..resources.paths import data_path
from .swap_signals import SIGNALS

JUDGE_FILE = "patch_judge.json"


class PatchJudgeFileError(ResourceError, ValueError):
    """The judge's weights file is missing or malformed."""


def read_judge(path=None):
    """The judge's weights (a dict) from ``path`` (default: the packaged file), checked."""
    path = data_path(JUDGE_FILE) if path is None else path
    try:
        with open(path, encoding="utf-8") as f:
            model = json.load(f)
    except OSError as e:
        raise PatchJudgeFileError(f"patch judge file {str(path)!r} cannot be read: {e.strerror or e}") from None
    except ValueError as e:
        raise PatchJudgeFileError(f"patch judge file {str(path)!r} is not JSON: {e}") from None
    if not isinstance(model, dict):
        raise PatchJudgeFileError(f"patch judge file {str(path)!r} holds no object")
    need = ("signals", "mean", "scale", "coef", "intercept", "threshold")
    missing = [k for k in need if k not in model]
    if missing:
        raise PatchJudgeFileError(f"patch judge file {str(path)!r} lacks {', '.join(missing)}")
    _check_weights(model, path, "")
    try:
        model["threshold"] = float(model["threshold"])
    except (TypeError, ValueError) as e:
        raise PatchJudgeFileError(f"patch judge file {str(path)!r}: threshold: {e}") from None
    if model.get("prefer") is not None:  # the readers' model that picks the reported pair (docs/design/patch-rules.md)
        prefer = model["prefer"]
        if not isinstance(prefer, dict):
            raise PatchJudgeFileError(f"patch judge file {str(path)!r}: prefer must be an object")
        missing = [k for k in need[:-1] if k not in prefer]
        if missing:
            raise PatchJudgeFileError(f"patch judge file {str(path)!r}: prefer lacks {', '.join(missing)}")
        _check_weights(prefer, path, "prefer: ")
    return model


def _check_weights(block, path, where):
    """Checks and converts one logistic regression's ``signals``, ``mean``, ``scale``, ``coef``, ``intercept``."""
    names = block["signals"]
    unknown = [n for n in names if n not in SIGNALS]
    if unknown:
        raise PatchJudgeFileError(f"patch judge file {str(path)!r}: {where}names unknown signals {unknown}")
    try:
        for k in ("mean", "scale", "coef"):
            block[k] = np.asarray(block[k], dtype=np.float64)
            if block[k].shape != (len(names),) or not np.isfinite(block[k]).all():
                raise ValueError(f"{k} must be {len(names)} finite numbers")
        block["intercept"] = float(block["intercept"])
    except (TypeError, ValueError) as e:
        raise PatchJudgeFileError(f"patch judge file {str(path)!r}: {where}{e}") from None
    if (block["scale"] <= 0).any():
        raise PatchJudgeFileError(f"patch judge file {str(path)!r}: {where}scales must be positive")


def judge_probability(model, signals):
    """``P(acceptable)`` of each row of ``signals`` (columns in ``model["signals"]`` order)."""
    z = (np.asarray(signals, dtype=np.float64) - model["mean"]) / model["scale"]
    logit = model["intercept"] + z @ model["coef"]
    return 1.0 / (1.0 + np.exp(-logit))


class PatchJudge(Constraint):
    """Keep a one-word swap the fitted judge finds acceptable with probability at least ``threshold``.

    Args:
        threshold: the least ``P(acceptable)`` kept (default: the file's, chosen in docs/design/patch-rules.md).
        signals: a :class:`.swap_signals.SwapSignals` (its models: the causal LM and the masked LM the judge
            was fitted with: Gemma-3-270M and the offline DistilBERT) or any object with
            ``compute(reference, texts, names)``.
        model_path: the weights file (default: the packaged ``data/patch_judge.json``).
        model: the weights already read (:func:`read_judge`), instead of ``model_path``.
    """

    def __init__(self, signals, threshold=None, model_path=None, model=None, compare_against_original=True):
        super().__init__(compare_against_original)
        self.model = model if model is not None else read_judge(model_path)
        self.threshold = self.model["threshold"] if threshold is None else float(threshold)
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"patch judge threshold must be between 0 and 1, got {threshold!r}")
        if signals is None:
            raise ValueError("PatchJudge needs its signals: a SwapSignals on the models it was fitted with")
        self.signals = signals

    def probabilities(self, reference, transformed_texts):
        """``P(acceptable)`` of each swap (0 for a text that is not a one-word swap of ``reference``)."""
        return self._probabilities(reference, transformed_texts)[0]

    def _probabilities(self, reference, transformed_texts):
        """``(P(acceptable), P(kept by the readers))`` of each swap, from one computation of the signals; the
        second is the file's ``prefer`` model (the first again when the file has none)."""
        if not transformed_texts:
            return np.zeros(0), np.zeros(0)
        blocks = [self.model] + ([self.model["prefer"]] if self.model.get("prefer") is not None else [])
        names = list(dict.fromkeys(n for b in blocks for n in b["signals"]))
        values = self.signals.compute(reference, list(transformed_texts), names)
        bad = np.isnan(values).any(axis=1)
        out = []
        for b in blocks:
            probs = judge_probability(b, np.nan_to_num(values[:, [names.index(n) for n in b["signals"]]]))
            probs[bad] = 0.0
            out.append(probs)
        return out[0], out[-1]

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        probs, prefer = self._probabilities(reference_text, transformed_texts)
        self._last = {id(t): float(p) for t, p in zip(transformed_texts, prefer)}
        return [t for t, p in zip(transformed_texts, probs) if p >= self.threshold]

    def last_probability(self, transformed_text):
        """How sure the judge is of ``transformed_text`` in the last check (0 if it was not among them): the
        file's ``prefer`` model (fitted to blind readers of MR pairs) when it has one, else ``P(acceptable)``.
        Lets a patch rule prefer the surest of the swaps it kept without scoring them again."""
        return getattr(self, "_last", {}).get(id(transformed_text), 0.0)

    def extra_repr_keys(self):
        return ["threshold"]
