"""Defense training: fine-tune a classifier on the batches of one defense (SP-Defense: Xu et al., §5).

:func:`train_defense` takes the model being trained, the batches of the defense it was given
(:func:`~.batches.defense_batches`: SP-Defense's augmentation mix, the ``rand`` and ``continue`` controls,
A2T's adversarial sets), AdamW with a learning rate that decays linearly to 0 over ``steps`` (as in Hugging
Face fine-tuning, so the last steps cannot walk the classifier away from what it learned), and runs the
steps. Every weight is trained by default, the input embeddings included, as in the paper's fine-tuning
(``train_embeddings=False`` freezes them). :func:`save_model` saves the result as a Hugging Face model
directory that ``textattack attack --model DIR`` and ``SOModelWrapper`` load.
"""

import json
import logging
import os
import shutil
import time
from pathlib import Path

import torch
from tqdm.auto import tqdm

from ..models.token_classifier import TokenClassifier
from ..models.word_models import is_word_model
from .batches import TRAINING_MIXES, defense_batches

logger = logging.getLogger(__name__)


def default_train_embeddings(model):
    """Whether ``defend`` trains the input embeddings by default (True: every weight, as the paper fine-tunes;
    docs/design/defenses.md)."""
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

    The batches are :func:`~.batches.defense_batches`' source for ``defense``, from ``seed``:
    ``vocabulary``, ``special_words`` and ``gradient_candidates`` go to the augmentation mixes
    (:class:`~..augmentation.augmented_batches.AugmentedBatches`; None = their defaults), ``attack``,
    ``a2t_log`` and ``a2t_rounds`` to A2T's (:class:`~.a2t.A2TBatches`: the attack that makes its adversarial
    texts, default the ``a2t-offline`` recipe on ``model_wrapper``; a list that receives one dict per
    adversarial set; how many sets are made over the steps, default :data:`.a2t.ROUNDS`). Every defense
    trains on the same steps, batch size and schedule.

    ``train_embeddings``: True (default) trains the input embedding matrix, False freezes it, None leaves
    it as the model was trained (the demo word victims' GloVe frozen).
    ``history``: a list that receives the mean training loss of every 50 steps.
    ``device``: where the model, every batch and the gradients live (default: the model's device);
    ``model_batch_size``: rows per forward pass of the K-candidate check.
    The training set is tokenized once; every batch is then made of token ids on the device, and the loss is
    read back every 50 steps only, so a step waits for nothing but the model.
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
    batches = defense_batches(
        defense,
        clf,
        model_wrapper,
        train_examples,
        steps,
        batch_size,
        seed,
        vocabulary=vocabulary,
        special_words=special_words,
        gradient_candidates=gradient_candidates,
        attack=attack,
        a2t_log=a2t_log,
        a2t_rounds=a2t_rounds,
    )
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
