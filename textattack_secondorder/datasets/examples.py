"""``(text, label)`` examples from the names users type: ``mr``, a CSV file or a text file
(:data:`~..shared.specs.DATASET_SPEC_HELP`).

The one place that reads a user's data set and checks its columns: a file that is missing or
cannot be read as a CSV, a CSV without the text column, or (``labelled=True``) without the label
column is a :class:`~..shared.errors.UsageError` (one line, exit code 2), raised before any work.
Labels are returned as the file has them (numbers or names); turning them into class numbers is
:func:`~..shared.inputs.label_reason`'s, once the model is known.
"""

import os
import re

import pandas as pd

from ..shared.errors import UsageError
from .mr import load_mr


def read_csv_columns(path, text_column="text", label_column="label", labelled=False, hint=None):
    """The CSV at ``path`` as a DataFrame of strings (nothing read as NaN), its columns checked.

    Raises :class:`UsageError` naming the file and its columns when it cannot be read, has no
    ``text_column``, or (``labelled``) no ``label_column``; ``hint`` says how to name other columns
    (default: the option, ``--text-column`` or ``--label-column``).
    """
    if not os.path.isfile(path):
        raise UsageError(f"data set {path!r} not found")
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise UsageError(f"{path} is empty: expected a CSV with a header line ({text_column},{label_column})") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise UsageError(f"{path} cannot be read as a UTF-8 CSV: {str(e).strip()}") from None
    columns = ", ".join(map(str, df.columns))
    if text_column not in df.columns:
        raise UsageError(
            f"{path} has no column {text_column!r} for the texts ({hint or '--text-column'}); its columns: {columns}"
        )
    if labelled and label_column not in df.columns:
        raise UsageError(
            f"{path} has no column {label_column!r} for the labels, which this command needs "
            f"({hint or '--label-column'}); "
            f"its columns: {columns}"
        )
    return df


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _label(value):
    """A CSV cell as a label: ``"1"`` -> 1, ``"1.0"`` -> 1.0, anything else (a name, ``""``) as it is."""
    text = value.strip()
    if text.lstrip("+-").isdigit():
        return int(text)
    return float(text) if _NUMBER.fullmatch(text) else value


def load_examples(spec, split="test", text_column="text", label_column="label", limit=None, labelled=False, hint=None):
    """List of ``(text, label)``; label is ``None`` for plain text files (and CSVs without a label column).

    ``labelled=True``: the command needs labels, so a CSV without ``label_column`` or a text file
    is a :class:`UsageError`. A CSV's labels are ints where the cell is a whole number, else the
    cell's text (a label name such as ``positive``, mapped by :func:`~..shared.inputs.label_reason`).
    ``hint``: how to name other columns, for the message of a missing one.
    """
    if spec == "mr":
        data = load_mr(split)
    elif spec.lower().endswith(".csv"):
        df = read_csv_columns(spec, text_column, label_column, labelled, hint)
        texts = df[text_column].tolist()
        labels = [_label(v) for v in df[label_column]] if label_column in df.columns else [None] * len(df)
        data = list(zip(texts, labels))
    elif os.path.isfile(spec):
        if labelled:
            raise UsageError(
                f"{spec} is a text file (one text a line, no labels); this command needs labelled examples: "
                "a CSV with text,label columns, or 'mr'"
            )
        with open(spec, encoding="utf-8") as f:
            data = [(line.rstrip("\n"), None) for line in f if line.strip()]
    elif os.path.isdir(spec) or os.path.splitext(spec)[1]:
        raise UsageError(f"data set {spec!r} not found or not a file: use 'mr', a CSV file or a text file")
    else:
        raise UsageError(f"unknown data set {spec!r}: use 'mr', a CSV file or a text file")
    return data[:limit] if limit else data
