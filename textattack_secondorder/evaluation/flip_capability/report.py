"""Report of flip capability κ / robustness ρ: the κ histogram (docs/methods.md §2.1)."""

from ...shared.files import atomic_savefig

# matplotlib inside plot_histogram: its Agg backend is chosen when a plot is drawn, not on importing this module,
# and the CLI imports this module at parse time (`textattack-so --help` stays free of matplotlib's ~1.5 s).


def plot_histogram(result, path):
    """Histogram of κ of a :class:`~.result.FlipCapabilityResult` with log-scale counts (PNG at ``path``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.hist(result.metric.kappa, bins=50, color="#c0504d", log=True)
    ax.set_xlabel("flip capability κ(w)")
    ax.set_ylabel("words (log scale)")
    ax.set_title(f"ρ = {result.rho:.3f}  (|V| = {len(result.metric.words)}, |D+| = {result.metric.num_correct})")
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=110)
    plt.close(fig)
    return path


def format_summary(result, method, star="", top=20):
    """The printed summary: ρ (``star`` = "*" for ρ* on test), cost per sentence, and the ``top`` words by κ."""
    s = result.summary()
    return "\n".join(
        [
            f"ρ{star} = {s['rho']:.4f}"
            + ("" if s.get("rho_standard_error") is None else f" ± {s['rho_standard_error']:.4f} (standard error)")
            + f"  over |V| = {s['vocabulary']} words, "
            f"|D+| = {s['correct']} of {s['examples']} examples",
            f"{s['queries_per_sentence']:.0f} queries and {s['seconds_per_sentence']:.3f} s per sentence ({method})",
            result.top(top).to_string(index=False, float_format=lambda v: f"{v:.4f}"),
        ]
    )
