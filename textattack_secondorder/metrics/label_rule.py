"""The summary row naming SP-Attack's label rule (docs/methods.md §2.5), as so-beam's names its patch rule."""

from textattack.metrics import Metric

ROW = "Label rule:"


class LabelRuleName(Metric):
    """The label rule of the run (:class:`~..constraints.label_rules.LabelRule`), with its settings."""

    def __init__(self, rule):
        self.text = rule.describe()

    def calculate(self, results):
        return self.text


def label_rule_metrics(rule):
    """The rows SP-Attack's recipe adds to TextAttack's summary table."""
    return {ROW: LabelRuleName(rule)}
