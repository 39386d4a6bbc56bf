"""Checks of one input row (text, label) before an attack or an evaluation touches it (docs/design/hostile-input.md).

Used by the recipes' input guard (:mod:`~textattack_secondorder.attack_recipes.input_guard`)
and by the long ``textattack-so`` commands, so that a row is judged the same way everywhere:

* :func:`bad_text_reason`: why a text cannot be attacked (missing, empty, whitespace only,
  not valid Unicode, control characters, no letters or digits), or ``None``;
* :func:`label_reason`: the label as a class number (a number, or one of the model's label names),
  or why it is not one of the model's classes;
* :class:`RowScreen`: both checks plus duplicates, row after row;
* :class:`UnreadableRow`: the text of a dataset row that could not be read, with the reason;
* :func:`screen_examples`: a list of ``(text, label)`` split into good rows and skipped rows;
* :func:`write_skipped`: the skipped rows and their reasons, as a CSV beside a command's results.

Nothing here imports torch or TextAttack.
"""

import csv
import io
import math
import numbers
import re
import unicodedata

from .files import atomic_write_text

_ALLOWED_CONTROLS = {"\t", "\n", "\r"}
_INT = re.compile(r"[+-]?\d+")


class UnreadableRow(str):
    """Empty text standing for a dataset row that could not be read; ``reason`` says why."""

    def __new__(cls, reason):
        obj = super().__new__(cls, "")
        obj.reason = reason
        return obj

    def __reduce__(self):
        return UnreadableRow, (self.reason,)


def _is_missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def _codepoints(chars, limit=3):
    shown = ", ".join(f"U+{ord(c):04X}" for c in chars[:limit])
    return shown + (", ..." if len(chars) > limit else "")


def bad_text_reason(text):
    """Why ``text`` cannot be attacked or evaluated, or ``None`` when it can (docs/design/hostile-input.md).

    Too long texts are not bad: the victim truncates them (see
    :func:`textattack_secondorder.models.truncation.truncate_for_model`).
    """
    if isinstance(text, UnreadableRow):
        return text.reason
    if _is_missing(text):
        return "missing text"
    if not isinstance(text, str):
        return f"text is a {type(text).__name__}, not a string"
    if text == "":
        return "empty text"
    if not text.strip():
        return "whitespace-only text"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"text is not valid Unicode (lone surrogate at character {e.start})"
    controls = [c for c in text if unicodedata.category(c) == "Cc" and c not in _ALLOWED_CONTROLS]
    if controls:
        return f"text contains {len(controls)} control character(s) ({_codepoints(controls)})"
    if not any(c.isalnum() for c in text):
        return "no words: the text has no letters or digits (punctuation, symbols or emoji only)"
    return None


def bad_columns_reason(columns):
    """:func:`bad_text_reason` over the columns of a multi-column input (``{name: text}``)."""
    for name, text in columns.items():
        reason = bad_text_reason(text)
        if reason:
            return reason if len(columns) == 1 else f"column {name!r}: {reason}"
    return None


def label_reason(label, num_classes=None, label_names=None):
    """``(class number, None)`` for a usable label, else ``(None, reason)`` (docs/design/hostile-input.md).

    The one place that turns a label of the user's data into a class number: every reader of
    labelled data (the commands, the recipes' input guard, the stock CLI's CSV dataset, the gate)
    goes through it. Accepted:

    * integers (also ``True``/``False``, whole floats such as ``1.0`` and digit strings such as
      ``"1"``) in ``0 .. num_classes - 1`` (any value >= 0 when ``num_classes`` is ``None``);
    * one of the model's label names ``label_names`` (its ``config.id2label`` in class order:
      :func:`~textattack_secondorder.models.probe.model_label_names`), case and surrounding spaces
      ignored: ``"Positive"`` is class 1 of a model whose ``id2label`` is ``{0: "negative", 1: "positive"}``.

    A refused label's reason says what is allowed: the class numbers and the model's names.
    """
    if _is_missing(label) or (isinstance(label, str) and not label.strip()):
        return None, "missing label"
    names = [str(n) for n in label_names or ()]
    if num_classes is None and names:
        num_classes = len(names)
    allowed = "a class number" if num_classes is None else f"a class number 0..{num_classes - 1}"
    value = label
    if isinstance(value, str):
        if not _INT.fullmatch(value.strip()):
            wanted = value.strip().casefold()
            for i, name in enumerate(names):
                if name.strip().casefold() == wanted:
                    return i, None
            if names:
                return None, (
                    f"label {label!r} is neither one of the model's label names ({', '.join(names)}) nor {allowed}"
                )
            return None, f"label {label!r} is not {allowed} (a label name needs a model whose config.id2label names it)"
        value = int(value.strip())
    elif isinstance(value, numbers.Integral):
        value = int(value)
    elif isinstance(value, numbers.Real):
        if not float(value).is_integer():
            return None, f"label {label!r} is not a whole class number"
        value = int(value)
    else:
        return None, f"label {label!r} ({type(label).__name__}) is not a class number"
    if value < 0 or (num_classes is not None and value >= num_classes):
        if num_classes is None:
            return None, f"label {label!r} is negative: class numbers start at 0"
        shown = f": {', '.join(names)}" if names else ""
        return (
            None,
            f"label {label!r} is outside the model's classes 0..{num_classes - 1} ({num_classes} classes{shown})",
        )
    return value, None


class RowScreen:
    """Judge rows one after the other: text, label and duplicates (docs/design/hostile-input.md).

    ``check(text, label)`` returns ``(label, reason)``: the label as a class number and
    ``None`` for a good row, or a reason to skip it. A row is a duplicate when an earlier
    good row had the same text and label. ``labelled=False`` checks texts only. Labels are
    read by :func:`label_reason` (``label_names``: the model's, to map names to class numbers).
    """

    def __init__(self, num_classes=None, labelled=True, duplicates=True, label_names=None):
        self.num_classes = num_classes
        self.label_names = label_names
        self.labelled = labelled
        self.duplicates = duplicates
        self.reset()

    def reset(self):
        self._seen = {}
        self.rows = 0

    def check(self, text, label=None):
        self.rows += 1
        reason = bad_columns_reason(text) if isinstance(text, dict) else bad_text_reason(text)
        if reason:
            return label, reason
        if self.labelled:
            label, reason = label_reason(label, self.num_classes, self.label_names)
            if reason:
                return None, reason
        if self.duplicates:
            key = (tuple(text.items()) if isinstance(text, dict) else text, label)
            first = self._seen.setdefault(key, self.rows)
            if first != self.rows:
                return label, duplicate_reason(first)
        return label, None


def duplicate_reason(first):
    """Why a row that repeats row ``first`` (same text and label) is skipped."""
    return f"duplicate of row {first} (same text and label)"


def screen_examples(examples, num_classes=None, labelled=True, duplicates=True, label_names=None):
    """Split ``[(text, label), ...]`` into ``good`` (``[(index, text, label)]``, labels as class
    numbers) and ``skipped`` (``[(index, text, label, reason)]``), indices 0-based."""
    screen = RowScreen(num_classes, labelled=labelled, duplicates=duplicates, label_names=label_names)
    good, skipped = [], []
    for i, (text, label) in enumerate(examples):
        checked, reason = screen.check(text, label)
        if reason:
            skipped.append((i, text, label, reason))
        else:
            good.append((i, text, checked))
    return good, skipped


def skipped_summary(skipped):
    """``{reason kind: count}`` of skipped rows (the reason up to its first colon or parenthesis)."""
    counts = {}
    for row in skipped:
        kind = re.split(r"[:(]", row[-1], maxsplit=1)[0].strip()
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def skipped_summary_text(skipped, kinds=4):
    """The reasons of ``skipped`` in one line: each kind of :func:`skipped_summary` with the whole reason of
    its first row (what a label may be, say) and its count, the first ``kinds`` kinds:
    ``"empty text: 2 rows; label 'great' is neither one of the model's label names (negative, positive) nor a
    class number 0..1: 1 row"``."""
    counts, first = skipped_summary(skipped), {}
    for row in skipped:
        first.setdefault(re.split(r"[:(]", row[-1], maxsplit=1)[0].strip(), row[-1])
    shown = [f"{first[kind]}: {n} row{'s' if n != 1 else ''}" for kind, n in counts.items()]
    more = len(shown) - kinds
    return "; ".join(shown[:kinds]) + (
        f"; and {more} other kind{'s' if more != 1 else ''} of reason" if more > 0 else ""
    )


def skipped_rows_csv(skipped):
    """CSV text (``row,text,label,skip_reason``; rows 0-based) of the ``skipped`` list of :func:`screen_examples`."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["row", "text", "label", "skip_reason"])
    for i, text, label, reason in skipped:
        shown = text if isinstance(text, str) and not bad_text_reason(text) else repr(text)
        writer.writerow([i, shown, "" if label is None else label, reason])
    return buf.getvalue()


def write_skipped(skipped, path):
    """Write the skipped rows (with ``skip_reason``) to ``path`` when there are any; returns the path or None."""
    if not skipped:
        return None
    atomic_write_text(path, skipped_rows_csv(skipped))
    print(f"wrote the {len(skipped)} skipped row(s) and their reasons to {path}")
    return path
