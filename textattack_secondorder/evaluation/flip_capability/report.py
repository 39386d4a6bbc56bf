"""Report of flip capability κ / robustness ρ: the κ histogram (docs/design/single-word.md)."""

from matplotlib.figure import Figure

from ...shared.files import atomic_savefig


def plot_histogram(result, path):
    """Histogram of κ of a :class:`~.result.FlipCapabilityResult` with log-scale counts (PNG at ``path``)."""
    fig = Figure(figsize=(5, 3.2))  # drawn without pyplot: no backend is chosen, no global state
    ax = fig.subplots()
    ax.hist(result.metric.kappa, bins=50, color="#c0504d", log=True)
    ax.set_xlabel("flip capability κ(w)")
    ax.set_ylabel("words (log scale)")
    ax.set_title(f"ρ = {result.rho:.3f}  (|V| = {len(result.metric.words)}, |D+| = {result.metric.num_correct})")
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=110)
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
