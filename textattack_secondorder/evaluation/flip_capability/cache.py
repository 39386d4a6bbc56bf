"""κ computed once per (model, κ data, settings) and kept in the package cache (docs/methods.md §2.3).

SP-Attack without ``kappa=`` needs κ of the victim before its first attack. Running EUBA
over 1,000 training sentences on every run is slow, so the result is saved under a
content key in ``cache_dir("kappa")`` and reused:

    key = sha256(format version, model fingerprint, κ data digest, EUBA settings)

* **model fingerprint** (:func:`~...models.fingerprint.model_fingerprint`): the wrapper's class, every tensor of
  its ``model.state_dict()`` (name, dtype, shape, bytes) and the tokenizer's vocabulary.
  Retraining, another checkpoint or another vocabulary gives another key. A wrapper without
  a torch model (EUBA cannot run on it anyway) is fingerprinted by its outputs on fixed probe
  texts.
* **κ data digest**: every ``(text, label)`` pair used, in order.
* **settings**: method, early stop ``m``, vocabulary limit.

Files are written atomically (temporary name, then rename), so an interrupted run leaves
either no cache entry or a whole one. Before any of this, :func:`check_kappa_labels` refuses
κ data whose labels the model cannot have.
"""

import hashlib
import json
import logging
from pathlib import Path

from ...models.fingerprint import model_fingerprint

logger = logging.getLogger(__name__)


def _say(message, *args):
    """INFO on TextAttack's logger (shown by `textattack attack`), else on this module's."""
    try:
        from textattack.shared.utils import logger as ta_logger
    except ImportError:  # pragma: no cover
        ta_logger = logger
    ta_logger.info(message, *args)


CACHE_VERSION = 1
# datasets known by name and how many classes they have: refused early for a model with another number
KNOWN_CLASSES = {"mr": 2}


class KappaDataError(ValueError):
    """κ data whose labels do not fit the model (one line; raised as a recipe parameter error)."""


def data_digest(examples):
    """Hex digest of the ``(text, label)`` pairs, in order."""
    h = hashlib.sha256()
    for text, label in examples:
        h.update(json.dumps([text, None if label is None else int(label)]).encode() + b"\n")
    return h.hexdigest()


def cache_key(model_wrapper, examples, settings):
    payload = {
        "version": CACHE_VERSION,
        "model": model_fingerprint(model_wrapper),
        "data": data_digest(examples),
        "settings": settings,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:24]


def check_kappa_labels(num_outputs, dataset=None, labels=None):
    """Raise :class:`KappaDataError` when κ data cannot be the model's own training data.

    ``dataset``: its name (a known one such as ``mr`` is checked before it is loaded);
    ``labels``: the labels once loaded (each must be below ``num_outputs``).
    """
    how = (
        "pass the model's own training data as kappa_dataset=FILE.csv (columns text,label) or a saved κ as "
        "kappa=FILE.json (from `textattack-so flip-capability`)"
    )
    known = KNOWN_CLASSES.get(dataset)
    if known is not None and known != num_outputs:
        raise KappaDataError(f"κ data '{dataset}' has {known} classes but the model has {num_outputs} outputs; {how}")
    if labels is not None:
        bad = sorted({int(y) for y in labels if y is None or int(y) >= num_outputs or int(y) < 0})
        if bad:
            raise KappaDataError(
                f"κ data '{dataset}' has label(s) {bad[:5]} that a model with {num_outputs} "
                f"outputs cannot predict; {how}"
            )


def _clean_labels(examples):
    out = []
    for text, label in examples:
        try:
            out.append((text, int(float(label))))
        except (TypeError, ValueError):
            raise KappaDataError(
                f"κ data row {text[:40]!r} has label {label!r}, not a class number; pass "
                "kappa_dataset=FILE.csv with integer labels or kappa=FILE.json"
            ) from None
    return out


def cached_flip_capability(
    model_wrapper,
    examples,
    m=512,
    method="euba",
    vocab_limit=None,
    data_name=None,
    num_outputs=None,
    folder=None,
    compute=None,
):
    """κ of ``model_wrapper`` on ``examples``, from the cache when the same κ was computed before.

    Returns ``(FlipCapabilityResult, path, reused)``. ``compute`` defaults to
    :func:`.computation.compute_flip_capability` (tests count its calls).
    """
    from ...resources.paths import cache_dir
    from ...shared.files import atomic_write_text
    from .result import FlipCapabilityResult

    examples = _clean_labels(examples)
    if num_outputs is not None:
        check_kappa_labels(num_outputs, data_name, [y for _, y in examples])
    settings = {"method": method, "m": m, "vocab_limit": vocab_limit}
    key = cache_key(model_wrapper, examples, settings)
    path = Path(folder) if folder else cache_dir("kappa")
    path = path / f"kappa_{key}.json"
    if path.exists():
        try:
            result = FlipCapabilityResult.load(path)
        except (ValueError, KeyError) as e:  # unreadable entry: compute again and replace it
            logger.warning("ignoring unreadable κ cache %s (%s)", path, e)
        else:
            _say("reusing cached κ %s", path)
            return result, path, True
    if compute is None:
        from .computation import compute_flip_capability as compute
    result = compute(
        model_wrapper,
        examples,
        method=method,
        m=m,
        vocab_limit=vocab_limit,
        settings={"data": data_name, "cache_key": key},
    )
    result.save(path)
    atomic_write_text(
        path.with_suffix(".key.json"),
        json.dumps(
            {
                "key": key,
                "model": model_fingerprint(model_wrapper),
                "data": data_digest(examples),
                "data_name": data_name,
                "examples": len(examples),
                "settings": settings,
            },
            indent=1,
            default=str,
        ),
    )
    _say("computed κ and cached it at %s", path)
    return result, path, False
