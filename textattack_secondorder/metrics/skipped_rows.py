"""Summary-table rows counting the rows the recipes' input guard skipped, by kind (docs/design/hostile-input.md).

The guard (:mod:`~textattack_secondorder.attack_recipes.input_guard`) marks every result
with ``skip_kind``: ``"input"`` (bad text or label, duplicate row), ``"model"`` (the
model's scores for the row are unusable), ``"error"`` (an exception while attacking the
row) or ``"method"`` (the attack's own rule, e.g. already misclassified); ``None`` when
the row was attacked.
"""

from textattack.metrics import Metric

from ..shared.inputs import skipped_summary_text


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


def skipped_rows_line(results):
    """One line saying why the guard skipped rows for bad input, each distinct reason once with its count
    (``"skipped 2 of 6 rows for bad input (label 'neutral' is neither one of the model's label names
    (negative, positive) nor a class number 0..1: 1 row; ...)"``), or ``None`` when it skipped none.

    The CSV log has each row's ``skip_reason``; this is what the screen says at the end of a run."""
    skipped = [(r.skip_reason,) for r in results if getattr(r, "skip_kind", None) == "input" and r.skip_reason]
    if not skipped:
        return None
    return f"skipped {len(skipped)} of {len(results)} rows for bad input ({skipped_summary_text(skipped)})"


def scored_rows(results):
    """Number of results whose original text the victim scored (a row the guard skipped unread is not one)."""
    return sum(1 for r in results if r.original_result.output is not None)
