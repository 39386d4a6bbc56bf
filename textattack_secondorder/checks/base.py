"""What every check of the gate shares: its metrics (with the direction a threshold bounds and the
default tolerance of a comparison with a baseline), its settings (defaults, types, allowed values),
the evaluation it runs and :class:`ConfigError` (docs/design/gate.md).

A check's *evaluation* is the expensive part (an attack, κ, B_{p,k}, perturbed sets); it returns an
:class:`Evaluation` of plain numbers and small texts, which the runner stores under a content key.
The *verdict* (:mod:`.verdict`) only compares stored values with the threshold and the baseline, so
editing a threshold or a tolerance never re-runs an evaluation.
"""

from dataclasses import dataclass, field

from ..shared.errors import UserError
from ..shared.recipe_params import SPLIT, parse_recipe_params

AT_MOST, AT_LEAST = "at_most", "at_least"  # value <= threshold passes / value >= threshold passes
# Settings (and recipe parameters) that only pick which sample is drawn: runs that differ in them
# measure the same quantity, so a baseline drawn with other seeds is comparable (docs/design/gate.md).
SAMPLING_SETTINGS = ("seed",)
# Recipe parameters that say where or how fast a run goes, not what it measures.
EXECUTION_PARAMS = ("device", "perplexity")


class ConfigError(ValueError, UserError):
    """A bad gate configuration: one line naming the key and the valid choices (exit code 2)."""


@dataclass(frozen=True)
class Metric:
    """A metric of a check: the ``direction`` a threshold bounds, its ``unit``, the ``bounds`` its
    values lie in (``None``: open) and the default ``tolerance`` of a comparison with a baseline, in
    the metric's unit, larger than the run-to-run spread measured on the demo victims (docs/design/gate.md)."""

    direction: str  # AT_MOST or AT_LEAST
    unit: str
    description: str
    tolerance: float = 0.0
    bounds: tuple = (None, None)

    def worse_by(self, value, baseline):
        """How much worse ``value`` is than ``baseline`` (negative: better)."""
        return value - baseline if self.direction == AT_MOST else baseline - value


@dataclass(frozen=True)
class Allowed:
    """The values a numeric setting allows: ``low <= value <= high`` (``None``: open), as the
    command-line flag of the same setting checks it."""

    low: float = None
    high: float = None
    above_low: bool = False  # low itself is not allowed (a share of the words: > 0)

    def why_not(self, value):
        """``None`` when ``value`` is allowed, else the rule it breaks, in words."""
        low = None if self.low is None else (">" if self.above_low else ">=") + f" {self.low:g}"
        high = None if self.high is None else f"<= {self.high:g}"
        too_low = self.low is not None and (value <= self.low if self.above_low else value < self.low)
        too_high = self.high is not None and value > self.high
        return f"must be {' and '.join(r for r in (low, high) if r)}" if too_low or too_high else None


COUNT = Allowed(1)  # a number of things: at least one
NON_NEGATIVE = Allowed(0)  # a level, an index, a seed, 0 = "all" where the setting says so
SHARE = Allowed(0, 1, above_low=True)  # a share of the words: above 0, at most 1


@dataclass
class Evaluation:
    """What a check's evaluation measured: ``values`` (metric -> number or None), a line of
    ``evidence`` per metric, per-item ``rows`` (table shown in the report) and ``examples``
    (a few texts, shown escaped), plus ``files`` (name -> path relative to the check's folder) and
    ``measured_with``: what the measurement depended on beyond the settings (the resources a slot
    resolved to, the vocabulary), compared with a baseline's like the settings; ``sentences``: for a metric that is a
    share of sentences (``%``, ``per 100``), how many sentences it is a share of, so that the verdict can say when one
    sentence moves it by more than its tolerance (:meth:`~.verdict.Verdict.resolution_text`)."""

    values: dict
    evidence: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)
    examples: list = field(default_factory=list)
    files: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    measured_with: dict = field(default_factory=dict)
    sentences: dict = field(default_factory=dict)

    FIELDS = ("values", "evidence", "rows", "examples", "files", "info", "measured_with", "sentences")

    def to_dict(self):
        return {k: getattr(self, k) for k in self.FIELDS}

    @classmethod
    def from_dict(cls, d):
        return cls(**{k: d.get(k, [] if k in ("rows", "examples") else {}) for k in cls.FIELDS})


def recipe_settings(recipe, prefix="recipe"):
    """``{"recipe": name, "recipe.param": value, ...}`` of a ``NAME^a=1,b='x'`` recipe string, without
    its sampling seed and execution parameters (the parts of a recipe that define what it measures)."""
    name, _, params = str(recipe).partition(SPLIT)
    out = {prefix: name}
    try:
        parsed = parse_recipe_params(params)
    except ValueError:
        return {prefix: str(recipe)}
    for k, v in sorted(parsed.items()):
        if k not in SAMPLING_SETTINGS + EXECUTION_PARAMS:
            out[f"{prefix}.{k}"] = v
    return out


class Check:
    """One kind of check. Subclasses set ``kind``, ``METRICS`` (name -> :class:`Metric`), ``SETTINGS``
    (name -> (default, type or tuple of types, help[, :class:`Allowed`])) and implement
    ``evaluate(context, folder)``."""

    kind = ""
    METRICS = {}
    SETTINGS = {}
    # settings that say which examples the check reads (taken from the config's top level when absent)
    DATA_SETTINGS = ("dataset", "split", "num_examples")

    def __init__(self, name, metric, threshold, settings, tolerance=None):
        self.name, self.metric, self.settings = name, metric, settings
        self.threshold = None if threshold is None else float(threshold)
        self.tolerance = None if tolerance is None else float(tolerance)

    def depends_on(self):
        """Names of other checks whose evaluation this one reads (the meaning check)."""
        return []

    def input_files(self):
        """Files the evaluation reads besides the model and the data (a recipe's saved ``kappa=``): their content is
        part of the evaluation's key, so a file rewritten under the same name is measured again."""
        return []

    def comparable_settings(self):
        """The settings that define what the check measures (the recipe split into its parameters;
        sampling seeds left out): a baseline is comparable when they are equal (docs/design/gate.md)."""
        out = {}
        for k, v in sorted(self.settings.items()):
            if k in SAMPLING_SETTINGS:
                continue
            out.update(recipe_settings(v, k) if k == "recipe" else {k: v})
        return out

    def validate(self):
        """Checks that need the heavy libraries (recipe names and parameters); the runner calls it
        for every check it is about to evaluate, before any model loads. Raises a user error."""

    def check_inputs(self, context):
        """Checks that need the model (a saved κ must be the model's own); the runner calls it for every check it is
        about to evaluate, after :meth:`validate` and before the first evaluation, so that a refusal costs no
        evaluation. Raises a :class:`ConfigError`."""

    def evaluate(self, context, folder):  # pragma: no cover - abstract
        raise NotImplementedError
