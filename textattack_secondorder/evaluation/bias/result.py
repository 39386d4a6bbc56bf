"""Results of the counterfactual token bias ``B_{p,k}`` (docs/design/bias.md; Zhang et al. 2021, §4, Eq. 5).

``B_{p,k} = mean over x in Neighbor_k(X_p) of [f_soft(x ⊕ p) - f_soft(x)]`` on the
chosen class's probability. ``B > 0``: the model prefers ``p2``.

* :class:`TokenBiasMetric` keeps per-(pair, k) sums per *source sentence*, so shards of a
  data set can be merged (:meth:`TokenBiasMetric.merge`) and a bootstrap over source
  sentences (:func:`bootstrap_ci`) gives a confidence interval (beyond the paper: tells a
  shift from noise). It is an accumulator, not a TextAttack ``Metric``.
* :class:`BiasReport` holds the table and per-sentence differences; ``save(out_dir)``
  writes CSV/JSON and the PNG plots of :mod:`.report`.
"""

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...shared.files import atomic_write_text
from .report import plot_report


def bootstrap_ci(source_sums, source_counts, n_boot=1000, level=0.95, seed=0):
    """Percentile interval of ``sum(S)/sum(n)`` when source sentences are resampled with replacement."""
    sums = np.asarray(source_sums, dtype=np.float64)
    counts = np.asarray(source_counts, dtype=np.float64)
    if len(sums) == 0 or counts.sum() == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(sums), size=(n_boot, len(sums)))
    num, den = sums[idx].sum(1), counts[idx].sum(1)
    stats = num[den > 0] / den[den > 0]
    alpha = (1.0 - level) / 2.0
    return (float(np.quantile(stats, alpha)), float(np.quantile(stats, 1.0 - alpha)))


class TokenBiasMetric:
    """Accumulates ``f_soft(x ⊕ p) - f_soft(x)`` differences; ``compute()`` gives B with intervals.

    ``update(pair, k, source_ids, diffs)`` adds differences of sentences grown from
    the given source sentences; ``compute()`` returns one row per (pair, k).
    """

    def __init__(self, n_boot=1000, level=0.95, seed=0):
        self.n_boot, self.level, self.seed = n_boot, level, seed
        # (pair, k) -> source id -> [sum, count]
        self.state = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))

    def update(self, pair, k, source_ids, diffs):
        cell = self.state[(tuple(pair), int(k))]
        for s, d in zip(source_ids, diffs):
            cell[s][0] += float(d)
            cell[s][1] += 1
        return self

    def merge(self, other):
        for key, cell in other.state.items():
            mine = self.state[key]
            for s, (tot, n) in cell.items():
                mine[s][0] += tot
                mine[s][1] += n
        return self

    def compute(self):
        rows = []
        for (pair, k), cell in sorted(self.state.items()):
            sums = np.array([v[0] for v in cell.values()])
            counts = np.array([v[1] for v in cell.values()])
            n = int(counts.sum())
            lo, hi = bootstrap_ci(sums, counts, self.n_boot, self.level, self.seed)
            rows.append(
                {
                    "pair": f"{pair[0]}/{pair[1]}",
                    "k": k,
                    "B": float(sums.sum() / n) if n else float("nan"),
                    "ci_low": lo,
                    "ci_high": hi,
                    "sentences": n,
                    "sources": int((counts > 0).sum()),
                }
            )
        return rows


@dataclass
class BiasReport:
    table: "object"  # pandas DataFrame: pair, group, k, B, ci_low, ci_high, sentences, sources
    sentences: "object"  # pandas DataFrame: pair, k, source, text, diff
    counts: dict = field(default_factory=dict)  # pair -> {"original": n_k0, "perturbed": n_kmax}
    settings: dict = field(default_factory=dict)

    def save(self, out_dir, plots=True):
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out / "bias_table.csv", self.table.to_csv(index=False))
        atomic_write_text(out / "bias_sentences.csv", self.sentences.to_csv(index=False))
        atomic_write_text(
            out / "bias_summary.json",
            json.dumps(
                {"settings": self.settings, "counts": self.counts, "table": self.table.to_dict(orient="records")},
                indent=2,
                default=float,
            ),
        )
        if plots and len(self.sentences):
            plot_report(self, out)
        return out
