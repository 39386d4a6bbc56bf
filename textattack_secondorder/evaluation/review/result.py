"""What ``review`` makes: a :class:`ReviewSheet` (the page, its CSV, a blind sheet's key and text items) and a
:class:`ReviewScore` (accepted findings per 100 attacked sentences, per run and reader) (docs/design/review.md)."""

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ...shared.files import atomic_write_text
from .marks import BLIND
from .report import render_html, text_items


@dataclass
class ReviewSheet:
    """A sheet: ``key`` (open: one row per finding; blind: one row per sentence of a finding, which the page must
    not show), its ``mode``, the ``labels`` a blind reader chooses from, its ``title``, its id ``sheet`` and, per
    run, ``runs``: ``{"name", "path", "kind", "rows", "attacked", "findings", "on_sheet", "unreadable"}``;
    ``notes`` for the user (rows left out, runs without findings, labels without names)."""

    key: pd.DataFrame
    mode: str
    labels: list
    title: str
    runs: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def sheet(self):
        return str(self.key.sheet.iloc[0]) if len(self.key) else ""

    def paths(self, html):
        """The files :meth:`save` writes for the page ``html``: ``{"html", "csv"}`` (a blind sheet's CSV is its
        key, ``STEM_key.csv``), and a blind sheet's ``"items"`` (``STEM_items.txt``)."""
        html = Path(html)
        if self.mode == BLIND:
            return {
                "html": html,
                "csv": html.with_name(html.stem + "_key.csv"),
                "items": html.with_name(html.stem + "_items.txt"),
            }
        return {"html": html, "csv": html.with_suffix(".csv")}

    def save(self, html):
        """Write the page, the CSV beside it and (blind) the text items; returns :meth:`paths`."""
        paths = self.paths(html)
        atomic_write_text(paths["csv"], self.key.to_csv(index=False))
        if "items" in paths:
            atomic_write_text(paths["items"], text_items(self.key))
        atomic_write_text(paths["html"], render_html(self))
        return paths


#: the score table's columns as printed
COLUMNS = (
    ("run", "run"),
    ("reader", "reader"),
    ("findings", "findings"),
    ("attacked", "attacked"),
    ("read", "read"),
    ("natural_pct", "natural %"),
    ("keeps_label_pct", "keeps label %"),
    ("accepted_pct", "accepted %"),
    ("accepted_per_100", "accepted / 100 attacked"),
)


@dataclass
class ReviewScore:
    """The score of one sheet's marks: ``rows`` (per run, system and reader: findings, attacked, on_sheet, read, the
    shares natural / keeps_label / accepted in % of the findings read, and ``accepted_per_100``), ``originals``
    (blind: per run and reader, the share of the unchanged originals read as written by a person), the readers'
    names, the marked files, per-finding verdicts ``judged`` and ``warnings``."""

    sheet: str
    mode: str
    readers: list
    marked: list
    rows: list
    originals: list = field(default_factory=list)
    judged: pd.DataFrame = None
    warnings: list = field(default_factory=list)

    def to_dict(self):
        doc = {"sheet": self.sheet, "mode": self.mode, "readers": self.readers, "marked": [str(p) for p in self.marked]}
        doc |= {"table": _json_safe(self.rows), "originals": _json_safe(self.originals), "warnings": self.warnings}
        doc["accepted"] = "reads as written by a person AND keeps the label"
        doc["accepted_per_100"] = "accepted share of the findings read x findings / attacked sentences x 100"
        return doc

    def format(self):
        """The table as printed: one line per run and reader, then the originals' line (blind) and the warnings."""
        systems = {r["run"] != r["system"] for r in self.rows}
        cols = list(COLUMNS) if systems != {True} else [COLUMNS[0], ("system", "system"), *COLUMNS[1:]]
        table = [[h for _, h in cols]] + [[_text(r.get(k)) for k, _ in cols] for r in self.rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(cols))]
        lines = [
            "  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in table
        ]
        lines.insert(1, "-" * len(lines[0]))
        for o in self.originals:
            lines.append(
                f"originals of {o['run']} ({o['reader']}): {_text(o['natural_pct'])} % read as written by a person "
                f"({o['read']} read)"
            )
        lines.extend(f"warning: {w}" for w in self.warnings)
        return "\n".join(lines)

    def save(self, path):
        """Write the JSON to ``path`` and the per-finding verdicts beside it (``STEM_judged.csv``); returns both."""
        path = Path(path)
        judged = path.with_name(path.stem + "_judged.csv")
        atomic_write_text(path, json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n")
        if self.judged is not None:
            atomic_write_text(judged, self.judged.to_csv(index=False))
        return path, judged


def _text(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.1f}" if isinstance(v, float) else str(v)


def _json_safe(rows):
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()} for r in rows]
