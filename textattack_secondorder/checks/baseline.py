"""The baseline of the gate: an earlier run's ``results.json``, read back to judge a run against it
(docs/design/gate.md).

A baseline names, per check, every metric's value and what the evaluation measured (its comparable
settings, the examples' digest, the resources and vocabulary it used). :func:`load_baseline` refuses
a file that is missing, unreadable or not the gate's with one line (:class:`BaselineError`, exit
code 2) before any model loads; :func:`compare` says whether a check of this run measured the same
thing as the baseline's check of the same name, naming the keys that differ;
:func:`write_baseline` writes this run's results as the new baseline (``--accept``,
``--update-baseline``), never without being asked.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..shared.files import atomic_write_text
from .base import ConfigError
from .verdict import COMPARED, DIFFERENT_SETTINGS, NOT_IN_BASELINE, Comparison, differences

FORMAT = "textattack-so check results"
FORMAT_VERSION = 2  # 1: results.json before baselines (no format key, no comparable settings)
RESULTS_FILE = "results.json"


class BaselineError(ConfigError):
    """A baseline that cannot be used: one line naming the file and the problem (exit code 2)."""


@dataclass
class Baseline:
    path: str
    checks: dict  # name -> the check's entry of results.json
    document: dict = field(default_factory=dict)

    @property
    def model(self):
        return self.document.get("model")

    @property
    def model_fingerprint(self):
        return self.document.get("model_fingerprint") or ""

    @property
    def package_version(self):
        return self.document.get("package_version")

    def describe(self):
        """``PATH (model M, fingerprint F, textattack-secondorder V, written T)``."""
        d = self.document
        parts = [
            f"model {d.get('model')}",
            f"fingerprint {self.model_fingerprint[:12] or 'unknown'}",
            f"textattack-secondorder {self.package_version}",
            f"written {d.get('written', '?')}",
        ]
        return f"{self.path} ({', '.join(parts)})"


def baseline_file(path):
    """``path``, or ``path/results.json`` when ``path`` is a folder (or names one with a trailing slash)."""
    p = Path(path)
    return p / RESULTS_FILE if p.is_dir() or str(path).endswith(("/", "\\")) else p


def load_baseline(path):
    """Read and check the baseline at ``path`` (a ``results.json`` or its folder)."""
    p = baseline_file(path)

    def bad(problem):
        return BaselineError(f"baseline {p}: {problem}")

    if not p.exists():
        raise bad(f"not found (write one with: textattack-so check CONFIG --update-baseline {p})")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise bad(f"cannot be read ({type(e).__name__}: {e})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        problem = f"not JSON ({e.msg}, line {e.lineno} column {e.colno}); give a results.json of textattack-so check"
        raise bad(problem) from None
    if not isinstance(doc, dict) or "checks" not in doc:
        raise bad("not a results.json of textattack-so check (no 'checks' list)")
    if doc.get("format") != FORMAT:
        if "format" not in doc and isinstance(doc.get("checks"), list):
            raise bad(
                "written by an older textattack-so check, without the settings each check measured with; "
                "re-run the gate on the baseline model with --update-baseline to write a usable baseline"
            )
        raise bad(f"not a results.json of textattack-so check (format {doc.get('format')!r}, expected {FORMAT!r})")
    version = doc.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise bad(
            f"format version {version!r}: this textattack-secondorder reads versions up to {FORMAT_VERSION} "
            "(written by a newer package; upgrade it)"
        )
    checks = {}
    for i, c in enumerate(doc["checks"] if isinstance(doc["checks"], list) else [None]):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise bad(f"checks[{i}] has no name: the file is damaged")
        if not isinstance(c.get("values"), dict) or not isinstance(c.get("comparable"), dict):
            raise bad(f"check {c['name']!r} has no values or comparable settings: the file is damaged")
        checks[c["name"]] = c
    return Baseline(str(p), checks, doc)


def compare(baseline, name, metric, comparable):
    """The baseline rule's :class:`~.verdict.Comparison` for check ``name``: the baseline's value of
    ``metric`` when it measured with the same ``comparable`` settings, else which settings differ."""
    entry = baseline.checks.get(name)
    if entry is None:
        return Comparison(NOT_IN_BASELINE)
    diff = differences(entry["comparable"], comparable)
    if diff:
        return Comparison(DIFFERENT_SETTINGS, entry["values"].get(metric), diff)
    return Comparison(COMPARED, entry["values"].get(metric))


def write_baseline(path, document):
    """Write ``document`` (this run's results) as the baseline at ``path``; returns the file written."""
    p = baseline_file(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(p, json.dumps(document, indent=2, default=str))
    return p
