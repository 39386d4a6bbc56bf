"""The batches of the one-word augmentation mixes that ``defend`` trains on: SP-Defense, Rand, continue.

SP-Defense (Xu et al., §5): each batch half gradient-based augmented examples, half drawn uniformly from
{original, random-augmented, special-word-augmented}; labels unchanged. The ``rand`` baseline replaces the
gradient half by random augmentation (half random, half original), ``continue`` trains on the original
examples only (the vanilla-continued control). The gradient augmentation uses the model being trained (its
current weights), as in the paper. Rows are drawn iid from the training examples; every augmentation is a
token-id operation of a :class:`~.token_augmenter.TokenAugmenter` on the classifier's device.

Defaults: the gradient augmentation checks :func:`~.gradient.default_gradient_candidates` candidates (1, the
paper's Eq. 5 minimum, on a transformer; 32 on a word model, where the Eq. 5 minimum left SP-Attack's success
where plain fine-tuning put it); the words the random and gradient augmentations put in are the model's
letters-only vocabulary entries that occur in the training examples (:func:`~.vocabulary.augmentation_vocabulary`:
the demo word models carry GloVe words no MR sentence contains, "kuh", "nuh", on which the training would spend
its updates instead of on the words an attacker uses); the special words are the training set's T(y)
(:func:`~.vocabulary.special_word_table`).
"""

import random

import torch

from .gradient import default_gradient_candidates
from .token_augmenter import TokenAugmenter
from .vocabulary import augmentation_vocabulary, special_word_table

#: the mixes :func:`batch_modes` knows
MIXES = ("sp-defense", "rand", "continue")


def batch_modes(mix, batch_size, rng):
    """The augmentation of each example of one batch of ``mix``.

    sp-defense: the first half gradient, the rest drawn uniformly from original/random/special;
    rand: half random, half original; continue: all original.
    """
    half = batch_size // 2
    if mix == "sp-defense":
        return ["gradient"] * half + [rng.choice(["original", "random", "special"]) for _ in range(batch_size - half)]
    if mix == "rand":
        return ["random"] * half + ["original"] * (batch_size - half)
    return ["original"] * batch_size


class AugmentedBatches:
    """Batches of ``mix`` (one of :data:`MIXES`) over the labelled ``examples`` for ``clf`` (module docstring).

    Args:
        clf: the ``TokenClassifier`` being trained (the gradient mode reads its current weights).
        examples: the training ``[(text, label)]``, tokenized once here.
        mix: ``"sp-defense"``, ``"rand"`` or ``"continue"``.
        batch_size: rows per batch.
        seed: seed of the rows, the modes and the augmentations' draws.
        vocabulary: ``(ids, words)`` the random and gradient augmentations draw from (default
            :func:`~.vocabulary.augmentation_vocabulary`).
        special_words: ``{label: [words]}`` (default :func:`~.vocabulary.special_word_table` of ``examples``).
        gradient_candidates: K of the gradient choice (default :func:`~.gradient.default_gradient_candidates`).

    Calling it gives the next batch, ``(input_ids, attention_mask, labels)`` on the device.
    """

    def __init__(
        self, clf, examples, mix, batch_size, seed=0, vocabulary=None, special_words=None, gradient_candidates=None
    ):
        if mix not in MIXES:
            raise ValueError(f"mix must be one of {MIXES}, got {mix!r}")
        if gradient_candidates is None:
            gradient_candidates = default_gradient_candidates(clf)
        if vocabulary is None:
            vocabulary = augmentation_vocabulary(clf, examples)
        if special_words is None:
            special_words = special_word_table(examples)
        self.augmenter = TokenAugmenter(clf, examples, vocabulary, special_words, gradient_candidates, seed=seed)
        self.labels = torch.tensor([int(y) for _, y in examples], device=clf.device)
        self.rows = len(self.labels)
        self.mix, self.batch_size = mix, int(batch_size)
        self.rng = random.Random(seed)

    def __call__(self):
        """``(input_ids, attention_mask, labels)`` of the next batch."""
        rows = [self.rng.randrange(self.rows) for _ in range(self.batch_size)]
        modes = batch_modes(self.mix, self.batch_size, self.rng)
        input_ids, attention_mask = self.augmenter.augment_batch(rows, modes)
        return input_ids, attention_mask, self.labels[torch.as_tensor(rows, device=self.labels.device)]


__all__ = ["MIXES", "AugmentedBatches", "batch_modes"]
