"""The words SP-Defense's augmentations put in (docs/design/defenses.md): the model's training words, and T(y).

* :func:`augmentation_vocabulary` — the model's letters-only vocabulary entries that occur in the training
  examples (what the random and gradient augmentations draw from; the demo word victims carry GloVe
  words no MR sentence has, docs/design/defenses.md);
* :func:`special_word_table` — the paper's Eq. 6, ``T(y) = {t : max_{y'≠y} log freq(t, y') − log freq(t, y) > 1}``
  with add-one smoothed relative frequencies, saved and reloaded as JSON.
"""

import json
from pathlib import Path

import numpy as np
from textattack.shared import AttackedText

from ..datasets.label_words import label_log_frequencies
from ..shared.files import atomic_write_text

SPECIAL_THRESHOLD = 1.0  # paper: log-frequency margin > 1


def augmentation_vocabulary(clf, examples):
    """``(ids, words)``: the model's letters-only vocabulary entries that occur in ``examples``' texts."""
    seen = {w.lower() for t, _ in examples for w in AttackedText(t).words}
    ids, words = clf.vocabulary()
    keep = [k for k, w in enumerate(words) if w.lower() in seen]
    if not keep:
        raise ValueError("no training word is in the model's vocabulary")
    return np.asarray(ids)[keep], [words[k] for k in keep]


def special_word_table(examples, threshold=SPECIAL_THRESHOLD, min_count=2):
    """``{label: [words]}``: T(y) from labelled training examples (docs/design/defenses.md)."""
    logf = label_log_frequencies(examples, min_count)
    vocab = set().union(*(set(v) for v in logf.values()))
    table = {}
    for y in logf:
        others = [o for o in logf if o != y]
        table[y] = sorted(w for w in vocab if others and max(logf[o][w] for o in others) - logf[y][w] > threshold)
    return table


def special_words_for(table, label):
    """T(``label``) of a table whose keys may be the label or its string (a table reloaded from JSON)."""
    return table.get(label) or table.get(str(label)) or []


def save_special_words(table, path):
    atomic_write_text(path, json.dumps({str(k): v for k, v in table.items()}, indent=1))
    return path


def load_special_words(path):
    data = json.loads(Path(path).read_text())
    return {int(k) if str(k).lstrip("-").isdigit() else k: v for k, v in data.items()}
