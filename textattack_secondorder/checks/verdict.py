"""The verdict of one check: its value judged by the threshold rule and by the baseline rule
(docs/design/gate.md). Plain comparisons of stored numbers: re-judging never recomputes.

* threshold rule: ``value <= threshold`` (or ``>=``, the metric's direction) passes;
* baseline rule: the value may be worse than the baseline's value of the same metric by at most
  the tolerance (the check's ``tolerance`` or the metric's default), when the baseline measured the
  same thing (same comparable settings); otherwise the check is *not comparable*, never a pass.

A value that is ``n/a`` (nothing to measure) passes a rule, and the evidence says why. A share of sentences
measured on so few sentences that one sentence moves it by more than the tolerance is said beside the verdict
(:meth:`Verdict.resolution_text`): the baseline rule would then judge single sentences, not the model.
"""

import math
from dataclasses import dataclass, field

from .base import AT_MOST

PASS, FAIL, NOT_COMPARABLE, NOT_JUDGED = "pass", "fail", "not comparable", "not judged"
# the baseline rule's states
COMPARED, DIFFERENT_SETTINGS, NOT_IN_BASELINE = "compared", "settings differ", "not in the baseline"


def _na(x):
    return x is None or x != x


def fmt(v, digits=4):
    """A value as the reports print it: 4 significant digits, ``n/a`` for nothing measured."""
    if _na(v):
        return "n/a"
    return f"{v:.{digits}g}" if isinstance(v, float) else str(v)


@dataclass
class Comparison:
    """The baseline rule of one check: ``state`` (compared / settings differ / not in the baseline),
    the baseline's value, the settings that differ as ``(key, baseline value, current value)``."""

    state: str
    value: object = None
    differences: list = field(default_factory=list)

    def differing_keys(self):
        return ", ".join(f"{k} ({fmt_setting(b)} → {fmt_setting(c)})" for k, b, c in self.differences)

    def to_dict(self):
        return {
            "state": self.state,
            "value": self.value,
            "differences": [{"key": k, "baseline": b, "current": c} for k, b, c in self.differences],
        }


def fmt_setting(v):
    if v is MISSING:
        return "absent"
    text = repr(v) if isinstance(v, str) else "none" if v is None else fmt(v)
    return text if len(text) <= 40 else text[:18] + "…" + text[-18:]


class _Missing:
    def __repr__(self):
        return "absent"


MISSING = _Missing()  # a setting one side has and the other lacks


def differences(baseline, current):
    """``[(key, baseline value, current value)]`` of the keys whose values differ (sorted)."""
    keys = sorted(set(baseline) | set(current))
    out = []
    for k in keys:
        b, c = baseline.get(k, MISSING), current.get(k, MISSING)
        if b != c and not (isinstance(b, (int, float)) and isinstance(c, (int, float)) and float(b) == float(c)):
            out.append((k, b, c))
    return out


@dataclass
class Verdict:
    name: str
    kind: str
    metric: str
    direction: str
    unit: str
    value: object
    threshold: object  # float or None
    tolerance: float  # the one the baseline rule uses: the check's own or the metric's default
    tolerance_default: bool
    evidence: str
    comparison: object = None  # Comparison, or None when no baseline was given
    seconds: float = 0.0
    reused: bool = False
    values: dict = field(default_factory=dict)  # every metric of the evaluation
    comparable: dict = field(default_factory=dict)  # what the evaluation measured: compared with a baseline's
    model_fingerprint: str = ""
    key: str = ""
    sentences: object = None  # how many sentences the value is a share of (None: not a share of sentences)

    # ------------------------------------------------------------------ the two rules
    @property
    def rule(self):
        """The threshold rule in words (``<= 50``), or ``—`` without a threshold."""
        if self.threshold is None:
            return "—"
        return f"{'<=' if self.direction == AT_MOST else '>='} {self.threshold:g}"

    @property
    def threshold_failed(self):
        if self.threshold is None or _na(self.value):
            return False
        return self.value > self.threshold if self.direction == AT_MOST else self.value < self.threshold

    @property
    def compared(self):
        return self.comparison is not None and self.comparison.state == COMPARED

    @property
    def delta(self):
        """current − baseline, when both are numbers."""
        if not self.compared or _na(self.value) or _na(self.comparison.value):
            return None
        return self.value - self.comparison.value

    @property
    def worse_by(self):
        """How much worse than the baseline (negative: better), when both are numbers."""
        d = self.delta
        return None if d is None else (d if self.direction == AT_MOST else -d)

    @property
    def baseline_failed(self):
        w = self.worse_by
        return w is not None and w > self.tolerance + 1e-9 * max(1.0, abs(self.tolerance))

    @property
    def failed_rules(self):
        return [r for r, failed in (("threshold", self.threshold_failed), ("baseline", self.baseline_failed)) if failed]

    @property
    def status(self):
        if self.failed_rules:
            return FAIL
        if self.comparison is not None and not self.compared:
            return NOT_COMPARABLE
        if self.threshold is None and self.comparison is None:
            return NOT_JUDGED
        return PASS

    @property
    def passed(self):
        return self.status == PASS

    # ------------------------------------------------------------------ words
    def baseline_bound(self):
        """The worst value the baseline rule lets pass."""
        b = self.comparison.value
        return b + self.tolerance if self.direction == AT_MOST else b - self.tolerance

    def tolerance_text(self):
        return f"{self.tolerance:g}{' (default)' if self.tolerance_default else ''}"

    def messages(self):
        """One sentence per failed rule, naming the values, the threshold or the baseline and the tolerance."""
        out = []
        v = fmt(self.value)
        if self.threshold_failed:
            cmp = "above" if self.direction == AT_MOST else "below"
            out.append(
                f"{self.metric} = {v} is {cmp} the threshold {self.threshold:g} by "
                f"{abs(self.value - self.threshold):.4g} ({self.rule} passes)"
            )
        if self.baseline_failed:
            out.append(
                f"{self.metric} = {v} is worse than the baseline {fmt(self.comparison.value)} by "
                f"{self.worse_by:.4g}, more than the {'default ' if self.tolerance_default else ''}tolerance "
                f"{self.tolerance:g} ({'<=' if self.direction == AT_MOST else '>='} {self.baseline_bound():.4g} passes)"
            )
        return out

    def resolution_text(self):
        """A sentence when the value is a share of fewer sentences than its tolerance can resolve (one sentence
        moves it by more than the tolerance: 5 per 100 is half a sentence of 10), naming the count and what to
        change; ``""`` otherwise (enough sentences, a tolerance of 0, or not a share of sentences)."""
        n = self.sentences
        if self.unit not in ("%", "per 100") or not isinstance(n, int) or self.tolerance <= 0:
            return ""
        if n == 0:
            return f"{self.metric} rests on no sentence: there is nothing to judge; give the check more sentences"
        step = 100.0 / n
        if step <= self.tolerance + 1e-9:
            return ""
        unit = "points" if self.unit == "%" else self.unit
        return (
            f"{self.metric} rests on {n} sentence{'s' if n != 1 else ''}: one sentence moves it by {step:.3g} {unit}, "
            f"more than the tolerance {self.tolerance:g} ({self.tolerance * n / 100:.2g} of a sentence), so a "
            f"baseline comparison judges single sentences; measure at least {math.ceil(100 / self.tolerance - 1e-9)} "
            f"sentences (raise num_examples) or set tolerance = {math.ceil(step * 100) / 100:g} for this check"
        )

    def not_comparable_text(self):
        if self.comparison is None or self.compared:
            return ""
        if self.comparison.state == NOT_IN_BASELINE:
            return f"{self.name!r} is not in the baseline (a check added since; accept a new baseline to compare it)"
        return f"settings differ from the baseline's: {self.comparison.differing_keys()}"

    def verdict_text(self):
        """``PASS``, ``FAIL (threshold, baseline)``, ``NOT COMPARABLE``, ``NOT JUDGED``."""
        if self.status == FAIL:
            return f"FAIL ({', '.join(self.failed_rules)})"
        return self.status.upper()

    def to_dict(self):
        c = self.comparison
        return {
            "name": self.name,
            "kind": self.kind,
            "metric": self.metric,
            "unit": self.unit,
            "direction": self.direction,
            "value": self.value,
            "values": self.values,
            "threshold": self.threshold,
            "rule": self.rule,
            "tolerance": self.tolerance,
            "tolerance_is_default": self.tolerance_default,
            "status": self.status,
            "passed": self.passed,
            "failed_rules": self.failed_rules,
            "messages": self.messages() + ([self.not_comparable_text()] if self.status == NOT_COMPARABLE else []),
            "baseline": None
            if c is None
            else dict(c.to_dict(), delta=self.delta, worse_by=self.worse_by, failed=self.baseline_failed),
            "evidence": self.evidence,
            "sentences": self.sentences,
            "notes": [t for t in (self.resolution_text(),) if t],
            "comparable": self.comparable,
            "model_fingerprint": self.model_fingerprint,
            "key": self.key,
            "seconds": round(self.seconds, 2),
            "reused": self.reused,
        }
