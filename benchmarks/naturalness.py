"""x̃0 read blind beside unchanged originals: could a reviewer have written them? (docs/design/search.md)

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

``believable`` — what a reader gets from the attack: per (victim, recipe) the vulnerable examples per 100 sentences,
the share of x̃0 readers accept (those that change a word), the share of patch swaps they keep (the same runs' pairs
read blind with ``benchmarks/patch_words.py vulnerable`` / ``score``), and the **believable findings per 100
sentences** — findings whose x̃0 every reader accepted and whose swap every reader kept (an x̃0 that is x0 itself is a
real sentence, counted in and also apart: a first-order finding)::

    python benchmarks/naturalness.py believable --examples-csv R/run_examples.csv --x0-judged R/read_judged.csv \\
        --pairs-judged R/pairs_judged.csv --runs-json R/run.json --out R/believable.json

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
    from textattack_secondorder.evaluation.review import shuffle_apart

    pairs = {frozenset(g.text) for _, g in key.groupby(["victim", "recipe", "example"]) if g.text.nunique() == 2}
    return shuffle_apart(list(dict.fromkeys(key.text)), pairs, seed, tries)


def write_items(key, texts, out_dir, stem):
    """``{stem}_items.txt`` (``#id`` then the text, in the order of ``texts``) and ``{stem}_key.csv`` (``key`` with
    each row's item id first); returns that key."""
    from textattack_secondorder.evaluation.review import text_items
    from textattack_secondorder.shared.files import atomic_write_text

    ids = {t: n for n, t in enumerate(texts)}
    key.insert(0, "id", key.text.map(ids))
    key = key.sort_values(["id", "group"]).reset_index(drop=True)
    atomic_write_text(out_dir / f"{stem}_items.txt", text_items(key))
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


def cmd_believable(args):
    """Believable findings per 100 sentences per (victim, recipe): a success counts when readers accept its x̃0 (all
    readers; an x̃0 that is x0 itself counts as accepted and is counted apart, a first-order finding) and keep its
    patch swap (all readers, ``benchmarks/patch_words.py score``)."""
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    runs = pd.concat([pd.read_csv(p, keep_default_na=False) for p in args.examples_csv], ignore_index=True)
    runs = runs[runs.recipe.str.startswith(tuple(args.recipes))]
    x0 = pd.read_csv(args.x0_judged, keep_default_na=False)
    accepted = dict(zip(x0[x0.group == "vulnerable"].text, x0[x0.group == "vulnerable"].all_readers))
    pairs = pd.read_csv(args.pairs_judged, keep_default_na=False)
    kept = {(t, int(i), p): k for t, i, p, k in zip(pairs.text, pairs["index"], pairs.p2, pairs.all_readers)}
    ratios = {}
    for path in args.runs_json or []:
        for r in json.loads(Path(path).read_text())["runs"]:
            ratios[r["victim"], r["recipe"]] = r.get("ppl_ratio")
    table = []
    for (victim, recipe), g in runs.groupby(["victim", "recipe"], sort=False):
        succ = g[g.result == "Successful"]
        first = succ[succ.perturbed == succ.original]
        second = succ[succ.perturbed != succ.original]
        x0_ok = [accepted.get(t) for t in second.perturbed]
        pair_ok = [kept.get((t, int(float(i)), p)) for t, i, p in zip(succ.perturbed, succ.patch_index, succ.patch_p2)]
        if any(v is None for v in x0_ok + pair_ok):
            raise SystemExit(f"{victim} / {recipe}: some findings were not read (x̃0 or pair missing from the reads)")
        pair_of = dict(zip(succ.index, pair_ok))
        believable_second = sum(int(a) * int(pair_of[i]) for i, a in zip(second.index, x0_ok))
        believable_first = sum(int(pair_of[i]) for i in first.index)
        n = len(g)
        table.append(
            {
                "victim": victim,
                "recipe": recipe,
                "sentences": n,
                "attacked": int((g.result != "Skipped").sum()),
                "vulnerable_per_100": round(100.0 * len(succ) / n, 1),
                "first_order": len(first),
                "x0_accepted_pct": round(100.0 * sum(map(int, x0_ok)) / len(second), 1) if len(second) else None,
                "pairs_kept_pct": round(100.0 * sum(map(int, pair_ok)) / len(succ), 1) if len(succ) else None,
                "believable_per_100": round(100.0 * (believable_second + believable_first) / n, 1),
                "believable_second_order_per_100": round(100.0 * believable_second / n, 1),
                "ppl_ratio": ratios.get((victim, recipe)),
            }
        )
    df = pd.DataFrame(table)
    print(df.to_string(index=False))
    doc = {
        "examples": args.examples_csv,
        "x0_judged": args.x0_judged,
        "pairs_judged": args.pairs_judged,
        "table": table,
    }
    atomic_write_text(Path(args.out), json.dumps(doc, indent=2) + "\n")


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
    b = sub.add_parser(
        "believable", help="believable findings per 100 sentences: x̃0 accepted and pair kept by all readers"
    )
    b.add_argument("--examples-csv", nargs="+", required=True, help="benchmarks/second_order.py *_examples.csv")
    b.add_argument("--recipes", nargs="+", default=["so-"], help="recipe name prefixes (default so-*)")
    b.add_argument("--x0-judged", required=True, help="this script's score output, *_judged.csv")
    b.add_argument("--pairs-judged", required=True, help="benchmarks/patch_words.py score's *_judged.csv")
    b.add_argument("--runs-json", nargs="*", help="the runs' second_order.json, for their median perplexity ratio")
    b.add_argument("--out", required=True)
    b.set_defaults(func=cmd_believable)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
