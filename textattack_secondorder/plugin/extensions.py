"""Small extensions of TextAttack's attack loop, installed when ``textattack`` is imported.

* ``CSVLogger``: a result whose ``perturbed_result`` has ``log_fields()`` (ours:
  patch pair, x̃0, x̃0 ⊕ p, both predictions, perturbed words, seconds) adds
  those columns to the row, and its ``original_score`` / ``perturbed_score`` are the probability that the two
  texts disagree (:func:`~..goal_functions.second_order.disagreement_probability`) instead of the search's score
  (``−L`` plus a success bonus of 1000: "999.019"); a result of a guarded recipe adds ``skip_reason`` and
  ``input_note`` (docs/design/hostile-input.md). Where the model has label names, ``original_label``,
  ``perturbed_label`` and ``ground_truth_label`` stand beside the class numbers (names from the logger's
  ``label_names``, set by the sweeps, else the texts' ``label_names``, which the ``Attacker`` extension takes from
  the model when the dataset has none). Other results log exactly as before.
* ``Attacker.attack_dataset``: an attack with a ``summary_metrics`` dict (our
  recipes set it) adds those rows to the summary table, as ``AttackArgs(metrics=...)``
  would; TextAttack's command line has no flag for that. For a guarded attack
  (``GuardedAttack``, attack_recipes/input_guard.py) it also resets the guard's duplicate
  check and reads rows so that one that cannot be read is skipped with the reason instead of
  ending the run.
* Weak spots (docs/design/hostile-input.md): ``AttackResult.diff_color`` falls back to plain text when
  ``langdetect`` finds no letters (it raised ``LangDetectException`` and lost the whole CSV
  log); the summary's average queries and perturbed-word % are 0 instead of NaN with a
  "Mean of empty slice" warning when every row was skipped or nothing succeeded.
* Checkpoints (``textattack attack --checkpoint-interval N``): saved atomically (a killed run
  never leaves half a ``.ta.chkpt``); ``textattack attack-resume`` works for command-line
  checkpoints (TextAttack 0.3.11 raised AttributeError twice) and replays the rows attacked before
  the checkpoint through the input guard, so duplicates and row numbers are those of one run.
* Summary table of a second-order run (so-beam, so-enum, so-random): TextAttack's "Original
  accuracy" is the share of rows not skipped, which for our goal function means "rows with a patch
  word pair", not accuracy. It is replaced by the victim's accuracy on the attacked sentences
  (:class:`~..metrics.second_order.VictimAccuracy`), and "Accuracy under attack" (failed / all rows:
  sentences where no vulnerable example was found) is called what it is.
* Summary table of a run in which the victim scored no row (the input guard skipped every one): "Original
  accuracy" and "Accuracy under attack" read ``n/a`` instead of 0.0 %; a run whose guard skipped rows for bad
  input says why before the table, in one line, each distinct reason once with its count
  (:func:`~..metrics.skipped_rows.skipped_rows_line`; the CSV log's ``skip_reason`` has it per row).
* TextAttack's model / goal-function check (``shared/validators.py``) knows our goal function and our
  word-level victims, so a run does not warn "No entry found for goal function" or "Unknown if model …
  compatible" about them.
* ``textattack attack`` / ``augment``: a bad recipe parameter, resource, victim or
  ``--num-examples`` prints one line naming it and exits with code 2, without a traceback;
  our recipes' ``NAME^params`` are checked before the model is loaded.
* A user's model and data (``ModelArgs``, ``DatasetArgs``, :mod:`.user_args`): demo victims by name
  (``mr-cnn``, ``mr-cnn-ibp``, ...: ``models/catalogue.py``), one line for a model that cannot be loaded,
  opt-in per-batch padding for TextAttack's own recipes, and ``--dataset-from-file reviews.csv``; label
  names are matched to the victim's ``id2label`` when the attack starts (docs/design/hostile-input.md); ``augment``
  checks its input file and column first (one line, exit code 2), and with one of our recipes reads and
  writes the CSV losslessly (:mod:`~..augmentation.csv_file`; TextAttack's own loses a row after an empty
  text ``""``).

All are idempotent and leave TextAttack's behaviour unchanged for its own recipes otherwise.
"""

import functools
import json
import logging
import os
import pickle
import sys
from collections import OrderedDict

import pandas as pd
import textattack
import textattack.augment_args
from langdetect.lang_detect_exception import LangDetectException
from textattack import Attacker, CommandLineAttackArgs, DatasetArgs, ModelArgs
from textattack.attack_results import AttackResult
from textattack.commands.attack_command import AttackCommand
from textattack.commands.attack_resume_command import AttackResumeCommand
from textattack.commands.augment_command import AugmentCommand
from textattack.goal_functions import UntargetedClassification
from textattack.loggers import AttackLogManager, CSVLogger
from textattack.metrics.attack_metrics import AttackQueries, WordsPerturbed
from textattack.shared import AttackCheckpoint, logger, validators

from ..attack_recipes.build import attack_recipes, checked_recipe
from ..augmentation.csv_file import augment_csv, read_augment_csv
from ..datasets.csv_dataset import CSVDataset
from ..goal_functions.second_order import SecondOrderClassification, disagreement_probability
from ..metrics.second_order import VictimAccuracy
from ..metrics.skipped_rows import scored_rows, skipped_rows_line
from ..models.probe import model_label_names
from ..shared.errors import UsageError, UserError
from ..shared.files import atomic_write_bytes
from ..shared.inputs import UnreadableRow
from ..shared.label_names import class_index, label_text, readable_names
from .registry import augmentation_recipes
from .user_args import extend_dataset_args, extend_model_args

# Summary rows added to every run of this process (``textattack-so attack --asr1`` fills it).
EXTRA_METRICS = {}


def _once(owner, attr, make):
    original = getattr(owner, attr)
    if getattr(original, "_secondorder", False):
        return
    wrapped = functools.wraps(original)(make(original))
    wrapped._secondorder = True
    setattr(owner, attr, wrapped)


LABEL_COLUMNS = {"original_output": "original_label", "perturbed_output": "perturbed_label"}
LABEL_COLUMNS["ground_truth_output"] = "ground_truth_label"


def with_label_names(row, names):
    """``row`` (a CSV log row) with each class-number column followed by the class's name (``original_output 0``,
    ``original_label billing``); unchanged without readable names or when the outputs are not class numbers."""
    names = readable_names(names)
    if not names or class_index(row.get("original_output")) is None:
        return row
    out = {}
    for k, v in row.items():
        out[k] = v
        if k in LABEL_COLUMNS:
            out[LABEL_COLUMNS[k]] = label_text(v, names) if class_index(v) is not None else ""
    return out


def _extend_csv_logger():

    def make(original):
        def log_attack_result(self, result):
            original(self, result)
            names = getattr(self, "label_names", None)
            names = names or result.original_result.attacked_text.attack_attrs.get("label_names")
            self.row_list[-1] = row = with_label_names(self.row_list[-1], names)
            fields = getattr(result.perturbed_result, "log_fields", None)
            guarded = hasattr(result, "skip_kind")
            if fields is None and not guarded:
                self.df = pd.DataFrame.from_records(self.row_list)
                return

            for k, v in (fields() if fields else {}).items():
                row[k] = json.dumps(v) if isinstance(v, (list, dict)) else v
            if hasattr(result.perturbed_result, "loss"):  # second order: a probability, not the search's score
                for side in ("original", "perturbed"):
                    p = disagreement_probability(getattr(getattr(result, f"{side}_result"), "loss", None))
                    row[f"{side}_score"] = "" if p is None else round(p, 6)
            if guarded:
                row["skip_reason"] = result.skip_reason or ""
                row["input_note"] = result.input_note or ""
                row["seconds"] = round(result.seconds, 3) if getattr(result, "seconds", None) is not None else ""
            self.df = pd.DataFrame.from_records(self.row_list)

        return log_attack_result

    _once(CSVLogger, "log_attack_result", make)


def _extend_diff_color():

    def make(original):
        def diff_color(self, color_method=None):
            try:
                return original(self, color_method)
            except LangDetectException:  # no letters to detect a language from: nothing to colour either
                return (
                    self.original_result.attacked_text.printable_text(),
                    self.perturbed_result.attacked_text.printable_text(),
                )

        return diff_color

    _once(AttackResult, "diff_color", make)


def _extend_summary_metrics():

    def make_queries(original):
        def avg_num_queries(self):
            return 0.0 if self.num_queries.size == 0 else original(self)

        return avg_num_queries

    def make_perc(original):
        def avg_perturbation_perc(self):
            if not (self.perturbed_word_percentages > 0).any():
                self.perturbed_word_percentages = self.perturbed_word_percentages[:0]
                return 0.0
            return original(self)

        return avg_perturbation_perc

    _once(AttackQueries, "avg_num_queries", make_queries)
    _once(WordsPerturbed, "avg_perturbation_perc", make_perc)


class RowsReadSafely:
    """View of a dataset for a guarded attack: a row that cannot be read becomes an empty
    :class:`~textattack_secondorder.shared.inputs.UnreadableRow` text (skipped with the reason)."""

    def __init__(self, dataset):
        self._dataset = dataset

    def __len__(self):
        return len(self._dataset)

    def __getattr__(self, name):
        if name.startswith("__") or name == "_dataset":
            raise AttributeError(name)
        return getattr(self._dataset, name)

    def __getitem__(self, i):

        try:
            return self._dataset[i]
        except IndexError:
            raise
        except Exception as e:  # noqa: BLE001 - a bad row is skipped, not fatal
            columns = getattr(self._dataset, "input_columns", None) or ["text"]
            reason = UnreadableRow(f"row could not be read: {type(e).__name__}: {e}")
            return OrderedDict((c, reason) for c in columns), None


def _replay_checkpoint(guard, dataset, checkpoint):
    """Let ``guard`` judge the rows attacked before ``checkpoint`` again (see ``InputGuard.replay``).

    Those are the rows from the offset on that are neither still to attack (``worklist``) nor
    spare (``worklist_candidates``), in the order TextAttack attacked them (ascending: checkpoints
    refuse shuffled datasets).
    """
    left = set(checkpoint.worklist) | set(checkpoint.worklist_candidates)
    offset = getattr(checkpoint.attack_args, "num_examples_offset", 0) or 0
    done = [i for i in range(offset, len(dataset)) if i not in left]
    if len(done) != checkpoint.results_count:
        logging.getLogger(__name__).warning(
            "checkpoint: %d rows attacked but %d results saved; rows before the checkpoint are not checked for "
            "duplicates again",
            len(done),
            checkpoint.results_count,
        )
        return
    guard.replay(dataset[i] for i in done)


def _extend_attacker():

    def make(original):
        def attack_dataset(self):
            extra = dict(EXTRA_METRICS)
            extra.update(getattr(self.attack, "summary_metrics", None) or {})
            for metric in extra.values():  # ASR1's label rule reads the victim's training data (metrics/asr1.py)
                if hasattr(metric, "bind_model"):
                    metric.bind_model(self.attack.goal_function.model)
            if extra:
                merged = dict(extra)
                merged.update(self.attack_args.metrics or {})
                self.attack_args.metrics = merged
                if self.attack_log_manager is not None:
                    self.attack_log_manager.metrics = merged
            # A GuardedAttack (attack_recipes/input_guard.py) judges rows, but TextAttack's Attacker tells an
            # attack neither that a run starts (the duplicate check must start afresh), nor which rows a
            # resumed checkpoint already attacked (they must be judged again), and it reads rows itself, so
            # a row that raises when read ends the run before any attack sees it.
            guard = getattr(self.attack, "input_guard", None)
            model = self.attack.goal_function.model
            if isinstance(self.dataset, CSVDataset):  # a user's CSV: label names -> the victim's class numbers
                self.dataset.adopt_model_labels(model_label_names(model), guarded=guard is not None)
            if getattr(self.dataset, "label_names", None) is None and readable_names(model_label_names(model)):
                # the model's names on screen ("billing (97%)") and in the CSV log's *_label columns
                self.dataset.label_names = readable_names(model_label_names(model))
            if guard is not None:
                guard.reset()
                if not isinstance(self.dataset, RowsReadSafely):
                    self.dataset = RowsReadSafely(self.dataset)
                if self._checkpoint is not None:
                    _replay_checkpoint(guard, self.dataset, self._checkpoint)
            return original(self)

        return attack_dataset

    _once(Attacker, "attack_dataset", make)


def _extend_checkpoint_save():

    def make(original):
        def save(self, quiet=False):
            # TextAttack pickles straight into ``<time>.ta.chkpt``: a run killed while saving leaves half a
            # checkpoint, which ``attack-resume --checkpoint-file latest`` then picks. Same file name, written
            # under a temporary name and renamed into place (docs/design/hostile-input.md).

            path = os.path.join(self.attack_args.checkpoint_dir, f"{int(self.time * 1000)}.ta.chkpt")
            if not quiet:
                logger.info(
                    'Saving checkpoint under "%s" at %s after %d attacks.', path, self.datetime, self.results_count
                )
            atomic_write_bytes(path, pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL))

        return save

    _once(AttackCheckpoint, "save", make)


def _extend_attack_resume():

    def make(original):
        def run(self, args):
            # TextAttack 0.3.11's resume of a `textattack attack` checkpoint raises AttributeError twice: it
            # reads the model arguments from ``checkpoint.attack_args.attack_args`` (they are the saved
            # CommandLineAttackArgs themselves) and calls ``DatasetArgs.parse_dataset_from_args`` (it is
            # ``_create_dataset_from_args``). The same steps, as `textattack attack` builds them.

            checkpoint = self._parse_checkpoint_from_args(args)
            saved = checkpoint.attack_args
            if not isinstance(saved, CommandLineAttackArgs):
                return original(self, args)
            saved.parallel = args.parallel
            if args.checkpoint_dir:
                saved.checkpoint_dir = args.checkpoint_dir
            if args.checkpoint_interval:
                saved.checkpoint_interval = args.checkpoint_interval
            try:
                model_wrapper = ModelArgs._create_model_from_args(saved)
                attack = CommandLineAttackArgs._create_attack_from_args(saved, model_wrapper)
                dataset = DatasetArgs._create_dataset_from_args(saved)  # a CSV that is gone: one line too
                Attacker.from_checkpoint(attack, dataset, checkpoint).attack_dataset()
            except UserError as e:
                print(f"textattack: error: {e}", file=sys.stderr)
                sys.exit(2)

        return run

    _once(AttackResumeCommand, "run", make)


def check_recipe_argument(recipe):
    """``recipe`` of ``textattack attack`` / ``augment`` with its parameters checked and written as Python
    literals (for TextAttack's ``eval``): our attack and augmentation recipes' ``NAME^params`` only;
    raises ``UsageError`` or ``RecipeParameterError``."""
    return checked_recipe(recipe, {**attack_recipes(), **augmentation_recipes()})


def _augmented_here(args):
    """The stock ``augment``'s files checked before TextAttack reads them (a missing file or column, an
    output without ``--overwrite``: one line, exit code 2); with one of our recipes, the augmentation
    itself, written by :func:`~..augmentation.csv_file.augment_csv`. True when it has run."""
    if getattr(args, "interactive", False) or not getattr(args, "input_csv", None):
        return False
    df = read_augment_csv(args.input_csv, args.input_column)
    if args.output_csv and os.path.exists(args.output_csv) and not args.overwrite:
        raise UsageError(f"--output-csv {args.output_csv} exists; pass --overwrite")
    if not args.output_csv or args.recipe.split("^", 1)[0] not in augmentation_recipes():
        return False
    # TextAttack's own steps for the augmenter, then a CSV that keeps every row
    textattack.shared.utils.set_seed(args.random_seed)
    augmenter = eval(textattack.augment_args.AUGMENTATION_RECIPE_NAMES[args.recipe], {"textattack": textattack})(
        pct_words_to_swap=args.pct_words_to_swap,
        transformations_per_example=args.transformations_per_example,
        high_yield=args.high_yield,
        fast_augment=args.fast_augment,
    )
    augment_csv(augmenter, df, args.input_column, args.output_csv, args.exclude_original)
    return True


def _check_command_args(args):
    n = getattr(args, "num_examples", None)
    if isinstance(n, int) and n < -1:
        raise UsageError(f"--num-examples={n} is not allowed: must be >= 0 (or -1 for every example)")
    offset = getattr(args, "num_examples_offset", None)
    if isinstance(offset, int) and offset < 0:
        raise UsageError(f"--num-examples-offset={offset} is not allowed: must be >= 0")
    for attr in ("attack_recipe", "recipe"):
        if isinstance(getattr(args, attr, None), str):
            setattr(args, attr, check_recipe_argument(getattr(args, attr)))


def _extend_commands():

    def make(original):
        def run(self, args):
            try:
                _check_command_args(args)
                if isinstance(self, AugmentCommand) and _augmented_here(args):
                    return None
                return original(self, args)
            except UserError as e:
                print(f"textattack: error: {e}", file=sys.stderr)
                sys.exit(2)

        return run

    _once(AttackCommand, "run", make)
    _once(AugmentCommand, "run", make)


# TextAttack's model globs for classification goal functions, plus our word-level victims
# (``models/word_models.py``: SOWordCNN/LSTM/BoW ...ForSequenceClassification).
OUR_VICTIM_GLOBS = (r"^textattack_secondorder\.models\.word_models\.\w*ForSequenceClassification$",)


def _extend_validators():

    table = validators.MODELS_BY_GOAL_FUNCTION
    # One list shared by TextAttack's classification goal functions (targeted, untargeted, input reduction).
    globs = table.setdefault(UntargetedClassification, [])
    globs.extend(g for g in OUR_VICTIM_GLOBS if g not in globs)
    table[SecondOrderClassification] = globs


SECOND_ORDER_ROWS = {
    # TextAttack's row → the row of a second-order run (docs/getting-started.md)
    "Accuracy under attack:": "No vulnerable example found:",
}


def second_order_summary_rows(rows, results):
    """TextAttack's summary ``rows`` of a second-order run, with "Original accuracy" the victim's real
    accuracy on the attacked sentences and "Accuracy under attack" named for what it counts."""

    out = []
    for name, value in rows:
        if name == "Original accuracy:":
            value = VictimAccuracy().calculate(results)
        out.append([SECOND_ORDER_ROWS.get(name, name), value])
    return out


#: TextAttack's rows that read 0.0% when the victim scored no row at all (every row skipped unread)
UNSCORED_ROWS = ("Original accuracy:", "Accuracy under attack:", "No vulnerable example found:")


def unscored_summary_rows(rows):
    """TextAttack's summary ``rows`` of a run in which the victim scored no row (the input guard skipped them
    all): the accuracies are not 0 %, there are none, so they read ``n/a``."""
    return [[name, "n/a" if name in UNSCORED_ROWS else value] for name, value in rows]


def _extend_log_summary():

    def make(original):
        def log_summary(self):
            results = self.results
            line = skipped_rows_line(results) if results else None
            if line:  # the reasons of the rows skipped for bad input, on screen (the CSV log has them per row)
                logger.warning(line)
            second_order = any(hasattr(r.perturbed_result, "patched_text") for r in results)
            unscored = bool(results) and not scored_rows(results)
            if not second_order and not unscored:
                return original(self)
            log_rows = self.log_summary_rows

            def rewritten(rows, title, window_id):
                if title == "Attack Results":
                    if second_order:
                        rows = second_order_summary_rows(rows, results)
                    if unscored:
                        rows = unscored_summary_rows(rows)
                return log_rows(rows, title, window_id)

            self.log_summary_rows = rewritten
            try:
                return original(self)
            finally:
                del self.log_summary_rows

        return log_summary

    _once(AttackLogManager, "log_summary", make)


def extend_textattack():
    _extend_validators()
    extend_model_args()
    extend_dataset_args()
    _extend_log_summary()
    _extend_csv_logger()
    _extend_diff_color()
    _extend_summary_metrics()
    _extend_attacker()
    _extend_commands()
    _extend_checkpoint_save()
    _extend_attack_resume()
