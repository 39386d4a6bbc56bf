"""κ computed once per (model, κ data, settings) and kept in the package cache (docs/design/single-word.md).

SP-Attack without ``kappa=`` needs κ of the victim before its first attack. Running EUBA
over 1,000 training sentences on every run is slow, so the result is kept and reused. The
cache is the κ shard store itself (:mod:`.sharded`): ``cache_dir("kappa")`` is one
:class:`~...distributed.ShardStore` shared by every model and data set, and a κ is one shard,
``<key>.pkl``, keyed by the content digest of

* the **model fingerprint** (:func:`~...models.fingerprint.model_fingerprint`): the wrapper's class, every
  tensor of its ``model.state_dict()`` (name, dtype, shape, bytes) and the tokenizer's vocabulary.
  Retraining, another checkpoint or another vocabulary gives another key. A wrapper without
  a torch model (EUBA cannot run on it anyway) is fingerprinted by its outputs on fixed probe
  texts;
* the **κ data**: every ``(text, label)`` pair used, in order;
* the **settings**: method, early stop ``m``, vocabulary limit.

Files are written atomically (temporary name, then rename), so an interrupted run leaves
either no cache entry or a whole one, and its progress (``<key>.progress.pkl``): the next run
continues the κ from there. Before any of this, :func:`check_kappa_labels` refuses κ data
whose labels the model cannot have.
"""

from pathlib import Path

from textattack.shared.utils import logger as ta_logger

from ...resources.paths import cache_dir
from .sharded import compute_flip_capability, kappa_shards


def _say(message, *args):
    """INFO on TextAttack's logger (shown by `textattack attack`)."""
    ta_logger.info(message, *args)


# datasets known by name and how many classes they have: refused early for a model with another number
KNOWN_CLASSES = {"mr": 2}


class KappaDataError(ValueError):
    """κ data whose labels do not fit the model (one line; raised as a recipe parameter error)."""


def cache_key(model_wrapper, examples, settings):
    """The key of the cache entry of κ over ``examples`` with ``settings`` (method, m, vocab_limit)."""
    _, shards = kappa_shards(model_wrapper, examples, settings["method"], settings["m"], settings["vocab_limit"], 1)
    return shards[0].key


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
    progress=True,
    vocab_from=None,
    vocab_rows=None,
):
    """κ of ``model_wrapper`` on ``examples``, from the cache when the same κ was computed before.

    Returns ``(FlipCapabilityResult, path of the cache entry, reused)``; ``folder`` defaults to
    ``cache_dir("kappa")``. ``vocab_from`` / ``vocab_rows``: the vocabulary of a data set's words
    (:func:`~.sharded.compute_flip_capability`).
    """
    examples = _clean_labels(examples)
    if num_outputs is not None:
        check_kappa_labels(num_outputs, data_name, [y for _, y in examples])
    folder = Path(folder) if folder else cache_dir("kappa")
    result = compute_flip_capability(
        model_wrapper,
        examples,
        method=method,
        m=m,
        vocab_limit=vocab_limit,
        folder=folder,
        one_run=False,
        settings={"data": data_name},
        progress=progress,
        vocab_from=vocab_from,
        vocab_rows=vocab_rows,
    )
    (key,) = result.shard_keys  # the cache keeps one shard per κ: the run's key, not the model fingerprinted again
    path = folder / f"{key}.pkl"
    reused = result.stats.computed == 0
    _say("reusing cached κ %s" if reused else "computed κ and cached it at %s", path)
    return result, path, reused
