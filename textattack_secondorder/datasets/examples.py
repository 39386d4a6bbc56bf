"""``(text, label)`` examples from the names users type: ``mr``, a CSV file or a text file
(:data:`~..shared.specs.DATASET_SPEC_HELP`)."""

import os

import pandas as pd

from .mr import load_mr


def load_examples(spec, split="test", text_column="text", label_column="label", limit=None):
    """List of ``(text, label)``; label is ``None`` for plain text files (and CSVs without a label column)."""
    if spec == "mr":
        data = load_mr(split)
    elif spec.endswith(".csv"):
        df = pd.read_csv(spec, keep_default_na=False)
        if text_column not in df.columns:
            raise ValueError(f"{spec} has no column {text_column!r}; columns: {', '.join(df.columns)}")
        labels = df[label_column].tolist() if label_column in df.columns else [None] * len(df)
        data = list(zip(df[text_column].astype(str).tolist(), labels))
    elif os.path.exists(spec):
        with open(spec, encoding="utf-8") as f:
            data = [(line.rstrip("\n"), None) for line in f if line.strip()]
    else:
        raise ValueError(f"Unknown dataset {spec!r}: use 'mr', a CSV file or a text file")
    return data[:limit] if limit else data
