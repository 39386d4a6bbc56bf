"""Whose κ this is: a κ file read for a model is checked against the model it was computed for
(docs/design/single-word.md).

κ belongs to one model: its top words are the words that flip *that* model's sentences. Every κ records the
:func:`~...models.fingerprint.weights_fingerprint` of its model (``settings["model_fingerprint"]``, written by
:func:`~.sharded.compute_flip_capability`), and :func:`load_kappa` — the one way a κ is read for a model: SP-Attack's
``kappa=`` and the gate's attack checks — compares it with the model at hand. Another model's κ (the model before
its SP-Defense fine-tuning, before it was retrained) is a transfer attack: SP-Attack runs it and warns, naming both
models; the gate refuses it (``refuse=True``), since a κ that is not the model's own makes a weaker attack and a gate
that passes for that reason has measured nothing about the model under test. A κ written before κ recorded its model
cannot be checked: said once, not refused.
"""

from textattack.shared.utils import logger as ta_logger

from ...models.fingerprint import weights_fingerprint
from ...shared.errors import UserError
from .result import FlipCapabilityResult

SHOWN = 12  # characters of a fingerprint shown in a message


class KappaModelError(ValueError, UserError):
    """A κ computed for another model, where the model's own κ is required (one line, exit code 2)."""


def _source(kappa, path):
    model = kappa.settings.get("model")
    where = f"κ in {path}" if path else "this κ"
    return where + (f" (computed for model {model!r})" if isinstance(model, str) and model else "")


def kappa_owner_problem(kappa, model_wrapper, path=None):
    """``None`` when ``kappa`` (a :class:`~.result.FlipCapabilityResult`) was computed for ``model_wrapper``, else
    one sentence saying whose it is and what to do; ``("unknown", sentence)`` / ``("other", sentence)``."""
    recorded = kappa.settings.get("model_fingerprint")
    source = _source(kappa, path)
    if not recorded:
        return (
            "unknown",
            f"{source} records no model fingerprint (written before κ files recorded their model): whether it is "
            "this model's κ cannot be checked; recompute it with `textattack-so flip-capability` to be sure",
        )
    mine = weights_fingerprint(model_wrapper)
    if recorded == mine:
        return None
    return (
        "other",
        f"{source} belongs to another model (weights {recorded[:SHOWN]}…, this model's {mine[:SHOWN]}…, or the same "
        "weights in another dtype): its top words flip that model's sentences, so the attack is a transfer attack and "
        "finds less than this model's own κ would; compute κ of this model (`textattack-so flip-capability --model "
        "THIS_MODEL --dataset YOUR_TRAIN.csv --out KAPPA.json`, or leave kappa= out and SP-Attack computes and caches "
        "it from kappa_dataset)",
    )


def load_kappa(kappa, model_wrapper, refuse=False, say=None):
    """κ for ``model_wrapper`` from ``kappa`` (a saved κ's path, JSON or CSV, or a
    :class:`~.result.FlipCapabilityResult`), checked against the model it was computed for
    (:func:`kappa_owner_problem`): another model's κ raises :class:`KappaModelError` with ``refuse``, else is
    said through ``say`` (default: a warning on TextAttack's logger); a κ that cannot be checked is said only."""
    path = None
    if not isinstance(kappa, FlipCapabilityResult):
        path, kappa = kappa, FlipCapabilityResult.load(kappa)
    problem = kappa_owner_problem(kappa, model_wrapper, path)
    if problem is not None:
        kind, sentence = problem
        if refuse and kind == "other":
            raise KappaModelError(sentence)
        (say or ta_logger.warning)(sentence)
    return kappa
