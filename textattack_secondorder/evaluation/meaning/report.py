"""Printed report of a meaning-preservation summary, in TEAPOT's format (docs/design/meaning.md)."""


def format_summary(s, target_name="RDchrF"):
    """TEAPOT-style text block (scores × 100, as TEAPOT prints them); with no row judged, one line saying so
    instead of scores of nothing."""
    if not s["n"]:
        return "Examples: 0 (no row to judge: no score and no success percentage)"

    def block(title, d):
        return (
            f"{title}:\nMean: {100 * d['mean']:.3f}\nStd: {100 * d['std']:.3f}\n"
            f"5%-95%: {100 * d['p5']:.3f}-{100 * d['p95']:.3f}\n-----"
        )

    return "\n".join(
        [
            f"Examples: {s['n']}",
            block("Source side preservation (chrF)", s["source_chrf"]),
            block(f"Target side degradation ({target_name})", s["target_destruction"]),
            f"Success percentage: {s['success_pct']:.2f} %",
        ]
    )
