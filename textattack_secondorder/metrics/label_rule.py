"""The summary rows SP-Attack adds: its label rule and fluency rule, as so-beam's names its patch rule, and its
seconds per attacked example (docs/design/single-word.md)."""

from textattack.metrics import Metric

from .seconds import ROW as SECONDS_ROW
from .seconds import SecondsPerExample

ROW = "Label rule:"
FLUENCY_ROW = "Fluency rule:"


class RuleName(Metric):
    """A rule of the run (anything with ``describe()``: a label or fluency rule), with its settings."""

    def __init__(self, rule):
        self.text = rule.describe()

    def calculate(self, results):
        return self.text


def label_rule_metrics(rule, fluency=None):
    """The rows SP-Attack's recipe adds to TextAttack's summary table."""
    rows = {ROW: RuleName(rule)}
    if fluency is not None:
        rows[FLUENCY_ROW] = RuleName(fluency)
    rows[SECONDS_ROW] = SecondsPerExample()
    return rows
