"""SP-Defense: data augmentation against single-word perturbations (Xu et al., §5; docs/methods.md §2.4).

Three augmentations of a labelled example ``(x, y)``, each changing exactly one
word position and keeping the label:

* **random** — one random word replaced by a random vocabulary word;
* **gradient** — the single substitution with the lowest first-order estimate
  ``v_w^(i) = <∇_{e_{x_i}} log f(y|x), e_w − e_{x_i}> + log f(y|x)`` (one
  forward+backward per sentence, batched; lowest = most likely to flip); on the word
  models by default the K = 32 lowest are checked with a forward pass and the most
  harmful one applied (:func:`default_gradient_candidates`);
* **special** — a random position replaced by a random word of
  ``T(y) = {t : max_{y'≠y} log freq(t, y') − log freq(t, y) > 1}``, words whose
  training-set frequency is much higher under another label (add-one smoothed
  relative frequencies; the table is saved and reloaded as JSON).

Training batches mix them (see :mod:`textattack_secondorder.defense`): half
gradient-augmented, half drawn from {original, random, special}.

Ways in:

* Python: :func:`augment_examples` on ``(text, label)`` lists, or
  :class:`SPDefenseAugmenter` (``augment(text, label=None)``).
* ``textattack augment --recipe sp-defense ...`` (stock CLI): TextAttack passes
  no labels. Then ``random`` needs none; ``gradient`` and ``special`` need a model
  (recipe parameter ``model``) whose *predicted* label stands in for ``y``, and
  ``special`` also a saved table (``special_words``). ``mode='auto'`` (default)
  picks ``gradient`` when a model is given, else ``random``, and says so in the log.
* ``textattack-so augment``: our label-aware command that keeps the label and
  every other column and writes the CSV losslessly (quotes, "/", commas,
  newlines, non-ASCII).

Positions are TextAttack's words (``AttackedText.words``); for sub-word models
only words that are a single vocabulary token are substituted by the gradient
mode, and candidate words are single tokens made of letters.
"""

import json
import logging
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from textattack.shared import AttackedText

from ..datasets.examples import load_examples
from ..models.loading import load_model_wrapper
from ..models.token_classifier import TokenClassifier
from ..models.word_models import is_word_model
from ..resources import load_synonyms
from ..shared.files import atomic_write_text
from ..shared.inputs import bad_text_reason
from ..shared.text import match_case

logger = logging.getLogger(__name__)

MODES = ("random", "gradient", "special")
SPECIAL_THRESHOLD = 1.0  # paper: log-frequency margin > 1


# ----------------------------------------------------------------------------- special words
def augmentation_vocabulary(clf, examples):
    """``(ids, words)``: the model's letters-only vocabulary entries that occur in ``examples``' texts."""
    seen = {w.lower() for t, _ in examples for w in AttackedText(t).words}
    ids, words = clf.vocabulary()
    keep = [k for k, w in enumerate(words) if w.lower() in seen]
    if not keep:
        raise ValueError("no training word is in the model's vocabulary")
    return np.asarray(ids)[keep], [words[k] for k in keep]


def special_word_table(examples, threshold=SPECIAL_THRESHOLD, min_count=2):
    """``{label: [words]}``: T(y) from labelled training examples (docs/methods.md §2.4)."""
    counts = {}
    for text, label in examples:
        counts.setdefault(label, Counter()).update(w.lower() for w in AttackedText(text).words)
    vocab = {w for c in counts.values() for w, n in c.items() if n >= min_count and w.isalpha()}
    totals = {y: sum(c.values()) for y, c in counts.items()}
    logf = {y: {w: math.log((c[w] + 1) / (totals[y] + len(vocab))) for w in vocab} for y, c in counts.items()}
    table = {}
    for y in counts:
        others = [o for o in counts if o != y]
        table[y] = sorted(w for w in vocab if others and max(logf[o][w] for o in others) - logf[y][w] > threshold)
    return table


def save_special_words(table, path):
    atomic_write_text(path, json.dumps({str(k): v for k, v in table.items()}, indent=1))
    return path


def load_special_words(path):
    data = json.loads(Path(path).read_text())
    return {int(k) if str(k).lstrip("-").isdigit() else k: v for k, v in data.items()}


# ----------------------------------------------------------------------------- one-word edits
def _replace(text_or_at, index, word):
    at = text_or_at if isinstance(text_or_at, AttackedText) else AttackedText(text_or_at)
    return at.replace_word_at_index(index, match_case(word, at.words[index])).text


def random_augment(text, vocabulary, rng):
    """Replace one random word by a random vocabulary word (different from it)."""
    at = AttackedText(text)
    if not at.words:
        return text
    i = rng.randrange(len(at.words))
    for _ in range(20):
        w = rng.choice(vocabulary)
        if w.lower() != at.words[i].lower():
            return _replace(at, i, w)
    return text


def special_augment(text, label, table, rng):
    """Replace a random position by a random word of T(label)."""
    at = AttackedText(text)
    words = table.get(label) or table.get(str(label)) or []
    if not at.words or not words:
        return text
    i = rng.randrange(len(at.words))
    cands = [w for w in words if w != at.words[i].lower()]
    return _replace(at, i, rng.choice(cands)) if cands else text


# Checked gradient candidates on the word models: 32 (docs/methods.md §2.4, item 7 and the tables).
WORD_MODEL_GRADIENT_CANDIDATES = 32


def default_gradient_candidates(model):
    """How many Eq. 5 candidates the gradient augmentation checks by default (docs/methods.md §2.4).

    1 (the paper's rule: apply the minimum of Eq. 5) for transformers, the models the paper defends;
    32 for this package's word models, where the first-order minimum is a weak adversary (it flips
    53 % of the sentences, the best of 32 checked ones 82.5 %) and SP-Defense by the paper's rule left
    SP-Attack's success at 97 % on mr-cnn, with 32 at 61.8 % (vanilla 79.9; 3 seeds).
    ``model``: a Hugging Face model, or a ``TokenClassifier`` / model wrapper holding one.
    """
    model = getattr(model, "model", model)
    return WORD_MODEL_GRADIENT_CANDIDATES if is_word_model(model) else 1


def gradient_augment(clf, texts, labels, vocab=None, batch_size=32, candidates=1):
    """Lowest-``v`` single substitution of each text (one batched forward+backward per chunk).

    ``clf``: a :class:`~textattack_secondorder.models.token_classifier.TokenClassifier`.
    ``candidates``: 1 (default) applies the Eq. 5 minimum, as the paper does. K > 1 checks the K
    substitutions with the lowest ``v`` with one more forward pass each and applies the one whose
    actual ``log f(y|x')`` is lowest (docs/methods.md §2.4: on the demo word CNN the first-order
    minimum flips 53 % of the sentences it is applied to, the best of 32 checked ones 82 %).
    Returns the augmented texts (a text with no substitutable word is returned unchanged).
    """
    candidates = int(candidates)
    if candidates < 1:
        raise ValueError(f"candidates must be >= 1, got {candidates}")
    vocab_ids, vocab_words = vocab if vocab is not None else clf.vocabulary()
    E = clf.embedding_matrix().to(clf.device)
    Ev = E[torch.as_tensor(vocab_ids, device=clf.device)]
    emb = clf.model.get_input_embeddings()
    out = list(texts)
    for s in range(0, len(texts), batch_size):
        pending = {}
        ats = [AttackedText(t) for t in texts[s : s + batch_size]]
        keep = [k for k, at in enumerate(ats) if at.words]
        if not keep:
            continue
        enc = clf.tokenizer(
            [ats[k].words for k in keep],
            is_split_into_words=True,
            padding=True,
            truncation=True,
            max_length=clf.max_length,
            return_tensors="pt",
        )
        ids = enc["input_ids"].to(clf.device)
        mask = enc["attention_mask"].to(clf.device)
        embeds = emb(ids).detach().requires_grad_(True)
        was_training = clf.model.training
        clf.model.eval()
        logits = clf.model(inputs_embeds=embeds, attention_mask=mask).logits
        y = torch.tensor([int(labels[s + k]) for k in keep], device=clf.device)
        logp = torch.log_softmax(logits.float(), -1).gather(1, y[:, None])[:, 0]
        (grad,) = torch.autograd.grad(logp.sum(), embeds)
        clf.model.train(was_training)
        for row, k in enumerate(keep):
            word_ids = enc.word_ids(row)
            n_tokens = Counter(w for w in word_ids if w is not None)
            # token positions that are a whole word on their own
            pos = [
                p
                for p, w in enumerate(word_ids)
                if w is not None and n_tokens[w] == 1 and int(ids[row, p]) not in clf.special_ids
            ]
            if not pos:
                continue
            g = grad[row, pos]  # (l, d)
            cur = embeds[row, pos].detach()  # (l, d)
            # v[i, w] = <g_i, e_w - e_{x_i}> + log f(y|x)
            v = g @ Ev.T - (g * cur).sum(1, keepdim=True) + logp[row].detach()
            same = torch.as_tensor(vocab_ids, device=clf.device)[None, :] == ids[row, pos][:, None]
            v = v.masked_fill(same, float("inf"))
            if candidates == 1:
                flats = [int(torch.argmin(v))]
            else:
                flats = torch.topk(v.view(-1), min(candidates, v.numel()), largest=False).indices.tolist()
            flats = [f for f in flats if math.isfinite(float(v.view(-1)[f]))]
            if not flats:
                continue
            subs = [divmod(f, v.shape[1]) for f in flats]
            pending[s + k] = [_replace(ats[k], word_ids[pos[i]], vocab_words[w]) for i, w in subs]
        if candidates > 1 and pending:  # the K first-order candidates, checked by their real f(y|x')
            flat = [t for rewrites in pending.values() for t in rewrites]
            probs = clf.predict_texts(flat)  # one batched forward pass (eval mode)
            clf.model.train(was_training)
            start = 0
            for j, rewrites in pending.items():
                p_y = probs[start : start + len(rewrites), int(labels[j])]
                pending[j] = [rewrites[int(np.argmin(p_y))]]
                start += len(rewrites)
        for j, rewrites in pending.items():
            out[j] = rewrites[0]
    return out


# ----------------------------------------------------------------------------- augmenter
class SPDefenseAugmenter:
    """Augmenter for ``textattack augment --recipe sp-defense`` and Python use.

    Args:
        mode: "auto", "random", "gradient", "special", or "mix" (the training mix:
            gradient for half the calls, else one of original/random/special).
        model: victim name/dir/file (see ``textattack-so --help``), a TextAttack model
            wrapper or a ``TokenClassifier``; needed by "gradient", and by "special" when no label is given.
        special_words: path of a saved T(y) table (or the dict).
        vocabulary: words for random replacement, or ``(ids, words)`` of the model's vocabulary
            for both the random and the gradient mode (default: the model's letters-only
            vocabulary, restricted by ``vocab_data``; without a model the packaged synonym list's words).
        gradient_candidates: the gradient mode checks this many lowest-``v`` substitutions with a
            forward pass and applies the one that hurts most (default: :func:`default_gradient_candidates`
            — 1, the paper's Eq. 5 minimum, on transformers; 32 on the word models).
        vocab_data: keep only the model vocabulary words that occur in this labelled data ("mr" or a
            CSV with a text column); "auto" (default) = "mr" for the demo victims (named ``mr-*``),
            whose vocabulary is two thirds GloVe words no MR sentence has ("kuh", "nuh"), else none.
        transformations_per_example: outputs per input (stock CLI argument).
        seed: random seed.
    Other TextAttack augment arguments (pct_words_to_swap, high_yield, fast_augment)
    are accepted and ignored: SP-Defense always changes exactly one word.
    """

    name = "sp-defense"

    def __init__(
        self,
        mode="auto",
        model=None,
        special_words=None,
        vocabulary=None,
        transformations_per_example=1,
        seed=0,
        device=None,
        vocab_data="auto",
        gradient_candidates=None,
        **ignored,
    ):
        if mode not in MODES + ("auto", "mix"):
            raise ValueError(f"unknown SP-Defense mode {mode!r}; use one of auto, mix, {', '.join(MODES)}")
        if vocab_data == "auto":
            vocab_data = "mr" if isinstance(model, str) and model.startswith("mr-") else None
        if isinstance(model, str):
            model = load_model_wrapper(model, device=device)
        self.model_wrapper = model
        self.clf = None
        if model is not None:
            self.clf = (
                model
                if isinstance(model, TokenClassifier)
                else TokenClassifier.from_model_wrapper(model, "SP-Defense augmentation with a model", device=device)
            )
        if mode == "auto":
            mode = "gradient" if self.clf is not None else "random"
            logger.warning(
                "sp-defense: mode 'auto' -> %r (%s)",
                mode,
                "a model was given" if self.clf else "no model given: random word replacement only",
            )
        if mode in ("gradient", "mix") and self.clf is None:
            raise ValueError(f"sp-defense mode {mode!r} needs a model (recipe parameter model=...)")
        if isinstance(special_words, (str, Path)):
            special_words = load_special_words(special_words)
        if mode == "special" and not special_words:
            raise ValueError("sp-defense mode 'special' needs a saved special-word table (special_words=path)")
        self.mode = mode
        self.special_words = special_words or {}
        self.vocab = self.clf.vocabulary() if self.clf is not None else None
        if isinstance(vocabulary, tuple) and len(vocabulary) == 2 and not isinstance(vocabulary[0], str):
            self.vocab, vocabulary = vocabulary, list(vocabulary[1])
        elif vocabulary is None and vocab_data and self.clf is not None:
            self.vocab = augmentation_vocabulary(self.clf, load_examples(vocab_data, "train"))
            logger.info("sp-defense: %d vocabulary words that occur in %s", len(self.vocab[1]), vocab_data)
        if vocabulary is None:
            if self.vocab is not None:
                vocabulary = self.vocab[1]
            else:
                vocabulary = sorted(load_synonyms())
        self.vocabulary = list(vocabulary)
        self.transformations_per_example = int(transformations_per_example)
        if gradient_candidates is None:
            gradient_candidates = default_gradient_candidates(self.clf) if self.clf is not None else 1
        self.gradient_candidates = int(gradient_candidates)
        self.rng = random.Random(seed)
        self._calls = 0

    def _predict(self, texts):
        return self.clf.predict_texts(texts).argmax(1).tolist()

    def augment_examples(self, examples, modes=None):
        """``[(text, label)] -> [(augmented_text, label, mode)]`` — one augmentation per example, label kept.

        A row whose text cannot be augmented (docs/methods.md §6: empty, control characters, no
        words, ...) comes back unchanged with mode ``"skipped"``; ``self.skip_reasons`` maps its
        index to the reason.
        """
        self.skip_reasons = {i: r for i, (t, _) in enumerate(examples) if (r := bad_text_reason(t))}
        if self.skip_reasons:
            good = [i for i in range(len(examples)) if i not in self.skip_reasons]
            done = (
                self.augment_examples([examples[i] for i in good], None if modes is None else [modes[i] for i in good])
                if good
                else []
            )
            reasons, out = self.skip_reasons, [(t, y, "skipped") for t, y in examples]
            for i, row in zip(good, done):
                out[i] = row
            self.skip_reasons = reasons
            return out
        texts = [t for t, _ in examples]
        labels = [y for _, y in examples]
        if any(y is None for y in labels) and self.clf is not None:
            pred = self._predict(texts)
            labels = [p if y is None else y for y, p in zip(labels, pred)]
        if modes is None:
            modes = [self._next_mode() for _ in examples]
        out = list(texts)
        grad_idx = [i for i, m in enumerate(modes) if m == "gradient"]
        if grad_idx:
            aug = gradient_augment(
                self.clf,
                [texts[i] for i in grad_idx],
                [labels[i] for i in grad_idx],
                self.vocab,
                candidates=self.gradient_candidates,
            )
            for i, t in zip(grad_idx, aug):
                out[i] = t
        for i, m in enumerate(modes):
            if m == "random":
                out[i] = random_augment(texts[i], self.vocabulary, self.rng)
            elif m == "special":
                out[i] = special_augment(texts[i], labels[i], self.special_words, self.rng)
        return [(t, y, m) for t, y, m in zip(out, [y for _, y in examples], modes)]

    def _next_mode(self):
        if self.mode != "mix":
            return self.mode
        self._calls += 1
        if self._calls % 2:
            return "gradient"
        return self.rng.choice(["original", "random"] + (["special"] if self.special_words else []))

    def augment(self, text, label=None):
        """Augmented versions of ``text`` (TextAttack's augmenter interface)."""
        outs = []
        for _ in range(self.transformations_per_example):
            new, _, mode = self.augment_examples([(text, label)])[0]
            if mode == "skipped":
                logger.warning("sp-defense: not augmenting %r: %s", str(text)[:60], self.skip_reasons[0])
                return outs
            if new != text and new not in outs:
                outs.append(new)
        return outs

    def augment_many(self, text_list, show_progress=False):
        return [self.augment(t) for t in text_list]

    def __repr__(self):
        model = type(self.model_wrapper).__name__ if self.model_wrapper else None
        return f"SPDefenseAugmenter(mode={self.mode!r}, model={model})"


def augment_examples(examples, model=None, mode="mix", special_words=None, seed=0, **kwargs):
    """Python API: SP-Defense augmentation of ``(text, label)`` pairs; labels are kept.

    Returns ``[(augmented_text, label, mode_used)]``.
    """
    return SPDefenseAugmenter(mode, model=model, special_words=special_words, seed=seed, **kwargs).augment_examples(
        examples
    )
