"""What the second-order findings of Table 2 look like on base and certified victims (docs/design/certified.md).

Reads the so-beam cells that ``benchmarks/table2.py`` wrote and, per victim and rules: how many attacked
sentences succeeded, how many patch pairs lie in the packaged synonym list (the set a certificate covers),
the median margin ``|p1 - p0|`` of the victim at the vulnerable example and after its patch, the median
queries of a success, where the failures stopped (queries), and for a certified victim how many of the
successes' test sentences and of their vulnerable examples x~0 are certified. Also the victim's margin on
all MR test sentences (how close to its boundary it keeps them).

    OMP_NUM_THREADS=1 python benchmarks/table2_findings.py --out benchmarks/results/table2_findings.json
"""

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
CELLS = {"cnn": RESULTS / "table2", "bow": RESULTS / "table2_bow", "lstm": RESULTS / "table2_lstm"}


def _margin(probs):
    p = json.loads(probs)
    return abs(p[1] - p[0])


def _median(values, digits=4):
    return round(statistics.median(values), digits) if values else None


def cell_findings(rows, synonyms):
    """The figures of one so-beam cell's CSV rows (module docstring)."""
    succ = [r for r in rows if r["result_type"] == "Successful"]
    failed = [r for r in rows if r["result_type"] == "Failed"]
    in_list = sum(r["patch_p2"] in synonyms.get(r["patch_p1"], ()) for r in succ)
    return {
        "attacked": len(succ) + len(failed),
        "successes": len(succ),
        "patch_pairs_in_synonym_list": in_list,
        "median_margin_vulnerable": _median([_margin(r["vulnerable_probs"]) for r in succ]),
        "median_margin_patched": _median([_margin(r["vulnerable_patched_probs"]) for r in succ]),
        "median_queries_success": _median([int(r["num_queries"]) for r in succ], 1),
        "failure_queries": sorted(int(r["num_queries"]) for r in failed),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(RESULTS / "table2_findings.json"))
    args = ap.parse_args()

    import torch

    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.models.ibp.certification import certify
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.resources.loaders import load_synonyms

    synonyms = load_synonyms()
    test = load_examples("mr", split="test", labelled=True)
    out = {}
    for arch, folder in CELLS.items():
        for name in (f"mr-{arch}", f"mr-{arch}-ibp"):
            wrapper = load_victim(name, device="cpu", train_if_missing=False)
            probs = torch.as_tensor(wrapper([t for t, _ in test])).softmax(1)
            margin = (probs[:, 1] - probs[:, 0]).abs()
            row = {
                "median_margin_test": round(margin.median().item(), 4),
                "share_test_margin_below_0.1": round((margin < 0.1).float().mean().item(), 3),
            }
            for rules in ("paper", "default"):
                path = folder / "cells" / f"{name}__so-beam__{rules}.csv"
                if not path.exists():
                    continue
                rows = list(csv.DictReader(open(path, encoding="utf-8")))
                found = cell_findings(rows, synonyms)
                succ = [r for r in rows if r["result_type"] == "Successful"]
                if name.endswith("-ibp") and succ:
                    originals = [(r["original_text"].replace("[[", "").replace("]]", ""), 0) for r in succ]
                    vulnerable = [(r["vulnerable_text"], 0) for r in succ]
                    for key, texts in (("successes_on_certified_x0", originals), ("vulnerable_certified", vulnerable)):
                        cert = certify(wrapper.model, wrapper.tokenizer, texts, progress=False)
                        found[key] = sum(e["certified"] for e in cert["examples"])
                row[rules] = found
            out[name] = row
            print(name, json.dumps(row), flush=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
