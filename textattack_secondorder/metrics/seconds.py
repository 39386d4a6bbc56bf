"""The summary row of seconds per attacked example, for every recipe of the package."""

import numpy as np
from textattack.attack_results import SkippedAttackResult
from textattack.metrics import Metric

ROW = "Avg seconds per attacked (non-skipped) example:"


def result_seconds(result):
    """Wall-clock seconds of one result's row: the input guard's ``seconds`` (the whole row), else a second-order
    result's ``elapsed`` (the goal function's clock), else None."""
    seconds = getattr(result, "seconds", None)
    if seconds is None:
        seconds = getattr(result.perturbed_result, "elapsed", None)
    return seconds


class SecondsPerExample(Metric):
    """Mean wall-clock seconds per attacked (not skipped) example."""

    def __init__(self):
        pass

    def calculate(self, results):
        vals = [
            s for s in (result_seconds(r) for r in results if not isinstance(r, SkippedAttackResult)) if s is not None
        ]
        return round(float(np.mean(vals)), 2) if vals else 0.0
