"""Result objects of flip capability κ and robustness ρ (docs/design/single-word.md).

:class:`FlipCapability` accumulates ``count[w, c]`` (sentences of class ``c`` flipped
by word ``w``) over ``D+``; :class:`FlipCapabilityResult` carries κ, ρ and the
settings, and is saved as JSON + CSV and reloaded.
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ...shared.files import atomic_write_text
from ...shared.label_names import readable_names
from .report import plot_histogram


class FlipCapability:
    """Accumulated counts ``count[w, c]`` (sentences of class c flipped by w) over ``D+``.

    The metric object of κ/ρ: ``update`` with one sentence's flipping words,
    ``merge`` shards computed separately, ``kappa``/``rho`` at any time.
    """

    def __init__(self, words, num_classes):
        self.words = list(words)
        self.counts = np.zeros((len(self.words), num_classes), dtype=np.int64)
        self.num_correct = 0
        self.num_examples = 0
        self.queries = 0
        self.seconds = 0.0
        self.flips_per_sentence = []  # words that flip each sentence of D+, in order: ρ's standard error

    def update(self, flipped_word_indices, label, queries=0, seconds=0.0):
        flipped = np.asarray(list(flipped_word_indices), dtype=np.int64)
        self.counts[flipped, label] += 1
        self.flips_per_sentence.append(int(len(flipped)))
        self.num_correct += 1
        self.queries += int(queries)
        self.seconds += float(seconds)
        return self

    def merge(self, other):
        if other.words != self.words:
            raise ValueError("cannot merge flip capabilities computed over different vocabularies")
        self.counts += other.counts
        for k in ("num_correct", "num_examples", "queries", "seconds"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.flips_per_sentence = self.flips_per_sentence + other.flips_per_sentence
        return self

    @property
    def kappa(self):
        return self.counts.sum(1) / max(self.num_correct, 1)

    @property
    def rho(self):
        return float(1.0 - self.kappa.mean()) if self.words else float("nan")

    @property
    def rho_standard_error(self):
        """Standard error of ρ over the sentences of ``D+``: ρ = 1 − mean_i (n_i / |V|), with n_i the words
        that flip sentence i, so a set of sentences gives ρ ± this (None below 2 sentences, or when the
        counts per sentence were not recorded: results saved before they were)."""
        n = self.flips_per_sentence
        if len(n) < 2 or len(n) != self.num_correct or not self.words:
            return None
        return float(np.std(np.asarray(n) / len(self.words), ddof=1) / np.sqrt(len(n)))

    def state(self):
        return {
            "words": self.words,
            "counts": self.counts.tolist(),
            "num_correct": self.num_correct,
            "num_examples": self.num_examples,
            "queries": self.queries,
            "seconds": self.seconds,
            "flips_per_sentence": self.flips_per_sentence,
        }

    @classmethod
    def from_state(cls, state):
        obj = cls(state["words"], len(state["counts"][0]) if state["counts"] else 2)
        obj.counts = np.array(state["counts"], dtype=np.int64).reshape(len(obj.words), -1)
        for k in ("num_correct", "num_examples", "queries", "seconds"):
            setattr(obj, k, state[k])
        obj.flips_per_sentence = list(state.get("flips_per_sentence", []))
        return obj


@dataclass
class FlipCapabilityResult:
    """κ for every word, ρ, and the settings that produced them; saved as JSON + CSV and reloadable."""

    metric: FlipCapability
    settings: dict = field(default_factory=dict)
    stats: object = field(default=None, compare=False, repr=False)  # RunStats of the run that computed it

    @property
    def kappa(self):
        return dict(zip(self.metric.words, self.metric.kappa.tolist()))

    @property
    def rho(self):
        return self.metric.rho

    def flip_columns(self):
        """The per-class columns of :meth:`to_frame`: ``flips_<label name>`` where the model has names (its
        ``id2label``, recorded in the settings as ``label_names``), else ``flips_class_<number>``."""
        k = self.metric.counts.shape[1]
        names = readable_names(self.settings.get("label_names"))
        if names and len(names) == k and len(set(names)) == k:
            return [f"flips_{n}" for n in names]
        return [f"flips_class_{c}" for c in range(k)]

    def to_frame(self):
        df = pd.DataFrame({"word": self.metric.words, "kappa": self.metric.kappa})
        for c, column in enumerate(self.flip_columns()):
            df[column] = self.metric.counts[:, c]
        return df.sort_values(["kappa", "word"], ascending=[False, True], kind="stable").reset_index(drop=True)

    def top(self, n=50):
        return self.to_frame().head(n)

    def top_words(self, n=50):
        return self.top(n)["word"].tolist()

    def summary(self):
        m = self.metric
        return {
            "rho": self.rho,
            "rho_standard_error": m.rho_standard_error,
            "vocabulary": len(m.words),
            "correct": m.num_correct,
            "examples": m.num_examples,
            "queries_per_sentence": m.queries / max(m.num_correct, 1),
            "seconds_per_sentence": m.seconds / max(m.num_correct, 1),
        }

    def data_source(self):
        """The data set κ was computed on, as ``load_examples`` names it (``"mr"`` or a CSV path), or None when the
        settings do not say (``"dataset"``, written by ``textattack-so flip-capability`` and the recipe; or the
        older ``"data"`` record, ``NAME:split[:N]``)."""
        name = self.settings.get("dataset")
        if not name:
            found = re.match(r"^(.+):(train|test|dev|validation)\[", str(self.settings.get("data") or ""))
            name = found.group(1) if found else None
        return name if name == "mr" or str(name or "").lower().endswith(".csv") else None

    def save(self, path):
        """Write ``path`` (JSON: settings, summary, state) and ``path`` with .csv (word, κ, per-class flips)."""
        path = Path(path)
        if path.suffix != ".json":
            path = path.with_suffix(".json")
        atomic_write_text(
            path, json.dumps({"settings": self.settings, "summary": self.summary(), "state": self.metric.state()})
        )
        atomic_write_text(path.with_suffix(".csv"), self.to_frame().to_csv(index=False))
        return path

    @classmethod
    def load(cls, path):
        path = Path(path)
        if path.suffix == ".csv":
            path = path.with_suffix(".json")
        if not path.exists():
            raise FileNotFoundError(f"no flip-capability file at {path}")
        data = json.loads(path.read_text())
        return cls(FlipCapability.from_state(data["state"]), data.get("settings", {}))

    def plot_histogram(self, path):
        """Histogram of κ with log-scale counts (PNG); see :func:`.report.plot_histogram`."""
        return plot_histogram(self, path)
