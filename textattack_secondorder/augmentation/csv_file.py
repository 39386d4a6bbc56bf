"""``textattack augment``'s CSV, read and written without losing a row or a character (docs/design/hostile-input.md).

TextAttack 0.3.11's augment command marks quotes with "/" while reading, writes with
``quotechar="/"`` and then deletes every "/" of the file: a text holding "/" loses it, a quoted
empty text ``""`` comes back as a lone ``"`` that opens a quoted field in the output, so pandas
reads that row and the next as one. For this package's augmentation recipes the start-up hook
(``plugin/extensions.py``) runs the same loop through :func:`augment_csv` instead: rows in and out
as they are, in the input's column order, written atomically; TextAttack's own recipes are left to
TextAttack. :func:`read_augment_csv` also gives both the one-line error for a missing file or column.
"""

import csv
import time

import pandas as pd
from textattack.shared import logger
from tqdm.auto import tqdm

from ..shared.errors import UsageError
from ..shared.files import atomic_write_text

DELIMITERS = ";,"  # what TextAttack's augment command sniffs for


def read_augment_csv(path, column):
    """The CSV at ``path`` as strings (delimiter sniffed from the header as TextAttack does); a missing
    file, an unreadable CSV or no ``column`` is a :class:`UsageError` naming it."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            header = f.readline()
    except FileNotFoundError:
        raise UsageError(f"--input-csv {path!r} not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--input-csv {path!r} cannot be read as a UTF-8 CSV: {e}") from None
    try:
        delimiter = csv.Sniffer().sniff(header, delimiters=DELIMITERS).delimiter
    except csv.Error:
        delimiter = ","
    try:
        df = pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False, encoding="utf-8")
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as e:
        raise UsageError(f"--input-csv {path!r} cannot be read as a CSV: {str(e).strip()}") from None
    if column not in df.columns:
        raise UsageError(
            f"{path} has no column {column!r} (--input-column); its columns: {', '.join(map(str, df.columns))}"
        )
    return df


def augment_csv(augmenter, df, column, output_csv, exclude_original=False, progress=True):
    """Each row of ``df`` (unless ``exclude_original``), then one row per augmentation of its ``column``
    (``augmenter.augment(text)``), every other column kept; written to ``output_csv`` atomically with
    standard CSV quoting. Returns the number of rows written."""
    start = time.time()
    rows = []
    for row in tqdm(df.to_dict(orient="records"), desc="Augmenting rows", disable=not progress):
        if not exclude_original:
            rows.append(row)
        rows.extend({**row, column: text} for text in augmenter.augment(row[column]))
    out = pd.DataFrame(rows, columns=list(df.columns))
    atomic_write_text(output_csv, out.to_csv(index=False))
    logger.info(f"Wrote {len(out)} augmentations to {output_csv} in {time.time() - start:.1f}s.")
    return len(out)
