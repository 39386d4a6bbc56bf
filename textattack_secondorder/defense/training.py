"""SP-Defense training (docs/methods.md §2.4; Xu et al., §5): fine-tune a classifier on the augmentation mix.

Each batch: half gradient-based augmented examples, half drawn uniformly from
{original, random-augmented, special-word-augmented}; labels unchanged. The
``rand`` baseline replaces the gradient half by random augmentation (half random,
half original). The gradient augmentation uses the model being trained (its
current weights), as in the paper. The result is saved as a Hugging Face model
directory that ``textattack attack --model DIR`` and ``SOModelWrapper`` load.

The input embeddings stay as the model was trained (``train_embeddings=None``, default): the demo
word victims' GloVe embeddings stay frozen, a transformer's are trained. Measured on mr-cnn
(3,000 steps, 3 seeds, docs/methods.md §2.4): the "continue" control (no augmentation at all)
raised SP-Attack's success from 79.9 to 96.9 % with the embeddings trained, to 85.7 % with them
frozen — the rare words SP-Attack picks ("borstal", "cinta") are the ones whose vectors move. With
the paper's gradient rule SP-D ends at ~97 % either way; with ``gradient_candidates=32`` training
the embeddings helped the defense (63.2 % vs 78.3 % frozen; one seed so far), so the default is
not settled by evidence yet. ``True``/``False`` force training / freezing them.

The words the random and gradient augmentations put in are the model's letters-only vocabulary
entries that occur in the training examples (:func:`~..augmentation.sp_defense.augmentation_vocabulary`). The demo word
models carry ~21k GloVe words no MR sentence contains ("kuh", "nuh"): drawn from the whole
vocabulary, two thirds of the augmentations were such junk, and the training spent its updates on
their vectors instead of on the words an attacker uses (docs/methods.md §2.4).

The learning rate decays linearly to 0 over ``steps`` (as in Hugging Face fine-tuning), so the
last steps cannot walk the classifier away from what it learned.
"""

import json
import logging
import os
import random
import shutil
import time
from pathlib import Path

import torch
from tqdm.auto import tqdm

from ..augmentation.sp_defense import SPDefenseAugmenter, augmentation_vocabulary, special_word_table
from ..models.token_classifier import TokenClassifier

logger = logging.getLogger(__name__)

DEFENSES = ("sp-defense", "rand")
# "continue": the same fine-tuning on the original examples only (the vanilla-continued control)
TRAINING_MIXES = DEFENSES + ("continue",)


def batch_modes(defense, batch_size, rng):
    """The augmentation of each example of one batch (docs/methods.md §2.4).

    sp-defense: the first half gradient, the rest drawn uniformly from original/random/special;
    rand: half random, half original; continue: all original.
    """
    half = batch_size // 2
    if defense == "sp-defense":
        return ["gradient"] * half + [rng.choice(["original", "random", "special"]) for _ in range(batch_size - half)]
    if defense == "rand":
        return ["random"] * half + ["original"] * (batch_size - half)
    return ["original"] * batch_size


def _default_lr(model):
    # transformers fine-tune at 2e-5 (paper: BERT/distilBERT); small word-level models need more
    return 2e-5 if getattr(model.config, "model_type", "").startswith(("bert", "distilbert", "roberta")) else 1e-3


def train_defense(
    model_wrapper,
    train_examples,
    steps=1000,
    batch_size=32,
    lr=None,
    defense="sp-defense",
    special_words=None,
    seed=0,
    device=None,
    progress=True,
    train_embeddings=None,
    vocabulary=None,
    history=None,
    gradient_candidates=1,
):
    """Fine-tune ``model_wrapper.model`` in place with SP-Defense (or ``rand``/``continue``); returns seconds spent.

    ``train_embeddings``: True trains the input embedding matrix, False freezes it, None (default) leaves
    it as the model was trained (see the module docstring).
    ``vocabulary``: ``(ids, words)`` the augmentations draw from (default :func:`augmentation_vocabulary`).
    ``history``: a list that receives the mean training loss of every 50 steps.
    ``gradient_candidates``: see :func:`~..augmentation.sp_defense.gradient_augment` (1 = the paper's rule).
    """
    if defense not in TRAINING_MIXES:
        raise ValueError(f"defense must be one of {TRAINING_MIXES}")
    if int(steps) < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    if not train_examples:
        raise ValueError("no training examples")
    clf = TokenClassifier.from_model_wrapper(model_wrapper, "SP-Defense training", device=device)
    model, tok = clf.model, clf.tokenizer
    if special_words is None:
        special_words = special_word_table(train_examples)
    # mode is chosen per example below; the augmenter shares the classifier being trained
    vocabulary = vocabulary if vocabulary is not None else augmentation_vocabulary(clf, train_examples)
    aug = SPDefenseAugmenter(
        "random",
        model=clf,
        special_words=special_words,
        seed=seed,
        vocabulary=vocabulary,
        gradient_candidates=gradient_candidates,
    )
    if train_embeddings is not None:
        model.get_input_embeddings().weight.requires_grad_(bool(train_embeddings))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr or _default_lr(model))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: max(0.0, 1.0 - k / steps))
    rng = random.Random(seed)
    torch.manual_seed(seed)
    losses = []
    steps_iter = range(steps)
    if progress:
        steps_iter = tqdm(steps_iter, desc=f"{defense} fine-tuning", unit="step")
    t0 = time.perf_counter()
    for _ in steps_iter:
        batch = [train_examples[rng.randrange(len(train_examples))] for _ in range(batch_size)]
        modes = batch_modes(defense, batch_size, rng)
        texts = [t for t, _, _ in aug.augment_examples(batch, modes)]
        labels = torch.tensor([int(y) for _, y in batch], device=clf.device)
        enc = tok(texts, padding=True, truncation=True, max_length=clf.max_length, return_tensors="pt")
        model.train()
        logits = model(
            input_ids=enc["input_ids"].to(clf.device), attention_mask=enc["attention_mask"].to(clf.device)
        ).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        if history is not None and len(losses) % 50 == 0:
            history.append(round(sum(losses[-50:]) / 50, 4))
        if progress:
            steps_iter.set_postfix(loss=f"{loss.item():.3f}")
    model.eval()
    return time.perf_counter() - t0


def save_model(model_wrapper, out_dir, info=None):
    """Save model + tokenizer (+ ``defense.json``) atomically as a Hugging Face directory."""
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model_wrapper.model.save_pretrained(str(tmp), safe_serialization=True)
        model_wrapper.tokenizer.save_pretrained(str(tmp))
        (tmp / "defense.json").write_text(json.dumps(info or {}, indent=2, default=str))
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:  # interrupted or failed: no half-written directory is left behind
        shutil.rmtree(tmp, ignore_errors=True)
    return out
