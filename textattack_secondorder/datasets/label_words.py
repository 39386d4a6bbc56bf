"""How much each word of a labelled data set leans to each label (docs/design/defenses.md Eq. 6,
docs/design/single-word.md).

Xu et al.'s Eq. 6 compares a word's add-one smoothed log frequency in the training sentences of one label with
its log frequency in those of another: SP-Defense's special words T(y) are the words that lean at least one nat
to another label than ``y``. SP-Attack's label rule (docs/design/single-word.md) reads the same numbers to say how far a
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


def label_shares(counts, labels):
    """Each label's share of all the words counted (``π_c``), in the order of ``labels``."""
    totals = np.array([sum(counts[y].values()) for y in labels], dtype=np.float64)
    return totals / totals.sum()


def prior_log_odds(n, shares, prior):
    """``log P(c | w) / π_c`` for each label ``c``, from the word's counts ``n`` in the sentences of each label, under
    a Dirichlet prior of ``prior`` pseudo-occurrences spread as the labels' shares ``π``::

        P(c | w) = (n_c + s · π_c) / (Σ n + s)

    A word never seen gets ``P(c | w) = π_c`` (0 for every label); a word seen once, in a sentence of label ``c``,
    with ``s = 1`` and two balanced labels gets ``P(c | w) = 3/4`` (a margin of log 3 = 1.1 nats over the other)."""
    p = (n + prior * shares) / (n.sum() + prior)
    return np.log(p / shares)


def prior_lean(n, shares, prior):
    """The lean of a word (or a pool of words) seen ``n`` times in the sentences of each label: the margin of each
    label's :func:`prior_log_odds` over the other labels'."""
    return _margins(prior_log_odds(np.asarray(n, dtype=np.float64), shares, prior))


class LabelLean:
    """How far each word leans to each label in labelled sentences (Eq. 6's log-frequency margin).

    ``lean(w)[c] = log freq(w, c) − max_{c' ≠ c} log freq(w, c')``: positive when ``w`` is more frequent in the
    sentences of label ``c`` than in those of any other label (two labels: the log ratio, with opposite signs).
    A word outside the table (rarer than ``min_count``, or not letters only) leans nowhere (0).

    With ``prior`` (:meth:`from_examples`) the lean is read from few occurrences instead
    (:func:`prior_lean`): a word seen once, in a sentence of one label, leans to it.

    Args:
        logf: ``{label: {word: log frequency}}`` (:func:`label_log_frequencies`).
        name: where the numbers come from (said in the summary row, e.g. ``"mr:train"``).
    """

    def __init__(self, logf, name=None, prior=None):
        if len(logf) < 2:
            raise ValueError(f"label lean needs sentences of at least 2 labels, got {len(logf)}")
        self.labels = sorted(logf, key=str)
        self.name = name
        self.prior = prior
        words = sorted(set().union(*(set(v) for v in logf.values())))
        table = np.array([[logf[y].get(w, 0.0) for y in self.labels] for w in words], dtype=np.float64)
        table = table.reshape(len(words), len(self.labels))  # no word frequent enough: an empty table
        self._lean = dict(zip(words, _margins(table)))
        self._zero = np.zeros(len(self.labels))

    @classmethod
    def from_examples(cls, examples, name=None, min_count=2, prior=None):
        """The lean of every word of ``examples`` (``(text, label)`` pairs; rows without a label are left out).

        ``prior``: None = Eq. 6's add-one smoothed margin of the words seen ``min_count`` times or more; a number
        ``s`` = the lean of every word seen at all, under a prior of ``s`` pseudo-occurrences (:func:`prior_lean`).
        """
        labelled = [(t, y) for t, y in examples if y is not None]
        if prior is None:
            return cls(label_log_frequencies(labelled, min_count), name=name)
        counts = label_word_counts(labelled)
        labels = sorted(counts, key=str)
        shares = label_shares(counts, labels)
        words = sorted(_vocabulary(counts, 1))
        logf = {y: {} for y in labels}
        for w in words:  # log P(c|w)/π_c: the margins of these are the lean (see prior_lean)
            odds = prior_log_odds(np.array([counts[y][w] for y in labels], dtype=np.float64), shares, prior)
            for y, v in zip(labels, odds):
                logf[y][w] = v
        return cls(logf, name=name, prior=prior)

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
    """The label lean of a word *together with its synonyms* (docs/design/single-word.md, rule ``'lean-synonyms'``).

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

    def __init__(self, counts, synonyms, name=None, min_count=2, prior=None):
        if len(counts) < 2:
            raise ValueError(f"label lean needs sentences of at least 2 labels, got {len(counts)}")
        self.labels = sorted(counts, key=str)
        self.name = name
        self.synonyms = synonyms
        self.prior = prior
        self.min_count = 1 if prior is not None else min_count
        self._counts = [counts[y] for y in self.labels]
        self._vocab = len(_vocabulary(counts, min_count))
        self._totals = [sum(c.values()) for c in self._counts]
        self._shares = label_shares(counts, self.labels)
        self._zero = np.zeros(len(self.labels))
        self._cache = {}

    @classmethod
    def from_examples(cls, examples, synonyms, name=None, min_count=2, prior=None):
        """The pooled lean of ``examples`` (``(text, label)`` pairs; rows without a label are left out); ``prior``
        as for :meth:`LabelLean.from_examples`."""
        labelled = [(t, y) for t, y in examples if y is not None]
        return cls(label_word_counts(labelled), synonyms, name, min_count, prior)

    def lean(self, word):
        """``lean_S(word)`` over :attr:`labels` (zeros when the word and its synonyms are rarer than ``min_count``)."""
        word = word.lower()
        if word not in self._cache:
            pool = {word, *(s.lower() for s in self.synonyms.get(word, ()))}
            n = [sum(c[v] for v in pool) for c in self._counts]
            if sum(n) < self.min_count:
                self._cache[word] = self._zero
            elif self.prior is not None:
                self._cache[word] = prior_lean(n, self._shares, self.prior)
            else:
                self._cache[word] = _margins(
                    np.array([_smoothed_log(k, t, self._vocab) for k, t in zip(n, self._totals)])
                )
        return self._cache[word]

    def shift(self, old, new):
        """How far the swap ``old -> new`` moves the pooled lean towards some label, in nats (as
        :meth:`LabelLean.shift`)."""
        return float(np.max(self.lean(new) - self.lean(old)))

    def __repr__(self):
        return f"SynonymLabelLean({self.name or 'data'}, labels {self.labels})"
