"""Plots of a counterfactual-bias report (docs/design/bias.md).

``hist_k.png``: histogram of the per-sentence differences for each k;
``bias_vs_k.png``: ``B_{p,k}`` with its bootstrap interval against k, one line per pair.
"""

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ...shared.files import atomic_savefig


def plot_report(report, out_dir):
    """``hist_k.png`` (differences per k) and ``bias_vs_k.png`` (B with intervals per pair)."""
    df, tab = report.sentences, report.table
    ks = sorted(df["k"].unique())
    # figures drawn without pyplot: no backend is chosen, no global state
    fig = Figure(figsize=(3.2 * len(ks), 2.8))
    axes = fig.subplots(1, len(ks), sharey=False, squeeze=False)
    for ax, k in zip(axes[0], ks):
        ax.hist(df.loc[df["k"] == k, "diff"], bins=40, color="#4472c4")
        ax.axvline(0, color="k", lw=0.8)
        ax.set_title(f"k = {k}  (n = {int((df['k'] == k).sum())})")
        ax.set_xlabel("f(x ⊕ p) − f(x)")
    axes[0][0].set_ylabel("sentences")
    fig.tight_layout()
    atomic_savefig(fig, Path(out_dir) / "hist_k.png", dpi=110)

    fig = Figure(figsize=(5.5, 3.6))
    ax = fig.subplots()
    for pair, g in tab.groupby("pair"):
        g = g.sort_values("k")
        err = np.vstack([g["B"] - g["ci_low"], g["ci_high"] - g["B"]])
        ax.errorbar(g["k"], g["B"], yerr=err, marker="o", capsize=3, label=pair)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("k (substitutions)")
    ax.set_ylabel("B_{p,k}")
    ax.set_xticks(ks)
    if tab["pair"].nunique() <= 12:
        ax.legend(fontsize=7)
    fig.tight_layout()
    atomic_savefig(fig, Path(out_dir) / "bias_vs_k.png", dpi=110)
