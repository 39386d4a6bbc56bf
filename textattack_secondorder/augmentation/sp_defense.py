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
from .gradient import gradient_choice
from .token_edits import EncodedExamples, SurfaceTable

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
# Each augmentation is decided first — which word, which replacement, with the same random draws
# whatever the output — and then applied: to a text (``_replace``) or to token ids (``token_edits``).
def random_choice(words, vocabulary, rng):
    """``(word index, vocabulary index)`` of a random substitution of one of ``words``, or None."""
    if not words:
        return None
    i = rng.randrange(len(words))
    for _ in range(20):
        k = rng.randrange(len(vocabulary))  # the draw of rng.choice(vocabulary)
        if vocabulary[k].lower() != words[i].lower():
            return i, k
    return None


def special_choice(words, special, rng):
    """``(word index, index into special)`` of a special-word substitution of one of ``words``, or None."""
    if not words or not special:
        return None
    i = rng.randrange(len(words))
    current = words[i].lower()
    keep = [k for k, w in enumerate(special) if w != current] if current in special else None
    n = len(special) if keep is None else len(keep)
    if not n:
        return None
    j = rng.randrange(n)  # the draw of rng.choice(candidates)
    return i, (j if keep is None else keep[j])


def _special_for(table, label):
    return table.get(label) or table.get(str(label)) or []


def _replace(text_or_at, index, word):
    at = text_or_at if isinstance(text_or_at, AttackedText) else AttackedText(text_or_at)
    return at.replace_word_at_index(index, match_case(word, at.words[index])).text


def random_augment(text, vocabulary, rng):
    """Replace one random word by a random vocabulary word (different from it)."""
    at = AttackedText(text)
    choice = random_choice(at.words, vocabulary, rng)
    return text if choice is None else _replace(at, choice[0], vocabulary[choice[1]])


def special_augment(text, label, table, rng):
    """Replace a random position by a random word of T(label)."""
    at = AttackedText(text)
    words = _special_for(table, label)
    choice = special_choice(at.words, words, rng)
    return text if choice is None else _replace(at, choice[0], words[choice[1]])


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
    substitutions with the lowest ``v`` with one batched forward pass and applies the one whose
    actual ``log f(y|x')`` is lowest (docs/methods.md §2.4: on the demo word CNN the first-order
    minimum flips 53 % of the sentences it is applied to, the best of 32 checked ones 82 %).
    The choice is made on token ids (:func:`~.gradient.gradient_choice`); only the chosen substitution
    is written as text. Returns the augmented texts (a text with no substitutable word is returned
    unchanged).
    """
    candidates = int(candidates)
    if candidates < 1:
        raise ValueError(f"candidates must be >= 1, got {candidates}")
    vocab_ids, vocab_words = vocab if vocab is not None else clf.vocabulary()
    texts = list(texts)
    out = list(texts)
    if not texts:
        return out
    encoded = EncodedExamples(clf, texts)
    table = SurfaceTable(clf.tokenizer, vocab_words, clf.device) if candidates > 1 else None
    ids = torch.as_tensor(np.asarray(vocab_ids), dtype=torch.long, device=clf.device)
    for s in range(0, len(texts), batch_size):
        rows = np.arange(s, min(s + batch_size, len(texts)))
        y = torch.tensor([0 if v is None else int(v) for v in labels[s : s + batch_size]], device=clf.device)
        word, vocab_index = gradient_choice(clf, encoded, rows, y, ids, table, candidates)
        for k, (i, w) in enumerate(zip(word.tolist(), vocab_index.tolist())):
            if i >= 0:
                out[s + k] = _replace(texts[s + k], i, vocab_words[w])
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

    # -- training: the same augmentations on token ids ------------------------------------------
    def encode(self, examples):
        """Tokenize labelled training ``examples`` once for :meth:`augment_batch` (needs the model)."""
        if self.clf is None:
            raise ValueError("sp-defense: augmenting token ids needs a model")
        self.encoded = EncodedExamples(self.clf, [t for t, _ in examples])
        self._labels = [int(y) for _, y in examples]
        self._bad = [bad_text_reason(t) is not None for t, _ in examples]
        device = self.clf.device
        self._vocab_ids = torch.as_tensor(np.asarray(self.vocab[0]), dtype=torch.long, device=device)
        self._gradient_table = SurfaceTable(self.clf.tokenizer, self.vocab[1], device)
        same = list(self.vocab[1]) == self.vocabulary
        self._random_table = self._gradient_table if same else SurfaceTable(self.clf.tokenizer, self.vocabulary, device)
        self._special_tables = {
            y: SurfaceTable(self.clf.tokenizer, _special_for(self.special_words, y), device) for y in set(self._labels)
        }
        return self.encoded

    def augment_batch(self, rows, modes):
        """Model inputs ``(input_ids, attention_mask)`` of the encoded examples ``rows`` (list of indices
        into the examples given to :meth:`encode`), example ``k`` augmented by ``modes[k]``.

        The same augmentations, from the same random draws, as :meth:`augment_examples` followed by
        tokenizing the texts (padded to the longest, truncated at the classifier's ``max_length``), built
        as token-id operations on the device (:mod:`.token_edits`, :mod:`.gradient`).
        """
        enc, device = self.encoded, self.clf.device
        rows_t = torch.as_tensor(rows, dtype=torch.long, device=device)
        content, lengths = enc.content[rows_t], enc.content_lengths[rows_t]
        edits = []  # (batch positions, word index (-1: none), surface table, surface index) per kind of edit
        grad = [k for k, m in enumerate(modes) if m == "gradient" and not self._bad[rows[k]]]
        for s in range(0, len(grad), 32):  # the chunks of gradient_augment's default batch_size
            part = grad[s : s + 32]
            y = torch.tensor([self._labels[rows[k]] for k in part], device=device)
            vocab = (self._vocab_ids, self._gradient_table, self.gradient_candidates)
            word, vocab_index = gradient_choice(self.clf, enc, [rows[k] for k in part], y, *vocab)
            edits.append((part, word, self._gradient_table, vocab_index))
        by_table = {}
        for k, m in enumerate(modes):
            if self._bad[rows[k]] or m not in ("random", "special"):
                continue
            words = enc.words[rows[k]]
            if m == "random":
                choice, table = random_choice(words, self.vocabulary, self.rng), self._random_table
            else:
                label = self._labels[rows[k]]
                choice = special_choice(words, _special_for(self.special_words, label), self.rng)
                table = self._special_tables[label]
            if choice is not None:
                by_table.setdefault(id(table), (table, []))[1].append((k, *choice))
        for table, items in by_table.values():
            part = [k for k, _, _ in items]
            word = torch.tensor([i for _, i, _ in items], dtype=torch.long, device=device)
            edits.append((part, word, table, torch.tensor([w for _, _, w in items], dtype=torch.long, device=device)))
        for part, word, table, surface in edits:
            r = rows_t[part]
            applies = word >= 0
            new, new_len = enc.edited_content(r, word.clamp(min=0), table, surface)
            width = max(content.shape[1], new.shape[1])
            content = torch.nn.functional.pad(content, (0, width - content.shape[1]))
            new = torch.nn.functional.pad(new, (0, width - new.shape[1]))
            pos = torch.as_tensor(part, dtype=torch.long, device=device)
            content[pos] = torch.where(applies[:, None], new, content[pos])
            lengths[pos] = torch.where(applies, new_len, lengths[pos])
        return enc.with_specials(content, lengths)

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
