"""What a robustness run produces: the perturbed sets and the report (docs/design/meaning.md).

A :class:`PerturbedSet` is one perturbed copy of the evaluation set (FlagEval's
``dist_i``), named after its level and method (``C-typo``, ``W-synonym``,
``S-backtranslation``, ``Adv-<recipe>``). A :class:`RobustnessReport` holds the
per-set rows (accuracy, relative drop, mean chrF), the predictions and the RB-index.
"""

from dataclasses import dataclass, field

LEVELS = ("char", "word", "sentence", "adversarial")
LEVEL_PREFIX = {"char": "C", "word": "W", "sentence": "S", "adversarial": "Adv"}  # FlagEval's set names


def set_name(level, method):
    """FlagEval's name of a perturbed set: ``C-typo``, ``W-synonym``, ``Adv-textfooler-offline``..."""
    return f"{LEVEL_PREFIX.get(level, level)}-{method}"


@dataclass
class PerturbedSet:
    """One perturbed copy of the evaluation set: ``texts[i]`` is the perturbation of original ``i``."""

    name: str
    level: str
    method: str
    texts: list
    settings: dict = field(default_factory=dict)


@dataclass
class RobustnessReport:
    """Accuracy and chrF per set and the RB-index (docs/design/meaning.md); ``rows[0]`` is the original set."""

    texts: list
    labels: list
    sets: list  # PerturbedSet
    rows: list  # one dict per set, the original first
    predictions: dict  # set name -> predictions
    rb: float
    settings: dict
    skipped_levels: dict  # level -> reason
    label_names: list = None  # the model's label names in class order, for showing classes by name (or None)
