"""SP-Defense: data augmentation against single-word perturbations (Xu et al., §5; docs/design/defenses.md).

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
gradient-augmented, half drawn from {original, random, special}. ``defend`` trains on
:class:`~.token_augmenter.TokenAugmenter`, the same choices as token-id operations; this module is the
text face (TextAttack's augmenter, ``sp-augment``, Python), which loads a model given by name on first use.
The parts live beside it: the words (:mod:`.vocabulary`), the random draws (:mod:`.draws`), Eq. 5
(:mod:`.gradient`) and the token-id edits (:mod:`.token_edits`).

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

import logging
import random
from functools import cached_property
from pathlib import Path

import numpy as np
import torch
from textattack.shared import AttackedText

from ..datasets.examples import load_examples
from ..models.loading import load_model_wrapper
from ..models.token_classifier import TokenClassifier
from ..resources import load_synonyms
from ..shared.inputs import bad_text_reason
from ..shared.text import match_case
from .draws import random_choice, special_choice
from .gradient import WORD_MODEL_GRADIENT_CANDIDATES, default_gradient_candidates, gradient_choice
from .token_edits import EncodedExamples, SurfaceTable
from .vocabulary import (
    SPECIAL_THRESHOLD,
    augmentation_vocabulary,
    load_special_words,
    save_special_words,
    special_word_table,
    special_words_for,
)

logger = logging.getLogger(__name__)

MODES = ("random", "gradient", "special")
# the names this module has always offered, now at home in .vocabulary, .draws and .gradient
__all__ = [
    "MODES",
    "SPECIAL_THRESHOLD",
    "WORD_MODEL_GRADIENT_CANDIDATES",
    "SPDefenseAugmenter",
    "augment_examples",
    "augmentation_vocabulary",
    "default_gradient_candidates",
    "gradient_augment",
    "load_special_words",
    "random_augment",
    "random_choice",
    "save_special_words",
    "special_augment",
    "special_choice",
    "special_word_table",
]


# ----------------------------------------------------------------------------- one-word edits as text
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
    words = special_words_for(table, label)
    choice = special_choice(at.words, words, rng)
    return text if choice is None else _replace(at, choice[0], words[choice[1]])


def gradient_augment(clf, texts, labels, vocab=None, batch_size=32, candidates=1):
    """Lowest-``v`` single substitution of each text (one batched forward+backward per chunk).

    ``clf``: a :class:`~textattack_secondorder.models.token_classifier.TokenClassifier`.
    ``candidates``: 1 (default) applies the Eq. 5 minimum, as the paper does. K > 1 checks the K
    substitutions with the lowest ``v`` with one batched forward pass and applies the one whose
    actual ``log f(y|x')`` is lowest (docs/design/defenses.md, item 7).
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
    """Augmenter for ``textattack augment --recipe sp-defense`` and Python use (text in, text out).

    Nothing is loaded when it is made: a model given by name is loaded, and its vocabulary read, the
    first time an augmentation needs them. ``defend`` trains on :class:`~.token_augmenter.TokenAugmenter`
    instead, which makes the same choices on token ids.

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
            forward pass and applies the one that hurts most (default: :func:`~.gradient.default_gradient_candidates`
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
        if mode == "auto":
            mode = "gradient" if model is not None else "random"
            logger.warning(
                "sp-defense: mode 'auto' -> %r (%s)",
                mode,
                "a model was given" if model is not None else "no model given: random word replacement only",
            )
        if mode in ("gradient", "mix") and model is None:
            raise ValueError(f"sp-defense mode {mode!r} needs a model (recipe parameter model=...)")
        if isinstance(special_words, (str, Path)):
            special_words = load_special_words(special_words)
        if mode == "special" and not special_words:
            raise ValueError("sp-defense mode 'special' needs a saved special-word table (special_words=path)")
        self.mode = mode
        self.special_words = special_words or {}
        self._model, self._device, self._vocab_data = model, device, vocab_data
        self._vocabulary, self._gradient_candidates = vocabulary, gradient_candidates
        self.transformations_per_example = int(transformations_per_example)
        self.rng = random.Random(seed)
        self._calls = 0

    # -- what a model given by name becomes, on first use ------------------------------------------
    @cached_property
    def model_wrapper(self):
        """The model wrapper (or ``TokenClassifier``) given, loaded now if it was given by name; None without one."""
        model = self._model
        return load_model_wrapper(model, device=self._device) if isinstance(model, str) else model

    @cached_property
    def clf(self):
        """The model's :class:`~..models.token_classifier.TokenClassifier`, or None without a model."""
        model = self.model_wrapper
        if model is None or isinstance(model, TokenClassifier):
            return model
        return TokenClassifier.from_model_wrapper(model, "SP-Defense augmentation with a model", device=self._device)

    @cached_property
    def vocab(self):
        """``(ids, words)`` the gradient mode draws from (None without a model): the ``vocabulary`` given as
        ids and words, else the model's letters-only vocabulary (only the words of ``vocab_data`` if set)."""
        given = self._vocabulary
        if isinstance(given, tuple) and len(given) == 2 and not isinstance(given[0], str):
            return given
        if self.clf is None:
            return None
        if given is None and self._vocab_data:
            vocab = augmentation_vocabulary(self.clf, load_examples(self._vocab_data, "train"))
            logger.info("sp-defense: %d vocabulary words that occur in %s", len(vocab[1]), self._vocab_data)
            return vocab
        return self.clf.vocabulary()

    @cached_property
    def vocabulary(self):
        """The words the random mode draws from."""
        given = self._vocabulary
        if given is not None:
            return list(given[1] if isinstance(given, tuple) and not isinstance(given[0], str) else given)
        return list(self.vocab[1]) if self.vocab is not None else sorted(load_synonyms())

    @cached_property
    def gradient_candidates(self):
        """K of the gradient mode (``gradient_candidates`` given, else the model's default; 1 without a model)."""
        if self._gradient_candidates is not None:
            return int(self._gradient_candidates)
        return default_gradient_candidates(self.clf) if self._model is not None else 1

    def _predict(self, texts):
        return self.clf.predict_texts(texts).argmax(1).tolist()

    def augment_examples(self, examples, modes=None):
        """``[(text, label)] -> [(augmented_text, label, mode)]`` — one augmentation per example, label kept.

        A row whose text cannot be augmented (docs/design/hostile-input.md: empty, control characters, no
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
        model = self._model if isinstance(self._model, str) or self._model is None else type(self._model).__name__
        return f"SPDefenseAugmenter(mode={self.mode!r}, model={model})"


def augment_examples(examples, model=None, mode="mix", special_words=None, seed=0, **kwargs):
    """Python API: SP-Defense augmentation of ``(text, label)`` pairs; labels are kept.

    Returns ``[(augmented_text, label, mode_used)]``.
    """
    return SPDefenseAugmenter(mode, model=model, special_words=special_words, seed=seed, **kwargs).augment_examples(
        examples
    )
