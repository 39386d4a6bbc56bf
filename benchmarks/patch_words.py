"""Patch words of the second-order recipes, per patch rule and synonym list, read blind (docs/design/patch-rules.md).

Three steps, each a sub-command:

``pairs`` — on held-out MR test sentences (the rules were tuned on training sentences), the patch
pair each (rule, synonym list) chooses for the victim, with the sentences it skips for want of a pair
and the seconds the choice took. All chosen pairs are written, shuffled together and without their
rule, as items for readers (``patch_pairs_items.txt``; the key to them in ``patch_pairs_key.csv``)::

    python benchmarks/patch_words.py pairs --rules in-context authors-code paper --examples 100

``vulnerable`` — the vulnerable examples a run of ``benchmarks/second_order.py`` reported (its
``*_examples.csv``), each read as the pair (x̃0, x̃0 ⊕ p): items and key the same way::

    python benchmarks/patch_words.py vulnerable --examples-csv benchmarks/results/patch_rules_attack_examples.csv

``swords`` — each rule read as a classifier of the swaps of a SWORDS file (human judgements of word
swaps in context): how many it keeps, their precision (acceptable: more than half the judges said yes),
its recall of the acceptable swaps and the share of targets with an acceptable swap kept::

    python benchmarks/patch_words.py swords swords-v1.1_dev.json.gz --rules judge judge@0.5 in-context paper

``score`` — readers' verdicts (CSV ``id,keep``, one file per reader) joined with a key: kept / total
per rule (and victim, for vulnerable examples), per reader and for all readers agreeing::

    python benchmarks/patch_words.py score --key benchmarks/results/patch_pairs_key.csv --verdicts A.csv B.csv

An item shows the sentence with the word marked and the same sentence with the swap marked:

    #17
    A: you have to dig [[pretty]] deep
    B: you have to dig [[rather]] deep

Readers answer "does the new word say what the old word says here?" (1 / 0) without knowing which
rule chose the pair; ``benchmarks/patch_words_reader.md`` is the instruction they were given.
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
RULES = ["in-context", "authors-code", "paper"]


def item_text(k, text, index, new_word):
    """One reader item: the sentence with word ``index`` marked, and with ``new_word`` there, marked."""
    from textattack.shared import AttackedText

    from textattack_secondorder.shared.text import match_case

    at = AttackedText(text)
    old = at.words[index]
    a = at.replace_word_at_index(index, f"[[{old}]]").text
    b = at.replace_word_at_index(index, f"[[{match_case(new_word, old)}]]").text
    return f"#{k}\nA: {a}\nB: {b}\n"


def write_items(rows, out_dir, stem, seed):
    """Shuffle ``rows`` (dicts with text, index, p2) into ``{stem}_items.txt`` and ``{stem}_key.csv``."""
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    key = pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    key.insert(0, "id", range(len(key)))
    items = [item_text(r.id, r.text, int(r.index), r.p2) for r in key.itertuples()]
    atomic_write_text(out_dir / f"{stem}_items.txt", "\n".join(items))
    atomic_write_text(out_dir / f"{stem}_key.csv", key.to_csv(index=False))
    print(f"{len(key)} items: {out_dir / (stem + '_items.txt')}, key {out_dir / (stem + '_key.csv')}")
    return key


def cmd_pairs(args):
    from textattack.shared import AttackedText

    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.goal_functions.patch_rules import build_patch_rule
    from textattack_secondorder.goal_functions.patch_words import PatchWordSelector
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.resources import load_word_proposer
    from textattack_secondorder.resources.synonyms import SynonymList
    from textattack_secondorder.shared.files import atomic_write_text

    test = random.Random(args.seed + 1).sample(load_mr(args.split), args.examples)
    model = load_victim(args.victim)
    masked_lm = load_word_proposer(args.masked_lm)
    summary, pairs = {}, []
    for label, path in (s.split("=", 1) for s in args.synonyms):
        synonyms = SynonymList(path or None)
        for rule in args.rules:
            name, _, drop = rule.partition("@")  # in-context@4: another causal-LM drop, @none: no causal-LM check
            kw = {"lm_drop": None if drop == "none" else float(drop)} if drop else {}
            selector = PatchWordSelector(model, synonyms, rule=build_patch_rule(name, masked_lm=masked_lm, **kw))
            skipped, t0 = 0, time.perf_counter()
            for i, (text, _) in enumerate(test):
                pair, _ = selector.select(AttackedText(text))
                if pair is None:
                    skipped += 1
                    continue
                pairs.append(
                    {"sentence": i, "rule": rule, "list": label, "text": text, "index": pair.index}
                    | {"p1": pair.p1, "p2": pair.p2, "score": round(pair.score, 4)}
                )
            name = rule if len(args.synonyms) == 1 else f"{rule} / {label}"
            summary[name] = {
                "rule": rule,
                "list": label,
                "sentences": len(test),
                "skipped_no_pair": skipped,
                "seconds_per_sentence": round((time.perf_counter() - t0) / len(test), 4),
            }
            print(name, summary[name], flush=True)
    out_dir = Path(args.out_dir)
    meta = {"victim": args.victim, "examples": args.examples, "seed": args.seed, "split": args.split, "rules": summary}
    atomic_write_text(out_dir / f"{args.stem}.json", json.dumps(meta, indent=2) + "\n")
    write_items(pairs, out_dir, args.stem, args.seed)


def cmd_vulnerable(args):
    import pandas as pd

    rows = pd.concat(
        [pd.read_csv(p, keep_default_na=False, na_values={"patch_index": [""]}) for p in args.examples_csv],
        ignore_index=True,
    )
    rows = rows[(rows.result == "Successful") & rows.recipe.str.startswith(tuple(args.recipes))]
    if args.per_group:  # a random sample of each (victim, recipe)'s vulnerable examples
        rows = rows.sample(frac=1.0, random_state=args.seed).groupby(["victim", "recipe"]).head(args.per_group)
    vulnerable = pd.DataFrame(
        [
            {"victim": r.victim, "recipe": r.recipe, "example": r.example, "text": r.perturbed}
            | {"index": int(r.patch_index), "p1": r.patch_p1, "p2": r.patch_p2, "perturbed_words": r.perturbed_words}
            for r in rows.itertuples()
        ]
    )
    # the same pair in the same sentence (found by several recipes) is one item; the key has a row for each finding
    same = ["text", "index", "p2"]
    key = write_items(vulnerable.drop_duplicates(same).to_dict("records"), Path(args.out_dir), args.stem, args.seed)
    if len(key) < len(vulnerable):
        from textattack_secondorder.shared.files import atomic_write_text

        full = vulnerable.merge(key[["id", *same]], on=same)[["id", *vulnerable.columns]].sort_values("id")
        atomic_write_text(Path(args.out_dir) / f"{args.stem}_key.csv", full.to_csv(index=False))


def cmd_swords(args):
    """Each rule read as a classifier of SWORDS swaps: kept, precision, recall, coverage
    (docs/design/patch-rules.md)."""
    import numpy as np
    from textattack.shared import AttackedText

    from textattack_secondorder.datasets.swords import swords_swaps
    from textattack_secondorder.goal_functions.patch_rules import build_patch_rule
    from textattack_secondorder.resources import load_word_proposer
    from textattack_secondorder.shared.files import atomic_write_text
    from textattack_secondorder.shared.text import swap_words_at

    swaps = swords_swaps(args.path)
    targets = swaps.target_id.drop_duplicates().tolist()[args.part :: args.every][: args.targets]
    swaps = swaps[swaps.target_id.isin(targets)]
    masked_lm = load_word_proposer("distilbert-onnx")
    rules = {}
    for rule in args.rules:
        name, _, value = rule.partition("@")  # judge@0.4: another threshold; in-context@4: another causal-LM drop
        kw = {}
        if value and name == "judge":
            kw["judge_threshold"] = float(value)
        elif value:
            kw["lm_drop"] = None if value == "none" else float(value)
        rules[rule] = build_patch_rule(name, masked_lm=masked_lm, **kw)
    kept = {rule: [] for rule in rules}
    seconds = dict.fromkeys(rules, 0.0)
    for n, tid in enumerate(targets):
        group = swaps[swaps.target_id == tid]
        x = AttackedText(group.text.iloc[0])
        texts = [swap_words_at(x, int(group["index"].iloc[0]), [p2])[0] for p2 in group.p2]
        for rule, r in rules.items():
            t0 = time.perf_counter()
            ids = {id(t) for t in r.kept(x, texts)[0]}
            seconds[rule] += time.perf_counter() - t0
            kept[rule] += [id(t) in ids for t in texts]
        print(f"{n + 1}/{len(targets)} targets", end="\r", flush=True)
    acceptable = swaps.acceptable.to_numpy(bool)
    table = {}
    for rule, flags in kept.items():
        flags = np.asarray(flags, bool)
        covered = swaps.assign(k=flags & acceptable).groupby("target_id").k.any()
        table[rule] = {
            "kept": int(flags.sum()),
            "precision": round(float(acceptable[flags].mean()), 3) if flags.any() else None,
            "recall": round(float(flags[acceptable].mean()), 3),
            "targets_with_an_acceptable_kept": round(float(covered.mean()), 3),
            "seconds_per_swap": round(seconds[rule] / len(flags), 4),
        }
        print(rule, table[rule], flush=True)
    meta = {"file": str(args.path), "targets": len(targets), "swaps": len(swaps), "acceptable": int(acceptable.sum())}
    atomic_write_text(Path(args.out), json.dumps({**meta, "rules": table}, indent=2) + "\n")


def cmd_score(args):
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    key = pd.read_csv(args.key, keep_default_na=False)
    readers = []
    for n, path in enumerate(args.verdicts):
        v = pd.read_csv(path)
        if v.id.duplicated().any() or set(v.id) != set(key.id):
            raise SystemExit(f"{path}: its ids are not the key's ({len(v)} rows for {key.id.nunique()} items)")
        key = key.merge(v.rename(columns={"keep": f"reader_{n + 1}"}), on="id")
        readers.append(f"reader_{n + 1}")
    key["all_readers"] = key[readers].min(axis=1)
    group = [c for c in ("victim", "recipe", "rule", "list") if c in key]
    table = []
    for name, g in key.groupby(group):
        row = dict(zip(group, name if isinstance(name, tuple) else (name,)))
        row["total"] = len(g)
        for r in readers + ["all_readers"]:
            row[f"kept_{r}"] = int(g[r].sum())
            row[f"pct_{r}"] = round(100.0 * g[r].mean(), 1)
        table.append(row)
    df = pd.DataFrame(table)
    print(df.to_string(index=False))
    out = Path(args.out)
    items = key.drop_duplicates("id")
    agree = round(100.0 * (items[readers].nunique(axis=1) == 1).mean(), 1) if len(readers) > 1 else None
    atomic_write_text(
        out,
        json.dumps(
            {"key": str(args.key), "verdicts": args.verdicts, "reader_agreement_pct": agree, "table": table}, indent=2
        )
        + "\n",
    )
    atomic_write_text(out.with_suffix(".md"), df.to_markdown(index=False) + "\n")
    atomic_write_text(out.with_name(out.stem + "_judged.csv"), key.to_csv(index=False))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pairs", help="the pair each rule chooses on held-out sentences, as reader items")
    p.add_argument("--victim", default="mr-cnn")
    p.add_argument(
        "--rules", nargs="+", default=RULES, help="patch rules; in-context@D: causal-LM drop D (@none: no such check)"
    )
    p.add_argument("--synonyms", nargs="+", default=["packaged="], help="LABEL=PATH (empty PATH: the slot default)")
    p.add_argument("--masked-lm", default=None, help="masked-LM slot value the rules score with")
    p.add_argument("--examples", type=int, default=100)
    p.add_argument("--split", default="test", choices=["train", "test"], help="MR split the sentences are drawn from")
    p.add_argument("--stem", default="patch_pairs", help="file names of the results")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out-dir", default=str(RESULTS))
    p.set_defaults(func=cmd_pairs)
    v = sub.add_parser("vulnerable", help="the vulnerable examples of a second_order.py run, as reader items")
    v.add_argument("--examples-csv", nargs="+", required=True, help="benchmarks/second_order.py *_examples.csv")
    v.add_argument("--recipes", nargs="+", default=["so-"], help="recipe name prefixes to read (default so-*)")
    v.add_argument("--per-group", type=int, default=None, help="read at most N per (victim, recipe), sampled")
    v.add_argument("--stem", default="vulnerable_pairs")
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--out-dir", default=str(RESULTS))
    v.set_defaults(func=cmd_vulnerable)
    w = sub.add_parser("swords", help="each rule as a classifier of SWORDS swaps: precision, recall, coverage")
    w.add_argument("path", help="a SWORDS file (swords-v1.1_dev.json.gz or _test)")
    w.add_argument("--rules", nargs="+", default=["judge", "in-context", "paper"], help="judge@T: threshold T")
    w.add_argument("--targets", type=int, default=None, help="at most N targets")
    w.add_argument("--every", type=int, default=1, help="every N-th target only ...")
    w.add_argument("--part", type=int, default=0, help="... starting at this one")
    w.add_argument("--threads", type=int, default=None)
    w.add_argument("--out", default=str(RESULTS / "patch_words_swords.json"))
    w.set_defaults(func=cmd_swords)
    s = sub.add_parser("score", help="readers' verdicts joined with a key: kept / total per rule")
    s.add_argument("--key", required=True)
    s.add_argument("--verdicts", nargs="+", required=True, help="one CSV (id,keep) per reader")
    s.add_argument("--out", required=True, help="JSON to write (a .md table and the judged key beside it)")
    s.set_defaults(func=cmd_score)
    args = ap.parse_args()
    if getattr(args, "threads", None):
        import torch

        torch.set_num_threads(args.threads)
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
