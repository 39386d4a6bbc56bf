"""What every check of the gate shares: its metrics (with the direction a threshold bounds), its
settings (defaults, types), the evaluation it runs and the verdict (docs/methods.md §8).

A check's *evaluation* is the expensive part (an attack, κ, B_{p,k}, perturbed sets); it returns an
:class:`Evaluation` of plain numbers and small texts, which the runner stores under a content key.
The *verdict* only compares a stored value with the threshold, so editing a threshold never
re-runs an evaluation.
"""

from dataclasses import dataclass, field

from ..shared.errors import UserError

AT_MOST, AT_LEAST = "at_most", "at_least"  # value <= threshold passes / value >= threshold passes


class ConfigError(ValueError, UserError):
    """A bad gate configuration: one line naming the key and the valid choices (exit code 2)."""


@dataclass(frozen=True)
class Metric:
    direction: str  # AT_MOST or AT_LEAST
    unit: str
    description: str


@dataclass
class Evaluation:
    """What a check's evaluation measured: ``values`` (metric -> number or None), a line of
    ``evidence`` per metric, per-item ``rows`` (table shown in the report) and ``examples``
    (a few texts, shown escaped), plus ``files`` (name -> path relative to the output folder)."""

    values: dict
    evidence: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)
    examples: list = field(default_factory=list)
    files: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def to_dict(self):
        return {
            "values": self.values,
            "evidence": self.evidence,
            "rows": self.rows,
            "examples": self.examples,
            "files": self.files,
            "info": self.info,
        }

    @classmethod
    def from_dict(cls, d):
        return cls(
            **{
                k: d.get(k, {} if k in ("values", "evidence", "files", "info") else [])
                for k in ("values", "evidence", "rows", "examples", "files", "info")
            }
        )


@dataclass
class Verdict:
    name: str
    kind: str
    metric: str
    threshold: float
    direction: str
    value: object
    passed: bool
    evidence: str
    seconds: float = 0.0
    reused: bool = False

    @property
    def rule(self):
        return f"{'<=' if self.direction == AT_MOST else '>='} {self.threshold:g}"

    def to_dict(self):
        return {
            "name": self.name,
            "kind": self.kind,
            "metric": self.metric,
            "threshold": self.threshold,
            "rule": self.rule,
            "value": self.value,
            "passed": self.passed,
            "evidence": self.evidence,
            "seconds": round(self.seconds, 2),
            "reused": self.reused,
        }


def judge(value, metric, threshold):
    """Pass/fail of ``value`` against ``threshold`` in ``metric``'s direction; ``None`` (nothing to
    measure, e.g. no successful attack) passes."""
    if value is None or value != value:
        return True
    return value <= threshold if metric.direction == AT_MOST else value >= threshold


class Check:
    """One kind of check. Subclasses set ``kind``, ``METRICS`` (name -> :class:`Metric`), ``SETTINGS``
    (name -> (default, type or tuple of types, help)) and implement ``evaluate(context, settings, folder)``."""

    kind = ""
    METRICS = {}
    SETTINGS = {}
    # settings that say which examples the check reads (taken from the config's top level when absent)
    DATA_SETTINGS = ("dataset", "split", "num_examples")

    def __init__(self, name, metric, threshold, settings):
        self.name, self.metric, self.threshold, self.settings = name, metric, float(threshold), settings

    def depends_on(self):
        """Names of other checks whose evaluation this one reads (the meaning check)."""
        return []

    def evaluate(self, context, folder):  # pragma: no cover - abstract
        raise NotImplementedError
