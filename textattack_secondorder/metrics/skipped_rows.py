"""Summary-table rows counting the rows the recipes' input guard skipped, by kind (docs/methods.md §6).

The guard (:mod:`~textattack_secondorder.attack_recipes.input_guard`) marks every result
with ``skip_kind``: ``"input"`` (bad text or label, duplicate row), ``"model"`` (the
model's scores for the row are unusable), ``"error"`` (an exception while attacking the
row) or ``"method"`` (the attack's own rule, e.g. already misclassified); ``None`` when
the row was attacked.
"""

from textattack.metrics import Metric


class SkippedRows(Metric):
    """Number of results whose ``skip_kind`` is one of ``kinds``."""

    def __init__(self, kinds=("input",)):
        self.kinds = tuple(kinds)

    def calculate(self, results):
        return sum(1 for r in results if getattr(r, "skip_kind", None) in self.kinds)


def skipped_rows_metrics():
    """The rows every guarded recipe adds to the summary table."""
    return {
        "Skipped for bad input:": SkippedRows(("input",)),
        "Skipped after an error:": SkippedRows(("error", "model")),
    }
