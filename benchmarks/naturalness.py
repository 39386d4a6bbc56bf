"""x̃0 read blind beside unchanged originals: could a reviewer have written them? (docs/methods.md §1.5)

Two steps, each a sub-command:

``items`` — the successful rows of one or more ``benchmarks/second_order.py`` runs (their
``*_examples.csv``): each row's vulnerable example x̃0 and, as the control, its unchanged original
sentence, all shuffled together without labels into ``{stem}_items.txt``; the key to them (which item is
which row's x̃0 or original, per victim and recipe) in ``{stem}_key.csv``. A text that occurs in several
rows (the same original attacked by two recipes) is one item. Rows whose x̃0 is the original itself
(0 words changed) are left out of both groups::

    python benchmarks/naturalness.py items --examples-csv benchmarks/results/second_order_examples.csv --per-group 30

``score`` — readers' verdicts (CSV ``id,natural``, 1 = a movie reviewer could plausibly have written this
sentence, one file per reader) joined with the key: the share accepted per group (x̃0 / original), victim
and recipe, per reader and by all readers, and x̃0's rate over the originals' of the same rows::

    python benchmarks/naturalness.py score --key benchmarks/results/naturalness_key.csv --verdicts A.csv B.csv \\
        --out benchmarks/results/naturalness_read.json

An item is one sentence (``#17`` then the sentence); ``benchmarks/naturalness_reader.md`` is the readers'
instruction.
"""

import argparse
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def shuffled_apart(key, seed, tries=200):
    """The key's distinct texts in a seeded random order in which no row's x̃0 stands next to its original
    (the first of ``tries`` shuffles that manages it; the last one tried otherwise)."""
    pairs = {frozenset(g.text) for _, g in key.groupby(["victim", "recipe", "example"]) if g.text.nunique() == 2}
    return shuffle_apart(list(dict.fromkeys(key.text)), pairs, seed, tries)


def shuffle_apart(texts, pairs, seed, tries=200):
    """``texts`` in a seeded random order in which no two texts of a pair in ``pairs`` (frozensets) stand side by
    side (the first of ``tries`` shuffles that manages it; the last one tried otherwise)."""
    import random

    texts = list(texts)
    rng = random.Random(seed)
    for _ in range(tries):
        rng.shuffle(texts)
        if not any(frozenset(ab) in pairs for ab in zip(texts, texts[1:])):
            break
    return texts


def write_items(key, texts, out_dir, stem):
    """``{stem}_items.txt`` (``#id`` then the text, in the order of ``texts``) and ``{stem}_key.csv`` (``key`` with
    each row's item id first); returns that key."""
    from textattack_secondorder.shared.files import atomic_write_text

    ids = {t: n for n, t in enumerate(texts)}
    key.insert(0, "id", key.text.map(ids))
    key = key.sort_values(["id", "group"]).reset_index(drop=True)
    atomic_write_text(out_dir / f"{stem}_items.txt", "\n".join(f"#{n}\n{t}\n" for n, t in enumerate(texts)))
    atomic_write_text(out_dir / f"{stem}_key.csv", key.to_csv(index=False))
    return key


def cmd_items(args):
    import pandas as pd

    rows = pd.concat([pd.read_csv(p, keep_default_na=False) for p in args.examples_csv], ignore_index=True)
    rows = rows[(rows.result == "Successful") & rows.recipe.str.startswith(tuple(args.recipes))]
    same = rows.perturbed == rows.original
    rows = rows[~same]
    if args.per_group:  # a random sample of each (victim, recipe)'s vulnerable examples
        rows = rows.sample(frac=1.0, random_state=args.seed).groupby(["victim", "recipe"]).head(args.per_group)
    key = []
    for r in rows.itertuples():
        for group, text in (("vulnerable", r.perturbed), ("original", r.original)):
            key.append({"group": group, "victim": r.victim, "recipe": r.recipe, "example": r.example, "text": text})
    key = pd.DataFrame(key)
    texts = shuffled_apart(key, args.seed)
    key = write_items(key, texts, Path(args.out_dir), args.stem)
    out_dir = Path(args.out_dir)
    print(
        f"{len(texts)} items ({(key.group == 'vulnerable').sum()} x̃0 rows, {(key.group == 'original').sum()} "
        f"original rows; {int(same.sum())} rows with x̃0 = x0 left out): {out_dir / (args.stem + '_items.txt')}, "
        f"key {out_dir / (args.stem + '_key.csv')}"
    )


def cmd_score(args):
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    key = pd.read_csv(args.key, keep_default_na=False)
    readers = []
    for n, path in enumerate(args.verdicts):
        v = pd.read_csv(path)
        if v.id.duplicated().any() or set(v.id) != set(key.id):
            raise SystemExit(f"{path}: its ids are not the key's ({len(v)} rows for {key.id.nunique()} items)")
        key = key.merge(v.rename(columns={"natural": f"reader_{n + 1}"}), on="id")
        readers.append(f"reader_{n + 1}")
    key["all_readers"] = key[readers].min(axis=1)
    table = []
    for (victim, recipe), g in key.groupby(["victim", "recipe"]):
        row = {"victim": victim, "recipe": recipe, "rows": int((g.group == "vulnerable").sum())}
        for r in readers + ["all_readers"]:
            for group in ("vulnerable", "original"):
                row[f"pct_{group}_{r}"] = round(100.0 * g[g.group == group][r].mean(), 1)
            orig = row[f"pct_original_{r}"]
            row[f"vulnerable_over_original_{r}"] = round(row[f"pct_vulnerable_{r}"] / orig, 3) if orig else None
        table.append(row)
    df = pd.DataFrame(table)
    print(df.to_string(index=False))
    items = key.drop_duplicates("id")
    agree = round(100.0 * (items[readers].nunique(axis=1) == 1).mean(), 1) if len(readers) > 1 else None
    out = Path(args.out)
    doc = {"key": str(args.key), "verdicts": args.verdicts, "reader_agreement_pct": agree, "table": table}
    atomic_write_text(out, json.dumps(doc, indent=2) + "\n")
    atomic_write_text(out.with_name(out.stem + "_judged.csv"), key.to_csv(index=False))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("items", help="x̃0 and their originals, shuffled and unlabelled, as reader items")
    i.add_argument("--examples-csv", nargs="+", required=True, help="benchmarks/second_order.py *_examples.csv")
    i.add_argument("--recipes", nargs="+", default=["so-"], help="recipe name prefixes to read (default so-*)")
    i.add_argument("--per-group", type=int, default=None, help="read at most N rows per (victim, recipe), sampled")
    i.add_argument("--stem", default="naturalness")
    i.add_argument("--seed", type=int, default=0)
    i.add_argument("--out-dir", default=str(RESULTS))
    i.set_defaults(func=cmd_items)
    s = sub.add_parser("score", help="readers' verdicts joined with the key: share accepted per group")
    s.add_argument("--key", required=True)
    s.add_argument("--verdicts", nargs="+", required=True, help="one CSV (id,natural) per reader")
    s.add_argument("--out", required=True, help="JSON to write (the judged key beside it)")
    s.set_defaults(func=cmd_score)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
