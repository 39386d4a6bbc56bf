"""Merged outputs of one sweep cell: the rows in dataset order and a summary recomputed from them.

The rows go through TextAttack's own ``AttackLogManager`` (CSV logger with this package's
columns, and the summary table with the recipe's summary rows and any extra metrics), exactly as a
``textattack attack --log-to-csv`` run writes them; both files are written under a temporary
name and renamed, so a reader never sees half a file.
"""

import os
from pathlib import Path

from textattack.loggers import AttackLogManager
from textattack.loggers.logger import Logger

from ..models.probe import model_label_names

SUMMARY_TITLE = "Attack Results"


def _summary_logger():
    class SummaryRows(Logger):
        """Keeps the summary table's rows (name → value) instead of printing them."""

        def __init__(self):
            self.rows = {}

        def log_summary_rows(self, rows, title, window_id):
            if title == SUMMARY_TITLE:
                self.rows = {str(k).rstrip(":").strip(): v for k, v in rows}

    return SummaryRows()


def summary_metrics(attack, metrics=None):
    """The rows a run of ``attack`` adds to TextAttack's summary: the recipe's own, then ``metrics``
    (name → TextAttack ``Metric``, as ``AttackArgs(metrics=...)`` takes them)."""
    return {**(getattr(attack, "summary_metrics", None) or {}), **(metrics or {})}


def write_cell(results, attack, csv_path, metrics=None):
    """Write ``results`` (in dataset order) to ``csv_path``; returns the summary table as a dict.

    ``metrics``: extra summary rows (name → ``Metric``) besides TextAttack's and the recipe's own.
    """
    csv_path = Path(csv_path)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = csv_path.with_name(f".{csv_path.name}.tmp{os.getpid()}")
    manager = AttackLogManager(summary_metrics(attack, metrics))
    manager.add_output_csv(str(tmp), "file")
    names = model_label_names(getattr(getattr(attack, "goal_function", None), "model", None))
    for logger in manager.loggers:  # the CSV log's *_label columns (plugin/extensions.py)
        logger.label_names = names
    rows = _summary_logger()
    manager.loggers.append(rows)
    manager.log_results(results)
    manager.flush()
    if tmp.exists():
        os.replace(tmp, csv_path)
    return rows.rows
