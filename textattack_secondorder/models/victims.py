"""Demo victim classifiers on movie-review polarity, trained on first use and cached.

===========  ==========================================================
name         model
===========  ==========================================================
mr-cnn       word CNN on frozen GloVe 50d, 100 filters of width 3
mr-lstm      LSTM on frozen GloVe 50d, 100 units
mr-bow       bag of words on frozen GloVe 50d, hidden layer of 100
mr-minilm    all-MiniLM-L6-v2 fine-tuned for 2 epochs (max_length 64)
mr-cnn-ibp   mr-cnn's architecture, certified (IBP) training
mr-bow-ibp   mr-bow's architecture, certified (IBP) training
mr-lstm-ibp  mr-lstm's architecture, certified (IBP) training
===========  ==========================================================

Their MR test accuracy (80/20 split, seed 0) is in each victim's ``metrics.json`` (for the ``-ibp``
victims also the certified accuracy); the figures when they were added: docs/design/victims.md. The
``-ibp`` victims are trained with interval bound propagation against every combination of synonym
swaps (Jia et al. 2019; docs/design/certified.md).

The three word models are the base models of Zhang et al. 2021 (Double
Perturbation, NAACL): "GloVe + one hidden layer of 100". Each victim is a
Hugging Face model directory (``config.json``, ``model.safetensors``, tokenizer
files, ``metrics.json``) under ``cache_dir("victims", name)``, so the stock
TextAttack command line loads it with ``--model DIR`` (after
:func:`~textattack_secondorder.models.register_auto_classes`, which the
package's TextAttack hook calls).

A victim is trained in a temporary folder and renamed into place when
complete, so an interrupted training never leaves half a model.
"""

import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from transformers import AutoModelForSequenceClassification, AutoTokenizer

from ..datasets.mr import LABEL_NAMES, load_mr
from ..resources.paths import cache_dir, cache_note
from ..shared.device import torch_dtype
from ..shared.files import atomic_write_text
from . import training
from .catalogue import VICTIMS
from .ibp.objective import IBPObjective
from .provenance import METRICS_FILE
from .word_models import register_auto_classes
from .wrappers import DEFAULT_BATCH_SIZE, SOModelWrapper

logger = logging.getLogger(__name__)


class UnknownVictimError(ValueError):
    pass


def _spec(name):
    try:
        return VICTIMS[name]
    except KeyError:
        raise UnknownVictimError(f"Unknown victim {name!r}; valid names: {', '.join(VICTIMS)}") from None


def victim_path(name):
    """Where victim ``name`` lives (whether or not it has been trained yet)."""
    _spec(name)
    return cache_dir("victims") / name


def stale_reason(name):
    """Why the cached victim ``name`` no longer matches the package's settings for it, in words; ``None``
    when it does. A certified victim records its IBP schedule (and a weight decay) in ``metrics.json``; one
    trained by an older version of the package with other settings is not the victim the docs describe
    (docs/design/certified.md)."""
    spec = _spec(name).train_kwargs
    want = spec.get("ibp")
    if want is None:
        return None
    metrics = read_metrics(name)
    have = metrics.get("ibp", {})
    changed = {k: (have.get(k), v) for k, v in want.items() if have.get(k) != v}
    # the optimiser's weight decay is part of the recipe too (docs/design/certified.md); metrics.json names it only when
    # it is not 0
    decay = (metrics.get("weight_decay", 0.0), spec.get("weight_decay", 0.0))
    if decay[0] != decay[1]:
        changed["weight_decay"] = decay
    if not changed:
        return None
    said = ", ".join(f"{k} {old} -> {new}" for k, (old, new) in changed.items())
    return f"cached victim {name} was trained with other certified-training settings ({said})"


def is_trained(name):
    """Whether victim ``name`` is cached and trained with the package's current settings."""
    path = victim_path(name)
    if not ((path / "config.json").exists() and (path / METRICS_FILE).exists()):
        return False
    return stale_reason(name) is None


def read_metrics(name):
    """The ``metrics.json`` of a trained victim (test accuracy, training seconds, ...)."""
    return json.loads((victim_path(name) / METRICS_FILE).read_text(encoding="utf-8"))


def _load_data(spec, data):
    if data is not None:
        return data

    return load_mr("train"), load_mr("test")


def name_classes(model, spec):
    """Give a victim's config the label names of its data set (MR: negative, positive) where it has only
    the generic ``LABEL_0``, ``LABEL_1`` (the word victims were saved so), so that data labelled by name
    reads the same on every victim (docs/design/hostile-input.md)."""
    config = model.config
    generic = {i: f"LABEL_{i}" for i in range(config.num_labels)}
    if spec.dataset == "mr" and config.num_labels == len(LABEL_NAMES) and dict(config.id2label) == generic:
        config.id2label = dict(enumerate(LABEL_NAMES))
        config.label2id = {name: i for i, name in enumerate(LABEL_NAMES)}
    return model


def train_victim(name, force=False, data=None, seed=0, progress=True, device=None, **overrides):
    """Train victim ``name`` and save it under ``cache_dir("victims", name)``.

    Args:
        force: retrain even if the victim is already cached.
        data: ``(train, test)`` lists of ``(text, label)``; default the MR split.
        device: where to train (``"cuda"``, ``"cpu"``; default: TextAttack's rule, CUDA when there is one).
        overrides: passed to the training function (e.g. ``epochs=``).

    Returns the metrics dict (``test_accuracy``, ``train_seconds``, ``directory``, ...).
    If the victim exists and not ``force``, returns its stored metrics.
    """
    spec = _spec(name)
    final = victim_path(name)
    if is_trained(name) and not force:
        return {**read_metrics(name), "directory": str(final)}
    reason = (final / METRICS_FILE).exists() and stale_reason(name)
    if reason:
        logger.warning("%s; training it again", reason)
    train, test = _load_data(spec, data)
    logger.warning("Training victim %s (%s) on %d sentences ...", name, spec.description, len(train))
    register_auto_classes()
    if spec.kind == "word":
        kwargs = dict(spec.train_kwargs)
        kwargs.update(overrides)
        arch = kwargs.pop("arch")
        ibp = kwargs.pop("ibp", None)
        if ibp is not None:  # certified training (docs/design/certified.md)
            kwargs["objective"] = IBPObjective(schedule=ibp)
        model, tokenizer, metrics = training.train_word_model(
            arch, train, test, seed=seed, progress=progress, device=device, **kwargs
        )
    else:
        model, tokenizer, metrics = training.train_minilm(
            train, test, seed=seed, progress=progress, device=device, **overrides
        )
    model.to("cpu")  # saved from the CPU: a model directory says nothing of where it was trained
    name_classes(model, spec)
    metrics = {"name": name, "description": spec.description, "dataset": spec.dataset, "seed": seed, **metrics}

    parent = final.parent
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=str(parent)))
    try:
        model.save_pretrained(str(tmp), safe_serialization=True)
        tokenizer.save_pretrained(str(tmp))
        atomic_write_text(tmp / METRICS_FILE, json.dumps(metrics, indent=2) + "\n")
        old = None
        if final.exists():
            old = parent / f".{name}.old-{os.getpid()}"
            os.replace(final, old)
        os.replace(tmp, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        if is_trained(name):  # another process finished first: keep its model
            logger.warning("Victim %s was saved by another process meanwhile; keeping that one", name)
            return {**read_metrics(name), "directory": str(final)}
        raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    logger.warning(
        "Saved victim %s: test accuracy %.4f, %.1f s -> %s",
        name,
        metrics.get("test_accuracy", float("nan")),
        metrics["train_seconds"],
        cache_note(final),
    )
    return {**metrics, "directory": str(final)}


def victim_dir(name, train_if_missing=True):
    """Directory of victim ``name`` (a HF model dir usable with ``textattack attack --model DIR``).

    Trains the victim first if it is missing and ``train_if_missing``.
    """
    if not is_trained(name):
        if not train_if_missing:
            raise FileNotFoundError(
                f"Victim {name} is not trained yet ({victim_path(name)}). "
                f"Run `textattack-so train-victims --names {name}`."
            )
        train_victim(name)
    return victim_path(name)


def load_model_and_tokenizer(path, dtype=None):
    """``(model, tokenizer)`` from a victim directory, via the Auto classes, in ``dtype`` (default float32,
    whatever precision the checkpoint was saved in: :func:`~..shared.device.torch_dtype`)."""
    register_auto_classes()
    model = AutoModelForSequenceClassification.from_pretrained(str(path), dtype=torch_dtype(dtype))
    tokenizer = AutoTokenizer.from_pretrained(str(path), use_fast=True)
    model.eval()
    return model, tokenizer


def load_victim(name, device=None, train_if_missing=True, batch_size=None, dtype=None):
    """Victim ``name`` as a :class:`~textattack_secondorder.models.wrappers.SOModelWrapper`.

    Args:
        name: a name of ``models.catalogue.VICTIMS`` (``mr-cnn``, ``mr-lstm``, ``mr-bow``, ``mr-minilm``,
            ``mr-cnn-ibp``, ``mr-bow-ibp``, ``mr-lstm-ibp``).
        device: ``"cpu"``, ``"cuda"`` or ``None`` (TextAttack's default device); a victim trained
            here first (``train_if_missing``) is trained there too.
        train_if_missing: train (and cache) the victim if it is not cached yet.
        dtype: precision (default float32).
    """
    if train_if_missing and not is_trained(name):
        train_victim(name, device=device)
    model, tokenizer = load_model_and_tokenizer(victim_dir(name, train_if_missing=train_if_missing), dtype)
    name_classes(model, _spec(name))
    return SOModelWrapper(model, tokenizer, device=device, batch_size=batch_size or DEFAULT_BATCH_SIZE)
