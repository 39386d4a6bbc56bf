"""A user's model and data in the stock CLI: TextAttack's ``ModelArgs`` and ``DatasetArgs``, extended.

* ``--model mr-cnn`` (a demo victim's name) loads that victim, trained on first use.
* A Hugging Face model that cannot be loaded (``--model-from-huggingface`` / ``--model DIR``: a folder missing,
  without config, classifier head or tokenizer; a hub id offline) is one line naming what is wrong
  (:func:`~..models.loading.check_classifier_spec`), exit code 2, instead of a traceback.
* With ``$TEXTATTACK_SECONDORDER_FAST_WRAPPER=1`` TextAttack's own recipes (``--recipe textfooler`` ...) query a
  Hugging Face classifier padded per batch too; ours always do (:func:`~..models.wrappers.fast_model_wrapper`,
  docs/design/speed.md). The log says so.

* ``--dataset-from-file reviews.csv`` reads a CSV with ``text`` and ``label`` columns (or ``FILE.csv^TEXT,LABEL``;
  :class:`~..datasets.csv_dataset.CSVDataset`; TextAttack wanted a Python file: "Failed to import file").

Idempotent; TextAttack's behaviour is otherwise unchanged.
"""

import functools
import json
import os

from textattack import DatasetArgs, ModelArgs
from textattack.models.wrappers import HuggingFaceModelWrapper

from ..datasets.csv_dataset import CSVDataset, is_csv_spec
from ..models import victims
from ..models.catalogue import VICTIMS, unknown_victim
from ..models.loading import check_classifier_spec, load_error
from ..models.wrappers import fast_model_wrapper
from ..shared.errors import UsageError

#: set to 1 so that TextAttack's own recipes, too, query a Hugging Face classifier padded per batch
FAST_WRAPPER_ENV = "TEXTATTACK_SECONDORDER_FAST_WRAPPER"


def _hf_model_spec(args):
    """The Hugging Face model ``args`` name (``--model-from-huggingface``, or a ``--model`` folder that is not
    one of TextAttack's own LSTM/CNN folders), or None."""
    if getattr(args, "model_from_file", None):
        return None
    if getattr(args, "model_from_huggingface", None):
        return args.model_from_huggingface
    spec = getattr(args, "model", None)
    if not spec or not os.path.isdir(spec) or os.path.exists(os.path.join(spec, "t5-wrapper-config.json")):
        return None
    try:
        with open(os.path.join(spec, "config.json"), encoding="utf-8") as f:
            architectures = json.load(f).get("architectures")
    except (OSError, ValueError):
        return spec  # the check says what is wrong with it
    return None if architectures in ("LSTMForClassification", "WordCNNForClassification") else spec


def extend_model_args():
    original = ModelArgs.__dict__["_create_model_from_args"].__func__
    if getattr(original, "_secondorder", False):
        return

    def create(cls, args):
        name = getattr(args, "model", None)
        if isinstance(name, str) and not getattr(args, "model_from_file", None) and not os.path.exists(name):
            if name in VICTIMS:
                args.model = str(victims.victim_dir(name))  # a demo victim by name (trained on first use)
            elif unknown_victim(name):
                raise UsageError(f"--model: {unknown_victim(name)}")
        spec = _hf_model_spec(args)
        if spec is not None:
            check_classifier_spec(spec)
        try:
            wrapper = original(cls, args)
        except Exception as e:
            if spec is None:
                raise
            raise load_error(spec, e) from e
        if os.environ.get(FAST_WRAPPER_ENV, "") not in ("", "0") and isinstance(wrapper, HuggingFaceModelWrapper):
            wrapper = fast_model_wrapper(wrapper, f"every recipe ({FAST_WRAPPER_ENV}=1)")
        return wrapper

    create._secondorder = True
    ModelArgs._create_model_from_args = classmethod(create)


def extend_dataset_args():
    original = DatasetArgs._create_dataset_from_args  # a classmethod: wrapped as one
    if getattr(original, "_secondorder", False):
        return

    @functools.wraps(original.__func__)
    def create(cls, args):
        # `--dataset-from-file reviews.csv`: TextAttack would import it as Python ("Failed to import file")
        spec = getattr(args, "dataset_from_file", None)
        if is_csv_spec(spec):
            return CSVDataset(spec, getattr(args, "filter_by_labels", None))
        return original.__func__(cls, args)

    create._secondorder = True
    DatasetArgs._create_dataset_from_args = classmethod(create)
