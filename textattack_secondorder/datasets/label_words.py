"""How much each word of a labelled data set leans to each label (docs/methods.md §2.4 Eq. 6, §2.5).

Xu et al.'s Eq. 6 compares a word's add-one smoothed log frequency in the training sentences of one label with
its log frequency in those of another: SP-Defense's special words T(y) are the words that lean at least one nat
to another label than ``y``. SP-Attack's label rule (docs/methods.md §2.5) reads the same numbers to say how far a
one-word swap moves a sentence's words towards another label. Both are computed here, once, from ``(text, label)``
pairs; nothing here loads a model.
"""

import math
from collections import Counter

import numpy as np
from textattack.shared import AttackedText


def label_log_frequencies(examples, min_count=2):
    """``{label: {word: log freq(word, label)}}``: add-one smoothed relative frequencies of the lower-cased,
    letters-only words that occur at least ``min_count`` times in the sentences of some label."""
    counts = {}
    for text, label in examples:
        counts.setdefault(label, Counter()).update(w.lower() for w in AttackedText(text).words)
    vocab = {w for c in counts.values() for w, n in c.items() if n >= min_count and w.isalpha()}
    totals = {y: sum(c.values()) for y, c in counts.items()}
    return {y: {w: math.log((c[w] + 1) / (totals[y] + len(vocab))) for w in vocab} for y, c in counts.items()}


class LabelLean:
    """How far each word leans to each label in labelled sentences (Eq. 6's log-frequency margin).

    ``lean(w)[c] = log freq(w, c) − max_{c' ≠ c} log freq(w, c')``: positive when ``w`` is more frequent in the
    sentences of label ``c`` than in those of any other label (two labels: the log ratio, with opposite signs).
    A word outside the table (rarer than ``min_count``, or not letters only) leans nowhere (0).

    Args:
        logf: ``{label: {word: log frequency}}`` (:func:`label_log_frequencies`).
        name: where the numbers come from (said in the summary row, e.g. ``"mr:train"``).
    """

    def __init__(self, logf, name=None):
        if len(logf) < 2:
            raise ValueError(f"label lean needs sentences of at least 2 labels, got {len(logf)}")
        self.labels = sorted(logf, key=str)
        self.name = name
        words = sorted(set().union(*(set(v) for v in logf.values())))
        table = np.array([[logf[y].get(w, 0.0) for y in self.labels] for w in words], dtype=np.float64)
        table = table.reshape(len(words), len(self.labels))  # no word frequent enough: an empty table
        # lean of label c: its log frequency minus the largest of the others'
        lean = np.empty_like(table)
        for c in range(len(self.labels)):
            lean[:, c] = table[:, c] - np.delete(table, c, axis=1).max(axis=1)
        self._lean = dict(zip(words, lean))
        self._zero = np.zeros(len(self.labels))

    @classmethod
    def from_examples(cls, examples, name=None, min_count=2):
        """The lean of every word of ``examples`` (``(text, label)`` pairs; rows without a label are left out)."""
        return cls(label_log_frequencies([(t, y) for t, y in examples if y is not None], min_count), name=name)

    def lean(self, word):
        """``lean(word)`` over :attr:`labels` (zeros for a word outside the table)."""
        return self._lean.get(word.lower(), self._zero)

    def shift(self, old, new):
        """How far the swap ``old -> new`` moves a sentence's words towards some label, in nats:
        ``max_c lean(new)[c] − lean(old)[c]`` (two labels: ``|lean(new) − lean(old)|`` of either one)."""
        return float(np.max(self.lean(new) - self.lean(old)))

    def __repr__(self):
        return f"LabelLean({self.name or 'data'}, {len(self._lean)} words, labels {self.labels})"
