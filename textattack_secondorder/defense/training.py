"""SP-Defense training (docs/methods.md §2.4; Xu et al., §5): fine-tune a classifier on the augmentation mix.

Each batch: half gradient-based augmented examples, half drawn uniformly from
{original, random-augmented, special-word-augmented}; labels unchanged. The
``rand`` baseline replaces the gradient half by random augmentation (half random,
half original). The gradient augmentation uses the model being trained (its
current weights), as in the paper. The result is saved as a Hugging Face model
directory that ``textattack attack --model DIR`` and ``SOModelWrapper`` load.

Defaults (chosen from the 3-seed tables of docs/methods.md §2.4): every weight is trained, the input
embeddings included, as in the paper's fine-tuning (``train_embeddings=False`` freezes them); the gradient
augmentation checks :func:`~..augmentation.gradient.default_gradient_candidates` candidates — 1 (the paper's
Eq. 5 minimum) on a transformer, 32 on a word model, where the Eq. 5 minimum left SP-Attack's success where
plain fine-tuning put it and training the embeddings helped the checked choice (§2.4, items 6 and 7).

The words the random and gradient augmentations put in are the model's letters-only vocabulary
entries that occur in the training examples (:func:`~..augmentation.vocabulary.augmentation_vocabulary`): the demo
word models carry GloVe words no MR sentence contains ("kuh", "nuh"), on which the training would spend its
updates instead of on the words an attacker uses (docs/methods.md §2.4, item 2).

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

from ..augmentation.gradient import default_gradient_candidates
from ..augmentation.token_augmenter import TokenAugmenter
from ..augmentation.token_edits import EncodedExamples
from ..augmentation.vocabulary import augmentation_vocabulary, special_word_table
from ..models.token_classifier import TokenClassifier
from ..models.word_models import is_word_model

logger = logging.getLogger(__name__)

DEFENSES = ("sp-defense", "rand", "a2t")
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


def default_train_embeddings(model):
    """Whether ``defend`` trains the input embeddings by default (True: every weight, as the paper fine-tunes;
    docs/methods.md §2.4 item 6 and §2.6)."""
    return True


def _default_lr(model):
    # transformers fine-tune at 2e-5 (paper: BERT/distilBERT); the small word-level models need more
    return 1e-3 if is_word_model(model) else 2e-5


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
    train_embeddings=True,
    vocabulary=None,
    history=None,
    gradient_candidates=None,
    model_batch_size=256,
    attack=None,
    a2t_log=None,
    a2t_rounds=None,
):
    """Fine-tune ``model_wrapper.model`` in place with SP-Defense (or ``rand``/``a2t``/``continue``); returns seconds.

    ``train_embeddings``: True (default) trains the input embedding matrix, False freezes it, None leaves
    it as the model was trained (the demo word victims' GloVe frozen; see the module docstring).
    ``vocabulary``: ``(ids, words)`` the augmentations draw from (default :func:`augmentation_vocabulary`).
    ``history``: a list that receives the mean training loss of every 50 steps.
    ``gradient_candidates``: see :mod:`~..augmentation.gradient` (1 = the paper's rule;
    None = :func:`~..augmentation.gradient.default_gradient_candidates`).
    ``device``: where the model, every batch and the gradients live (default: the model's device);
    ``model_batch_size``: rows per forward pass of the K-candidate check.
    The training set is tokenized once; every augmentation is then a token-id operation on the device
    (:meth:`~..augmentation.token_augmenter.TokenAugmenter.augment_batch`), and the loss is read back
    every 50 steps only, so a step waits for nothing but the model.

    ``defense="a2t"``: A2T's adversarial training (:mod:`.a2t`) on the same steps, batch size and schedule;
    ``attack`` is the attack that makes its adversarial texts (default: the ``a2t-offline`` recipe on
    ``model_wrapper``), ``a2t_log`` a list that receives one dict per adversarial set, ``a2t_rounds`` how many sets
    are made over the steps (default :data:`.a2t.ROUNDS`).
    """
    if defense not in TRAINING_MIXES:
        raise ValueError(f"defense must be one of {TRAINING_MIXES}")
    if int(steps) < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    if not train_examples:
        raise ValueError("no training examples")
    clf = TokenClassifier.from_model_wrapper(
        model_wrapper, "SP-Defense training", device=device, batch_size=model_batch_size
    )
    t0 = time.perf_counter()
    labels_all = torch.tensor([int(y) for _, y in train_examples], device=clf.device)
    if defense == "a2t":
        batches = _a2t_batches(
            clf, model_wrapper, train_examples, labels_all, attack, steps, batch_size, seed, a2t_log, a2t_rounds
        )
    else:
        if gradient_candidates is None:
            gradient_candidates = default_gradient_candidates(clf)
        if vocabulary is None:
            vocabulary = augmentation_vocabulary(clf, train_examples)
        if special_words is None:
            special_words = special_word_table(train_examples)
        # tokenized once: every augmentation below is a token-id operation on the classifier being trained
        aug = TokenAugmenter(clf, train_examples, vocabulary, special_words, gradient_candidates, seed=seed)
        batches = _augmented_batches(aug, labels_all, defense, batch_size, seed)
    model = clf.model
    if train_embeddings is not None:
        model.get_input_embeddings().weight.requires_grad_(bool(train_embeddings))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr or _default_lr(model))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: max(0.0, 1.0 - k / steps))
    torch.manual_seed(seed)
    losses = []
    steps_iter = range(steps)
    if progress:
        steps_iter = tqdm(steps_iter, desc=f"{defense} fine-tuning", unit="step")
    for _ in steps_iter:
        input_ids, attention_mask, labels = batches()
        model.train()
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.detach())  # read every 50 steps: no wait for the device at each step
        if len(losses) == 50:
            mean = float(torch.stack(losses).mean())
            losses = []
            if history is not None:
                history.append(round(mean, 4))
            if progress:
                steps_iter.set_postfix(loss=f"{mean:.3f}")
    model.eval()
    return time.perf_counter() - t0


def _augmented_batches(aug, labels_all, defense, batch_size, seed):
    """The batch source of the one-word augmentation mixes: iid training rows, each augmented by
    :func:`batch_modes`; returns ``() -> (input_ids, attention_mask, labels)``."""
    rng = random.Random(seed)
    n = len(aug.labels)

    def next_batch():
        rows = [rng.randrange(n) for _ in range(batch_size)]
        modes = batch_modes(defense, batch_size, rng)
        input_ids, attention_mask = aug.augment_batch(rows, modes)
        return input_ids, attention_mask, labels_all[torch.as_tensor(rows, device=labels_all.device)]

    return next_batch


def _a2t_batches(clf, model_wrapper, examples, labels_all, attack, steps, batch_size, seed, log, rounds):
    """The batch source of A2T (:class:`.a2t.A2TBatches`), its attack built on ``model_wrapper`` unless given."""
    from .a2t import ROUNDS, A2TBatches

    if attack is None:
        from ..attack_recipes.a2t_offline import A2TOffline

        attack = A2TOffline.build(model_wrapper)
    encoded = EncodedExamples(clf, [t for t, _ in examples])
    return A2TBatches(
        clf,
        encoded,
        labels_all,
        attack,
        examples,
        steps,
        batch_size,
        seed=seed,
        rounds=rounds or ROUNDS,
        log=log,
    )


def save_model(model_wrapper, out_dir, info=None, files=None):
    """Save model + tokenizer (+ ``defense.json``, + ``files``: ``{name: text}``) atomically as a Hugging Face
    directory."""
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model_wrapper.model.save_pretrained(str(tmp), safe_serialization=True)
        model_wrapper.tokenizer.save_pretrained(str(tmp))
        (tmp / "defense.json").write_text(json.dumps(info or {}, indent=2, default=str))
        for name, text in (files or {}).items():
            (tmp / name).write_text(text)
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:  # interrupted or failed: no half-written directory is left behind
        shutil.rmtree(tmp, ignore_errors=True)
    return out
