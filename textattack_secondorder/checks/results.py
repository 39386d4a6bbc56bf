"""``results.json``: what a run of the gate measured and judged, in one document that pandas reads
(``pd.json_normalize(doc["checks"])``) and that a later run reads back as its baseline
(docs/design/gate.md)."""

import datetime

from .._version import __version__
from .baseline import FORMAT, FORMAT_VERSION
from .verdict import FAIL, NOT_COMPARABLE, NOT_JUDGED, PASS

STATUS_ORDER = (FAIL, NOT_COMPARABLE, NOT_JUDGED, PASS)  # the run's status: the first any check has


def overall_status(verdicts):
    statuses = {v.status for v in verdicts}
    return next((s for s in STATUS_ORDER if s in statuses), PASS)


def counts(verdicts):
    """Checks per status: pass, fail, not comparable, not judged."""
    return {s: sum(v.status == s for v in verdicts) for s in (PASS, FAIL, NOT_COMPARABLE, NOT_JUDGED)}


def model_fingerprint(verdicts):
    """The fingerprint of the model the evaluations ran on (``""`` when unknown, several joined by
    ``+`` when reused evaluations come from different files of the same spec)."""
    return "+".join(sorted({v.model_fingerprint for v in verdicts if v.model_fingerprint}))


def same_model(verdicts, baseline):
    """True / False when both fingerprints are known, else None."""
    fp = model_fingerprint(verdicts)
    return None if not fp or not baseline.model_fingerprint else fp == baseline.model_fingerprint


def results_document(config, verdicts, elapsed, baseline=None):
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "package_version": __version__,
        "written": datetime.datetime.now().astimezone().replace(microsecond=0).isoformat(),
        "config": config.path,
        "model": config.model,
        "model_fingerprint": model_fingerprint(verdicts),
        "dataset": config.dataset,
        "split": config.split,
        "status": overall_status(verdicts),
        "passed": all(v.passed for v in verdicts),
        "counts": counts(verdicts),
        "elapsed_seconds": round(elapsed, 2),
        "baseline": None
        if baseline is None
        else {
            "path": baseline.path,
            "model": baseline.model,
            "model_fingerprint": baseline.model_fingerprint,
            "package_version": baseline.package_version,
            "written": baseline.document.get("written"),
            "same_model": same_model(verdicts, baseline),
        },
        "checks": [v.to_dict() for v in verdicts],
    }
