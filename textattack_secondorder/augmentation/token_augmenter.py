"""SP-Defense's augmentations of one training set as token-id operations: what ``defend`` trains on.

:class:`TokenAugmenter` is built by the batch source of the augmentation mixes
(:class:`~.augmented_batches.AugmentedBatches`) from the :class:`~..models.token_classifier.TokenClassifier`
being trained and the labelled training examples. The
examples are tokenized once (:class:`~.token_edits.EncodedExamples`); a batch is then a list of example
indices and one augmentation per example — ``original``, ``random``, ``special`` or ``gradient`` — and
:meth:`TokenAugmenter.augment_batch` returns the model inputs, built on the device as splices of token ids
(:mod:`.token_edits`, the gradient choice of :mod:`.gradient`). The choices are the text path's
(:class:`~.sp_defense.SPDefenseAugmenter`), draw for draw; the speed this buys is in docs/design/defenses.md.
"""

import random

import numpy as np
import torch

from ..shared.inputs import bad_text_reason
from .draws import random_choice, special_choice
from .gradient import gradient_choice
from .token_edits import EncodedExamples, SurfaceTable
from .vocabulary import special_words_for

GRADIENT_CHUNK = 32  # sentences per Eq. 5 forward/backward (the text path's default batch size)


class TokenAugmenter:
    """One-word augmentations of the labelled ``examples`` on token ids (module docstring).

    Args:
        clf: the ``TokenClassifier`` being trained (the gradient mode reads its current weights).
        examples: ``[(text, label)]``, tokenized once here.
        vocabulary: ``(ids, words)`` the random and gradient augmentations draw from
            (:func:`~.vocabulary.augmentation_vocabulary`).
        special_words: ``{label: [words]}``, T(y) (:func:`~.vocabulary.special_word_table`).
        gradient_candidates: K of the gradient choice (1: the paper's Eq. 5 minimum; :mod:`.gradient`).
        seed: seed of the random and special-word draws.
    """

    def __init__(self, clf, examples, vocabulary, special_words, gradient_candidates=1, seed=0):
        self.clf = clf
        self.words = list(vocabulary[1])
        self.special_words = special_words or {}
        self.gradient_candidates = int(gradient_candidates)
        self.rng = random.Random(seed)
        self.labels = [int(y) for _, y in examples]
        self.bad = [bad_text_reason(t) is not None for t, _ in examples]
        self.encoded = EncodedExamples(clf, [t for t, _ in examples])
        device = clf.device
        self.vocab_ids = torch.as_tensor(np.asarray(vocabulary[0]), dtype=torch.long, device=device)
        self.table = SurfaceTable(clf.tokenizer, self.words, device)
        self.special_tables = {
            y: SurfaceTable(clf.tokenizer, special_words_for(self.special_words, y), device) for y in set(self.labels)
        }

    def augment_batch(self, rows, modes):
        """Model inputs ``(input_ids, attention_mask)`` of the examples ``rows`` (indices into ``examples``),
        example ``k`` augmented by ``modes[k]``.

        The same augmentations, from the same random draws, as :meth:`~.sp_defense.SPDefenseAugmenter.augment_examples`
        followed by tokenizing the texts (padded to the longest, truncated at the classifier's ``max_length``).
        """
        enc = self.encoded
        rows_t = torch.as_tensor(rows, dtype=torch.long, device=self.clf.device)
        content, lengths = enc.content[rows_t], enc.content_lengths[rows_t]
        for part, word, table, surface in self._gradient_edits(rows, modes) + self._drawn_edits(rows, modes):
            pos = torch.as_tensor(part, dtype=torch.long, device=content.device)
            new, new_len = enc.edited_content(rows_t[part], word.clamp(min=0), table, surface)
            width = max(content.shape[1], new.shape[1])
            content = torch.nn.functional.pad(content, (0, width - content.shape[1]))
            new = torch.nn.functional.pad(new, (0, width - new.shape[1]))
            applies = word >= 0
            content[pos] = torch.where(applies[:, None], new, content[pos])
            lengths[pos] = torch.where(applies, new_len, lengths[pos])
        return enc.with_specials(content, lengths)

    def _gradient_edits(self, rows, modes):
        """``[(batch positions, word index (-1: none), surface table, surface index)]`` of the gradient mode."""
        grad = [k for k, m in enumerate(modes) if m == "gradient" and not self.bad[rows[k]]]
        edits = []
        for s in range(0, len(grad), GRADIENT_CHUNK):
            part = grad[s : s + GRADIENT_CHUNK]
            y = torch.tensor([self.labels[rows[k]] for k in part], device=self.clf.device)
            word, vocab_index = gradient_choice(
                self.clf, self.encoded, [rows[k] for k in part], y, self.vocab_ids, self.table, self.gradient_candidates
            )
            edits.append((part, word, self.table, vocab_index))
        return edits

    def _drawn_edits(self, rows, modes):
        """The random and special-word edits, grouped by surface table, from the draws in batch order."""
        by_table = {}
        for k, m in enumerate(modes):
            if self.bad[rows[k]] or m not in ("random", "special"):
                continue
            words = self.encoded.words[rows[k]]
            if m == "random":
                choice, table = random_choice(words, self.words, self.rng), self.table
            else:
                label = self.labels[rows[k]]
                choice = special_choice(words, special_words_for(self.special_words, label), self.rng)
                table = self.special_tables[label]
            if choice is not None:
                by_table.setdefault(id(table), (table, []))[1].append((k, *choice))
        device = self.clf.device
        return [
            (
                [k for k, _, _ in items],
                torch.tensor([i for _, i, _ in items], dtype=torch.long, device=device),
                table,
                torch.tensor([w for _, _, w in items], dtype=torch.long, device=device),
            )
            for table, items in by_table.values()
        ]
