"""``junit.xml``: one test case per check, as CI systems read JUnit XML (docs/design/gate.md).

A failed rule is a ``<failure>`` whose message names the value, the threshold or the baseline's
value and the tolerance; a check that could not be compared with its baseline is an ``<error>``
(``NotComparable``: the settings that differ), one with neither threshold nor baseline ``<skipped>``.
"""

import datetime
import platform
from xml.etree import ElementTree as ET

from ..shared.files import atomic_write_text
from .summary import reasons
from .verdict import FAIL, NOT_COMPARABLE, NOT_JUDGED, fmt

SUITE = "textattack-so check"
FAILURE_TYPES = {"threshold": "ThresholdExceeded", "baseline": "WorseThanBaseline"}


def junit_tree(config, verdicts, elapsed, baseline=None):
    """JUnit XML as CI systems read it: testsuites > testsuite (properties) > testcase (failure, error,
    skipped, system-out)."""
    n = {s: sum(v.status == s for v in verdicts) for s in (FAIL, NOT_COMPARABLE, NOT_JUDGED)}
    common = dict(tests=str(len(verdicts)), failures=str(n[FAIL]), errors=str(n[NOT_COMPARABLE]))
    root = ET.Element("testsuites", name=SUITE, **common, time=f"{elapsed:.3f}")
    suite = ET.SubElement(
        root,
        "testsuite",
        name=SUITE,
        **common,
        skipped=str(n[NOT_JUDGED]),
        time=f"{elapsed:.3f}",
        timestamp=datetime.datetime.now().replace(microsecond=0).isoformat(),
        hostname=platform.node() or "localhost",
    )
    props = ET.SubElement(suite, "properties")
    base = [("config", config.path), ("model", config.model), ("dataset", config.dataset), ("split", config.split)]
    if baseline is not None:
        base += [("baseline", baseline.path), ("baseline.model", baseline.model or "")]
    per_check = []
    for v in verdicts:
        per_check += [
            (f"{v.name}.metric", v.metric),
            (f"{v.name}.value", fmt(v.value)),
            (f"{v.name}.threshold", "" if v.threshold is None else f"{v.threshold:g}"),
            (f"{v.name}.rule", v.rule),
        ]
        if v.comparison is not None:
            per_check += [
                (f"{v.name}.baseline", fmt(v.comparison.value)),
                (f"{v.name}.tolerance", f"{v.tolerance:g}"),
                (f"{v.name}.comparison", v.comparison.state),
            ]
    for name, value in base + per_check:
        ET.SubElement(props, "property", name=name, value=str(value))
    for v in verdicts:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"robustness.{v.kind}",
            name=f"{v.name}: {v.metric}",
            time=f"{v.seconds:.3f}",
        )
        text = "; ".join(t for _, t in reasons([v]))
        if v.status == FAIL:
            kind = ", ".join(FAILURE_TYPES[r] for r in v.failed_rules)
            ET.SubElement(case, "failure", message=text, type=kind).text = f"{text}\nevidence: {v.evidence}"
        elif v.status == NOT_COMPARABLE:
            ET.SubElement(case, "error", message=text, type="NotComparable").text = text
        elif v.status == NOT_JUDGED:
            ET.SubElement(case, "skipped", message=text)
        lines = [f"value: {fmt(v.value)}", f"threshold: {v.rule}"]
        if v.comparison is not None:
            lines += [f"baseline: {fmt(v.comparison.value)} ({v.comparison.state})", f"tolerance: {v.tolerance_text()}"]
        lines += [f"evidence: {v.evidence}", "reused the stored evaluation" if v.reused else "evaluated"]
        ET.SubElement(case, "system-out").text = "\n".join(lines)
    return ET.ElementTree(root)


def write_junit(path, config, verdicts, elapsed, baseline=None):
    tree = junit_tree(config, verdicts, elapsed, baseline)
    ET.indent(tree)
    atomic_write_text(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(tree.getroot(), "unicode") + "\n")
