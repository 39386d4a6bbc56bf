"""A review sheet for a run's findings, and the score of a reader's marks on it (docs/design/review.md).

* :mod:`.runs` — a run's findings and attacked sentences, read from its CSV log (any TextAttack recipe,
  SP-Attack, the second-order recipes);
* :mod:`.marks` — the marks a reader gives and the file they come back in, checked against the sheet;
* :mod:`.computation` — the one place that decides the sheet's items (open or blind, sampled, shuffled apart) and
  the score (accepted findings per 100 attacked sentences), with :func:`build_sheet` and :func:`score_marked`, the
  one-call Python API;
* :mod:`.result` — :class:`ReviewSheet` and :class:`ReviewScore`, and what they write;
* :mod:`.report` — the self-contained HTML page (marks kept in the page, downloaded as CSV) and the text items.
"""

from .computation import (
    NoFindings,
    blind_key,
    blind_rows,
    build_sheet,
    judge_findings,
    judge_items,
    open_key,
    read_key,
    reader_means,
    score_marked,
    shuffle_apart,
)
from .marks import BLIND, FLUENT, OPEN, BadMarks, read_marks
from .report import render_html, text_items, word_changes
from .result import ReviewScore, ReviewSheet
from .runs import NotARun, Run, read_run, read_runs

__all__ = [
    "BLIND",
    "FLUENT",
    "OPEN",
    "BadMarks",
    "NoFindings",
    "NotARun",
    "ReviewScore",
    "ReviewSheet",
    "Run",
    "blind_key",
    "blind_rows",
    "build_sheet",
    "judge_findings",
    "judge_items",
    "open_key",
    "read_key",
    "read_marks",
    "read_run",
    "read_runs",
    "reader_means",
    "render_html",
    "score_marked",
    "shuffle_apart",
    "text_items",
    "word_changes",
]
