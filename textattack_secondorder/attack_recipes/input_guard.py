"""The guarded attack every recipe of this package builds: no input row ends a run (docs/design/hostile-input.md).

:class:`GuardedAttack` is a ``textattack.Attack`` whose :meth:`~GuardedAttack.attack` lets its
:class:`InputGuard` judge each row before and after the search. For each row the guard

1. probes the victim once, on the first row (:func:`~..models.probe.probe_model`): a model
   returning NaN or a wrong shape, or raising on ordinary sentences, stops the run at once
   with :class:`~..models.probe.ModelProbeError`; the probe also gives the number of classes;
2. checks the text and the label (a class number or one of the model's label names) and skips
   duplicates (:class:`~..shared.inputs.RowScreen`): a bad row becomes a ``SkippedAttackResult``
   without calling the model;
3. cuts a text longer than the victim's limit the way the victim truncates it
   (:func:`~..models.truncation.truncate_for_model`) and says so in ``input_note``;
4. lets the attack run on the row; an exception skips the row with the exception as its reason
   (logged as a warning), except configuration errors (``ResourceError``, ``ModelProbeError``),
   which end the run;
5. skips a row whose model scores are NaN/infinite.

Every result carries ``skip_reason`` (``None`` when attacked), ``skip_kind`` (see
:mod:`~..metrics.skipped_rows`), ``input_note`` and ``seconds``, the wall-clock time of the whole row as the
user waited for it (admission, the patch pair's choice, the search, the checks; a second-order result's
``elapsed`` is set to it too); the CSV logger extension writes them as columns and the summary table counts
the skipped rows (``summary_metrics``). The guard
remembers the rows of one run (duplicates); ``textattack``'s ``Attacker`` is extended to reset
it at the start of a run and to replay the rows before a checkpoint (``plugin/extensions.py``).
"""

import logging
import time
from collections import OrderedDict

import numpy as np
from textattack import Attack
from textattack.attack_results import SkippedAttackResult
from textattack.goal_function_results import ClassificationGoalFunctionResult, GoalFunctionResultStatus
from textattack.goal_functions import ClassificationGoalFunction
from textattack.shared import AttackedText, utils

from ..metrics.skipped_rows import skipped_rows_metrics
from ..models.probe import ModelProbeError, check_outputs, model_label_names, model_name, probe_model
from ..models.truncation import truncate_for_model
from ..resources.errors import ResourceError
from ..shared.inputs import RowScreen

logger = logging.getLogger(__name__)

# Errors about the set-up, not the row: they end the run with their message.
FATAL = (ModelProbeError, ResourceError)
ALREADY_WRONG = "the model already misclassifies it (nothing to attack)"


class NotAttackedResult(ClassificationGoalFunctionResult):
    """Stands in for the model's output on a row the guard skipped without calling the model."""

    def get_colored_output(self, color_method=None):
        return utils.color_text("not attacked", color="gray", method=color_method)

    def get_text_color_input(self):
        # No output to name: TextAttack would look ``None`` up in the row's label names (a CSV log then crashed).
        return "gray"

    def get_text_color_perturbed(self):
        return "gray"


def printable(text):
    """``text`` safe for logs and CSV files: control characters escaped, lone surrogates replaced."""
    if not isinstance(text, str):
        return "" if text is None else str(text)
    out = "".join(c if c in "\t\n\r" or c.isprintable() or c == " " else repr(c)[1:-1] for c in text)
    return out.encode("utf-8", "replace").decode("utf-8")


def _columns(example):
    """``OrderedDict`` of the input's columns (whatever TextAttack or a caller passed)."""
    if isinstance(example, AttackedText):
        return OrderedDict(example._text_input)
    if isinstance(example, (dict, OrderedDict)):
        return OrderedDict(example)
    return OrderedDict(text=example)


class Row:
    """A row the guard lets through: the text to attack, its label and what the guard noted."""

    def __init__(self, text, label, columns, given_label, note, attrs):
        self.text, self.label, self.columns = text, label, columns
        self.given_label, self.note, self.attrs = given_label, note, attrs


class InputGuard:
    """Judges the rows of one run for :class:`GuardedAttack` (see the module docstring).

    Args:
        goal_function: the attack's goal function (its model is probed and checked).
        recipe: the recipe's name, for log messages.
    """

    def __init__(self, goal_function, recipe=None):
        self.goal_function = goal_function
        self.recipe = recipe
        self.num_classes = None
        self.probed = False
        self.classification = isinstance(goal_function, ClassificationGoalFunction)
        self.screen = RowScreen(labelled=self.classification)

    def reset(self):
        """Forget the rows seen (duplicates are found within one run); the probe is kept."""
        self.screen.reset()

    def replay(self, rows):
        """Judge ``rows`` (``(example, label)`` as the dataset gives them) without attacking them.

        A run resumed from a TextAttack checkpoint (``textattack attack-resume``) replays the rows
        attacked before the checkpoint, so that the probe, the row numbers and the duplicate check
        are what they were in one uninterrupted run.
        """
        for example, label in rows:
            columns = _columns(AttackedText(example))
            if not self.probed and self.classification:
                self._probe(columns)
            self.screen.check(next(iter(columns.values())) if len(columns) == 1 else dict(columns), label)

    # -------------------------------------------------------------------------------------------
    def admit(self, example, ground_truth_output):
        """Before the search: ``(Row, None)`` for a row to attack, or ``(None, SkippedAttackResult)``."""
        columns = _columns(example)
        attrs = (
            {k: v for k, v in example.attack_attrs.items() if k == "label_names"}
            if isinstance(example, AttackedText)
            else {}
        )
        if not self.probed and self.classification:
            self._probe(columns)
        single = next(iter(columns.values())) if len(columns) == 1 else None
        label, reason = self.screen.check(single if len(columns) == 1 else dict(columns), ground_truth_output)
        if reason:
            logger.info("%s: skipping row %d: %s", self.recipe or "attack", self.screen.rows, reason)
            return None, self._skipped(columns, ground_truth_output, reason, "input", attrs)
        label = ground_truth_output if label is None else label
        note = None
        if single is not None:
            cut, note = truncate_for_model(single, self.goal_function.model)
            if note:
                logger.warning("%s: row %d %s", self.recipe or "attack", self.screen.rows, note)
            columns = OrderedDict((k, cut) for k in columns)
        text = AttackedText(columns if len(columns) > 1 else next(iter(columns.values())))
        text.attack_attrs.update(attrs)
        if not text.words:
            reason = "no words TextAttack can perturb"
            return None, self._skipped(columns, ground_truth_output, reason, "input", attrs)
        return Row(text, label, columns, ground_truth_output, note, attrs), None

    def failed(self, row, error):
        """The search raised ``error`` on ``row``: the row is skipped with the reason (see ``FATAL``)."""
        reason, kind = self._model_reason(row.text), "model"
        if reason is None:
            reason, kind = f"error while attacking: {type(error).__name__}: {error}", "error"
        self._warn(row.columns, reason)
        return self._skipped(row.columns, row.given_label, reason, kind, row.attrs)

    def checked(self, result, row):
        """After the search: ``result`` marked, or skipped when the model's scores are unusable."""
        raw = result.original_result.raw_output
        if self.classification and raw is not None:
            try:
                check_outputs(
                    np.asarray(raw.cpu() if hasattr(raw, "cpu") else raw).reshape(1, -1),
                    1,
                    model_name(self.goal_function.model),
                )
            except ModelProbeError as e:
                self._warn(row.columns, str(e))
                reason = f"unusable model output for this row: {e}"
                return self._skipped(row.columns, row.given_label, reason, "model", row.attrs)
        if isinstance(result, SkippedAttackResult):
            reason = getattr(result.original_result, "skip_reason", None) or ALREADY_WRONG
            return self._mark(result, reason, "method", row.note)
        return self._mark(result, None, None, row.note)

    # -------------------------------------------------------------------------------------------
    def _probe(self, columns):
        model = self.goal_function.model
        texts = [t for t in columns.values() if isinstance(t, str) and t.strip()][:1] if len(columns) == 1 else []
        self.num_classes = probe_model(model, texts)
        self.screen.num_classes = self.num_classes
        self.screen.label_names = model_label_names(model, self.num_classes)
        self.probed = True

    def _skipped(self, columns, label, reason, kind, attrs=None):
        shown = OrderedDict((k, printable(v)) for k, v in columns.items())
        text = AttackedText(shown if len(shown) > 1 else next(iter(shown.values()), ""))
        if attrs:
            text.attack_attrs.update(attrs)
        result = NotAttackedResult(
            text, np.zeros(self.num_classes or 2), None, GoalFunctionResultStatus.SKIPPED, 0.0, 0, label
        )
        return self._mark(SkippedAttackResult(result), reason, kind)

    @staticmethod
    def _mark(result, reason, kind, note=None):
        result.skip_reason, result.skip_kind, result.input_note = reason, kind, note
        return result

    def _warn(self, columns, reason):
        text = printable(" | ".join(map(str, columns.values())))
        logger.warning("%s: skipping %r: %s", self.recipe or "attack", text[:60], reason)

    def _model_reason(self, text):
        """Why the model's scores for ``text`` are unusable (NaN, shape), or ``None``."""
        if not self.classification:
            return None
        model = self.goal_function.model
        try:
            check_outputs(model([text.tokenizer_input]), 1, model_name(model), self.num_classes)
        except ModelProbeError as e:
            return f"unusable model output for this row: {e}"
        except Exception:  # noqa: BLE001 - the model raises on it: the attack's error says it
            return None
        return None


class GuardedAttack(Attack):
    """A ``textattack.Attack`` whose rows pass an :class:`InputGuard` (docs/design/hostile-input.md).

    Built like ``Attack`` from a goal function, constraints, a transformation and a search
    method, plus the recipe's name (for log messages) and its own summary rows; the rows of
    skipped inputs are added to them. ``input_guard`` is the guard (reset and replayed by the
    ``Attacker`` extension); everything is plain attributes, so the attack pickles for
    TextAttack's checkpoints and ``--parallel`` workers.
    """

    def __init__(self, goal_function, constraints, transformation, search_method, recipe=None, summary_metrics=None):
        super().__init__(goal_function, constraints, transformation, search_method)
        self.input_guard = InputGuard(goal_function, recipe)
        # rows our Attacker extension adds to TextAttack's summary table
        self.summary_metrics = {**(summary_metrics or {}), **skipped_rows_metrics()}

    def attack(self, example, ground_truth_output):
        """``Attack.attack`` on the row the guard admits; a skipped row's result says why. The result's
        ``seconds`` is the row's wall-clock time (see the module docstring)."""
        start = time.perf_counter()
        result = self._attack_row(example, ground_truth_output)
        result.seconds = time.perf_counter() - start
        if hasattr(result.perturbed_result, "elapsed"):  # a second-order result: its CSV column and summary row
            result.perturbed_result.elapsed = result.seconds
        return result

    def _attack_row(self, example, ground_truth_output):
        row, skipped = self.input_guard.admit(example, ground_truth_output)
        if skipped is not None:
            return skipped
        try:
            result = super().attack(row.text, row.label)
        except FATAL:
            raise
        except Exception as e:  # noqa: BLE001 - one row never ends the run
            logger.debug("%s: the row's traceback", self.input_guard.recipe or "attack", exc_info=True)
            return self.input_guard.failed(row, e)
        return self.input_guard.checked(result, row)
