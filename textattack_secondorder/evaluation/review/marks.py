"""The marks a reader gives on a review sheet and the file they come back in (docs/design/review.md).

The page downloads ``sheet, reader, id``, an open sheet's findings, then the marks: ``natural`` ("reads as written
by a person": yes / no), ``keeps_label`` (open sheets: yes / no), ``read_label`` (blind sheets: the label the
sentence states, or ``unsure``) and a ``note``. A helper reader's hand-written ``id,label,fluency`` file (the
package's blind-read benchmarks) is read too: ``label`` is its ``read_label`` and a fluency on Xu et al.'s 1-5 scale
counts as ``natural`` from :data:`FLUENT` up. Every marked file is checked against the sheet it claims: the same
sheet id, no id that is not on it.
"""

import numpy as np
import pandas as pd

from ...shared.errors import UserError

FLUENT = 4  # Xu et al.'s E.2 scale: 4 = "fluent, meaningful with few grammar errors"
OPEN, BLIND = "open", "blind"
ORIGINAL, CHANGED, PATCHED = "original", "changed", "patched"
UNSURE = "unsure"
#: the marks a reader gives, as the page downloads them
MARKS = ("natural", "keeps_label", "read_label", "fluency", "note")
YES, NO = ("yes", "y", "1", "true", "1.0"), ("no", "n", "0", "false", "0.0")


class BadMarks(ValueError, UserError):
    """A marked file that does not belong to the sheet, or holds a value that is no mark (one line, exit code 2)."""


def mode_of(key):
    """``"blind"`` for a key of sentences (a ``group`` column), ``"open"`` for a key of findings."""
    return BLIND if "group" in key.columns else OPEN


def read_marks(path, key=None):
    """A marked CSV (the page's download, or a reader's ``id,label,fluency`` file) as a frame with ``id`` and the
    marks of :data:`MARKS` (``natural`` and ``keeps_label`` as 1.0 / 0.0 / NaN; ``read_label`` lower-cased; a
    ``label`` column of a blind read is its ``read_label``), checked against ``key`` when given (same sheet, ids on
    it). Raises :class:`BadMarks`."""
    try:
        m = pd.read_csv(path, keep_default_na=False, dtype=str)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise BadMarks(f"{path}: not a readable CSV ({type(e).__name__})") from None
    if "id" not in m.columns:
        raise BadMarks(f"{path} has no id column: it is not a review sheet's marks")
    if "read_label" not in m.columns and "label" in m.columns and "keeps_label" not in m.columns:
        m = m.rename(columns={"label": "read_label"})  # a blind read's verdicts: the label the sentence states
    if not any(c in m.columns for c in ("natural", "keeps_label", "read_label", "fluency")):
        raise BadMarks(f"{path} holds no marks (columns natural, keeps_label, read_label or fluency)")
    m["id"] = pd.to_numeric(m["id"], errors="coerce")
    if m.id.isna().any() or m.id.duplicated().any():
        raise BadMarks(f"{path}: its ids are not one whole number per row, each once")
    m["id"] = m.id.astype(int)
    for col in ("natural", "keeps_label"):
        if col in m.columns:
            m[col] = [_yes_no(v, path, col) for v in m[col]]
    if "read_label" in m.columns:
        m["read_label"] = m.read_label.str.strip().str.lower()
    if "fluency" in m.columns:
        m["fluency"] = pd.to_numeric(m.fluency.replace("", np.nan), errors="coerce")
    if key is not None:
        check_marks(m, key, path)
    return m


def _yes_no(value, path, col):
    v = str(value).strip().lower()
    if v == "":
        return np.nan
    if v in YES or v in NO:
        return 1.0 if v in YES else 0.0
    raise BadMarks(f"{path}: {col} = {value!r} is not a mark (yes, no or empty)")


def check_marks(m, key, path):
    """Raise :class:`BadMarks` unless the marks ``m`` (read from ``path``) belong to the sheet of ``key``: the same
    sheet id (where both carry one), no id off the sheet, the marks of the sheet's mode."""
    sheet = key.sheet.iloc[0] if "sheet" in key.columns and len(key) else None
    theirs = set(m.sheet) - {""} if "sheet" in m.columns else set()
    if sheet and theirs and theirs != {sheet}:
        raise BadMarks(
            f"{path} was marked on sheet {', '.join(sorted(theirs))}, not on sheet {sheet} of this key: score it with "
            "the key (or the sheet's CSV) of the sheet it was marked on"
        )
    stray = set(m.id) - set(key.id)
    if stray:
        raise BadMarks(f"{path}: {len(stray)} ids are not on this sheet (e.g. {min(stray)}): marks of another sheet")
    blind = mode_of(key) == BLIND
    if blind and "keeps_label" in m.columns:
        raise BadMarks(f"{path} holds an open sheet's marks (keeps_label), but the key is a blind sheet's")
    if blind and not ("read_label" in m.columns and ("natural" in m.columns or "fluency" in m.columns)):
        raise BadMarks(f"{path}: a blind sheet's marks give each sentence its label and natural (or fluency)")
    if not blind and "read_label" in m.columns and "keeps_label" not in m.columns:
        raise BadMarks(f"{path} holds a blind sheet's marks (read_label): score it with the blind sheet's key")


def key_from_marks(m, path):
    """An open sheet's key out of its own marked download (which carries the findings and the runs' counts)."""
    needed = ["id", "run", "system", "example", "attacked", "run_findings", "sheet"]
    missing = [c for c in needed if c not in m.columns]
    if missing:
        raise BadMarks(
            f"{path} lacks {', '.join(missing)}: a blind sheet's marks (or a hand-made file) need the sheet's key, "
            "--key SHEET_key.csv"
        )
    return m.drop(columns=[c for c in MARKS + ("reader",) if c in m.columns])
