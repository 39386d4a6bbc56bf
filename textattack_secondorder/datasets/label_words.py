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


def label_word_counts(examples):
    """``{label: Counter(word)}``: how often each lower-cased word occurs in the sentences of each label."""
    counts = {}
    for text, label in examples:
        counts.setdefault(label, Counter()).update(w.lower() for w in AttackedText(text).words)
    return counts


def _vocabulary(counts, min_count):
    """The letters-only words that occur at least ``min_count`` times in the sentences of some label."""
    return {w for c in counts.values() for w, n in c.items() if n >= min_count and w.isalpha()}


def label_log_frequencies(examples, min_count=2):
    """``{label: {word: log freq(word, label)}}``: add-one smoothed relative frequencies of the lower-cased,
    letters-only words that occur at least ``min_count`` times in the sentences of some label."""
    counts = label_word_counts(examples)
    vocab = _vocabulary(counts, min_count)
    totals = {y: sum(c.values()) for y, c in counts.items()}
    return {y: {w: _smoothed_log(c[w], totals[y], len(vocab)) for w in vocab} for y, c in counts.items()}


def _smoothed_log(count, total, vocab):
    """Eq. 6's add-one smoothed log relative frequency of a word (or a pool of words) seen ``count`` times among
    ``total`` words of a label, ``vocab`` the vocabulary's size."""
    return math.log((count + 1) / (total + vocab))


def _margins(logf):
    """Eq. 6's margin of every label over the others, ``logf[..., c] − max_{c' ≠ c} logf[..., c']`` (the last
    axis: the labels' log frequencies)."""
    out = np.empty_like(logf)
    for c in range(logf.shape[-1]):
        out[..., c] = logf[..., c] - np.delete(logf, c, axis=-1).max(axis=-1)
    return out


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
        self._lean = dict(zip(words, _margins(table)))
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


class SynonymLabelLean:
    """The label lean of a word *together with its synonyms* (docs/methods.md §2.5, rule ``'lean-synonyms'``).

    A word that a few thousand training sentences hold once or twice ("feeble", "satisfying", "heartfelt")
    leans nowhere in :class:`LabelLean`, so a swap that reverses the sentence through it passes. Its
    counter-fitted synonyms are mostly seen more often and carry the same opinion ("feeble": weak, frail,
    flimsy; "satisfying": gratifying, rewarding), and the list keeps antonyms apart. This lean pools the counts:
    ``freq(S(w), c) = Σ_{v ∈ {w} ∪ N(w)} count(v, c)``, smoothed and compared across labels as Eq. 6 compares a
    single word's, ``lean_S(w)[c] = log freq(S(w), c) − max_{c' ≠ c} log freq(S(w), c')``. A pool seen fewer
    than ``min_count`` times leans nowhere.

    Args:
        counts: ``{label: Counter(word)}`` (:func:`label_word_counts`).
        synonyms: ``{word: [synonyms]}``-like (``.get(word, ())``), e.g. the package's counter-fitted list.
        name: where the counts come from (said in the summary row).
    """

    def __init__(self, counts, synonyms, name=None, min_count=2):
        if len(counts) < 2:
            raise ValueError(f"label lean needs sentences of at least 2 labels, got {len(counts)}")
        self.labels = sorted(counts, key=str)
        self.name = name
        self.synonyms = synonyms
        self.min_count = min_count
        self._counts = [counts[y] for y in self.labels]
        self._vocab = len(_vocabulary(counts, min_count))
        self._totals = [sum(c.values()) for c in self._counts]
        self._zero = np.zeros(len(self.labels))
        self._cache = {}

    @classmethod
    def from_examples(cls, examples, synonyms, name=None, min_count=2):
        """The pooled lean of ``examples`` (``(text, label)`` pairs; rows without a label are left out)."""
        return cls(label_word_counts([(t, y) for t, y in examples if y is not None]), synonyms, name, min_count)

    def lean(self, word):
        """``lean_S(word)`` over :attr:`labels` (zeros when the word and its synonyms are rarer than ``min_count``)."""
        word = word.lower()
        if word not in self._cache:
            pool = {word, *(s.lower() for s in self.synonyms.get(word, ()))}
            n = [sum(c[v] for v in pool) for c in self._counts]
            logf = np.array([_smoothed_log(k, t, self._vocab) for k, t in zip(n, self._totals)])
            self._cache[word] = self._zero if sum(n) < self.min_count else _margins(logf)
        return self._cache[word]

    def shift(self, old, new):
        """How far the swap ``old -> new`` moves the pooled lean towards some label, in nats (as
        :meth:`LabelLean.shift`)."""
        return float(np.max(self.lean(new) - self.lean(old)))

    def __repr__(self):
        return f"SynonymLabelLean({self.name or 'data'}, labels {self.labels})"
