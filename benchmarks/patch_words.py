"""Patch words of the second-order recipes per synonym list (docs/methods.md §1.2, §5.5).

For each synonym list given with ``--synonyms LABEL=PATH`` (``packaged`` = the slot's
offline default) and the same MR test sentences: how many sentences so-beam / so-enum
skip for want of a patch word, and the patch pair (p1 -> p2) the recipe's rule picks
for the victim on each other sentence. The pairs of all lists are also written shuffled
and without their list to ``patch_words_blind.csv`` (key in ``patch_words_key.csv``) for
a blind read: does the swap keep the label of the sentence?

    python benchmarks/patch_words.py --synonyms packaged= previous=OLD.json

Writes benchmarks/results/patch_words.json and the two CSV files.
"""

import argparse
import json
import random
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victim", default="mr-cnn")
    ap.add_argument("--synonyms", nargs="+", default=["packaged="])
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(RESULTS / "patch_words.json"))
    args = ap.parse_args()
    import pandas as pd
    from textattack.shared import AttackedText

    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.goal_functions.patch_words import PatchWordSelector
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.resources.synonyms import SynonymList
    from textattack_secondorder.shared.files import atomic_write_text

    test = random.Random(args.seed + 1).sample(load_mr("test"), args.examples)
    model = load_victim(args.victim)
    summary, pairs = {}, []
    for label, path in (s.split("=", 1) for s in args.synonyms):
        selector = PatchWordSelector(model, SynonymList(path or None))
        skipped = 0
        for i, (text, _) in enumerate(test):
            pair, reason = selector.select(AttackedText(text))
            if pair is None:
                skipped += 1
            else:
                pairs.append({"sentence": i, "list": label, "text": text, "p1": pair.p1, "p2": pair.p2})
        summary[label] = {"sentences": len(test), "skipped_no_patch_word": skipped}
        print(label, summary[label], flush=True)
    out = Path(args.out)
    atomic_write_text(out, json.dumps({"victim": args.victim, "lists": summary}, indent=2) + "\n")
    rows = pd.DataFrame(pairs).sample(frac=1.0, random_state=args.seed).reset_index(drop=True)
    rows.insert(0, "id", range(len(rows)))
    atomic_write_text(out.with_name("patch_words_key.csv"), rows.to_csv(index=False))
    atomic_write_text(out.with_name("patch_words_blind.csv"), rows[["id", "text", "p1", "p2"]].to_csv(index=False))


if __name__ == "__main__":
    sys.exit(main())
