"""Summary of per-example meaning-preservation rows, as TEAPOT reports it (docs/design/meaning.md).

Mean, population std, 5–95 % range of each score, and the success percentage.
"""

import numpy as np

# TEAPOT reports the 5 %-95 % range of each score
PERCENTILES = (5.0, 95.0)


def summarize(values):
    """TEAPOT's aggregate of one score: ``{"n", "mean", "std", "p5", "p95"}`` (population std, NaN when empty)."""
    v = np.asarray([float(x) for x in values], dtype=float)
    if v.size == 0:
        nan = float("nan")
        return {"n": 0, "mean": nan, "std": nan, "p5": nan, "p95": nan}
    lo, hi = np.percentile(v, PERCENTILES)
    return {"n": int(v.size), "mean": float(v.mean()), "std": float(v.std()), "p5": float(lo), "p95": float(hi)}


def summary(rows):
    """Aggregates of per-example rows (from :func:`evaluate_classification` / :func:`evaluate_seq2seq`).

    Returns ``{"n", "source_chrf": summarize(...), "target_destruction": summarize(...), "success_pct"}``.
    """
    rows = list(rows)
    n = len(rows)
    return {
        "n": n,
        "source_chrf": summarize(r["source_chrf"] for r in rows),
        "target_destruction": summarize(r["target_destruction"] for r in rows),
        "success_pct": (100.0 * sum(bool(r["success"]) for r in rows) / n) if n else float("nan"),
    }
