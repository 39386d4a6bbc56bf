"""A user's CSV as a TextAttack dataset: ``textattack attack --dataset-from-file reviews.csv``
(docs/design/hostile-input.md).

TextAttack's ``--dataset-from-file`` takes a Python file defining ``dataset``; the start-up hook
(``plugin/extensions.py``) lets it take a CSV too, read by :func:`~.examples.load_examples`:
columns ``text`` and ``label``, or others named as ``FILE.csv^TEXT_COLUMN,LABEL_COLUMN``. A label
is a class number or one of the victim's label names (its ``config.id2label``, case ignored).

TextAttack builds the dataset before it loads the model, so the names are matched when the attack
starts: the ``Attacker`` extension calls :meth:`CSVDataset.adopt_model_labels` with the victim's
names, which maps each label with :func:`~..shared.inputs.label_reason`, the rule every reader of
labelled data uses.
"""

import logging

from textattack.datasets import Dataset

from ..shared.errors import UsageError
from ..shared.inputs import bad_text_reason, label_reason, skipped_summary_text
from .examples import load_examples

logger = logging.getLogger(__name__)

CSV_SPEC = "FILE.csv or FILE.csv^TEXT_COLUMN,LABEL_COLUMN"


def is_csv_spec(spec):
    """Whether a ``--dataset-from-file`` value names a CSV (``FILE.csv`` or ``FILE.csv^columns``)."""
    return isinstance(spec, str) and spec.partition("^")[0].lower().endswith(".csv")


class CSVDataset(Dataset):
    """The rows of a CSV with a text and a label column, as a ``textattack.datasets.Dataset``.

    Args:
        spec: ``FILE.csv`` (columns ``text``, ``label``) or ``FILE.csv^TEXT_COLUMN,LABEL_COLUMN``.
        filter_labels: TextAttack's ``--filter-by-labels`` (class numbers), applied once the labels
            are class numbers.

    A missing file or column is a :class:`~..shared.errors.UsageError` (one line, exit code 2).
    """

    def __init__(self, spec, filter_labels=None):
        path, _, columns = spec.partition("^")
        text_column, _, label_column = columns.partition(",")
        text_column, label_column = text_column.strip() or "text", label_column.strip() or "label"
        rows = load_examples(
            path,
            text_column=text_column,
            label_column=label_column,
            labelled=True,
            hint="name other columns as FILE.csv^TEXT_COLUMN,LABEL_COLUMN",
        )
        super().__init__(rows, input_columns=[text_column])
        self.path = path
        self.filter_labels = filter_labels
        self.adopted = False

    def adopt_model_labels(self, names, guarded=True):
        """Turn the labels into the victim's class numbers, ``names`` its label names in class order
        (:func:`~..models.probe.model_label_names`, ``None`` when it has none); once.

        A row whose label is unusable keeps it when the attack is ``guarded`` (one of our recipes:
        its input guard skips the row with the reason, in the CSV log); TextAttack's own recipes
        would fail on it, so there it is left out with a warning. No row with a usable text and
        label is a :class:`UsageError`.
        """
        if self.adopted:
            return
        kept, skipped, usable = [], [], 0
        for i, (text, label) in enumerate(self._dataset):
            value, reason = label_reason(label, None, names)
            if reason is None:
                kept.append((text, value))
                usable += bad_text_reason(text) is None
                continue
            skipped.append((i, text, label, reason))
            if guarded:
                kept.append((text, label))
        if not usable:
            detail = skipped_summary_text(skipped) if skipped else "no row has a text to attack"
            raise UsageError(f"no usable row in {self.path} ({len(self._dataset)} rows; {detail})")
        if skipped and not guarded:
            logger.warning("%s: leaving out %d row(s) (%s)", self.path, len(skipped), skipped_summary_text(skipped))
        self._dataset = kept
        if names and not all(n == f"LABEL_{i}" for i, n in enumerate(names)):
            self.label_names = list(names)  # TextAttack prints "positive (97%)" instead of "1 (97%)"
        if self.filter_labels:
            self.filter_by_labels_(self.filter_labels)
        self.adopted = True
