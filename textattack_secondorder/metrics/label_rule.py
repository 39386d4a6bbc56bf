"""The summary rows SP-Attack adds: its label rule, fluency rule and word pool, as so-beam's names its patch rule, and
its seconds per attacked example (docs/design/single-word.md)."""

from textattack.metrics import Metric

from .seconds import ROW as SECONDS_ROW
from .seconds import SecondsPerExample

ROW = "Label rule:"
FLUENCY_ROW = "Fluency rule:"
POOL_ROW = "Word pool:"


class RuleName(Metric):
    """A rule of the run (anything with ``describe()``: a label or fluency rule, the word pool), with its settings."""

    def __init__(self, rule):
        self.rule = rule

    def bind_model(self, model_wrapper):
        """A rule that is built once the victim is known (:class:`~.asr1.LabelRuleForModel`) is bound here too."""
        if hasattr(self.rule, "bind_model"):
            self.rule.bind_model(model_wrapper)

    def calculate(self, results):
        return self.rule.describe()


def label_rule_metrics(rule, fluency=None, pool=None):
    """The rows SP-Attack's recipe adds to TextAttack's summary table."""
    rows = {ROW: RuleName(rule)}
    if fluency is not None:
        rows[FLUENCY_ROW] = RuleName(fluency)
    if pool is not None:
        rows[POOL_ROW] = RuleName(pool)
    rows[SECONDS_ROW] = SecondsPerExample()
    return rows
