"""Does an SP-Attack success keep the sentence's label? Signals, blind reads and ASR (docs/design/single-word.md).

Four steps, each a sub-command:

``run`` — attack sentences of MR with one recipe on one victim and keep what a label rule needs. For
``sp-attack`` every misclassified candidate the search found (up to k = 50 per sentence, the paper's pool and
search, no label rule) is a row of ``{stem}_{victim}_sp-attack_successes.csv`` with its cosine, perplexity
ratio, joint score (Eq. 4) and the candidate signals of a label rule: the training data's label lean of the two
words and its shift (``datasets/label_words.py``), a negator put in or taken out, the Penn tag of the word before
and after, WordNet antonymy (direct, or through the head of an adjective cluster), a label probe on the sentence
encoder (logistic regression on all-MiniLM-L6-v2 vectors of the training sentences not being attacked: how far
the swap moves its log-odds of the sentence's label), the patch judge's P(people accept w' for w here) and its
masked-LM / causal-LM signals. For the baselines (``textfooler-offline``, ``bae-offline``) each sentence's result
is a row of ``..._examples.csv``, with the same signals for a one-word success. Resumable (per sentence)::

    python benchmarks/label_rule.py run --victim mr-cnn --split train --start 2000 --count 100 --stem train

``items`` — the texts readers judge: per attacked sentence the success each named rule would report (simulated
on the recorded successes: among those with cosine > 0.8 that the rule keeps, the highest joint score; several
rules picking the same text give one item), or the baselines' successes, each beside its unchanged original,
shuffled together without labels (``{stem}_items.txt``); the key (``{stem}_key.csv``) says which item is which::

    python benchmarks/label_rule.py items --stem label_read_train \\
        --successes benchmarks/results/label_rule_train_mr-cnn_sp-attack_successes.csv

``score`` — readers' verdicts (CSV ``id,sentiment`` with ``positive``, ``negative`` or ``unsure``, one file per
reader; ``benchmarks/label_rule_reader.md`` is their instruction) joined with the key: per system the share of
changed sentences that still get the original's gold label, and the share that get the label the same reader gave
the original (the paper's Table 4 question: does the change keep the original's label? the readers themselves
give MR's gold label to only some of the originals), per reader and averaged over readers, the readers' accuracy
on the unchanged originals beside it, and for each signal of the read changed items how well it tells kept from
lost (AUC)::

    python benchmarks/label_rule.py score --key benchmarks/results/label_read_train_key.csv \\
        --verdicts A.csv B.csv --out benchmarks/results/label_read_train_read.json

``table`` — ASR and ASR1 of the recorded runs (sp-attack as run under its rule, ASR1 = ASR; baselines: ASR and
ASR1, ASR1 counting a one-word success only when the rule keeps it), seconds per attacked sentence, the read's
label kept (``--read``: score's JSON) and the paper's figures, one row per victim, attack and rule::

    python benchmarks/label_rule.py table --examples benchmarks/results/label_rule_test-*_examples.csv \\
        --read benchmarks/results/label_read_test_read.json --out benchmarks/results/label_rule_test_table.json
"""

import argparse
import json
import sys
import time
from pathlib import Path

from label_read import cmd_from_comparison, cmd_items, cmd_score, cmd_table
from label_signals import (
    CHEAP_RULES,
    RESULTS,
    RULES,
    Signals,
    cached_probe,
    mr_synonym_lean,
    pick,
    probe_path,
    vader_lexicon,
    wordnet_antonyms,
)


def add_columns(paths, what, columns):
    """Adds signals to run CSVs after the run: ``columns(df, ok)`` sets them on the rows of each CSV, ``ok``
    marking the rows with a one-word swap (the others get blanks); a CSV without swaps is left as it is."""
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    for path in paths:
        df = pd.read_csv(path, keep_default_na=False)
        if "old" not in df.columns:
            continue
        ok = df.old.astype(str) != ""
        columns(df, ok)
        atomic_write_text(Path(path), df.to_csv(index=False))
        print(f"{path}: {what} added to {int(ok.sum())} rows")


def add_lexicon(args):
    """Adds ``lex_old`` / ``lex_new`` (VADER valence of each word, 0 when it has none) and ``lex_shift``
    (``|lex_new − lex_old|``) to run CSVs (a signal of words the lexicon knows; computed after the run)."""
    lexicon = vader_lexicon()

    def columns(df, ok):
        df["lex_old"] = [lexicon.get(w, 0.0) if k else "" for w, k in zip(df.old.astype(str), ok)]
        df["lex_new"] = [lexicon.get(w, 0.0) if k else "" for w, k in zip(df.new.astype(str), ok)]
        df["lex_shift"] = [abs(a - b) if k else "" for a, b, k in zip(df.lex_new, df.lex_old, ok)]

    add_columns(args.csv, "lexicon valence", columns)


def add_synonym_lean(args):
    """Adds ``lean_syn_shift`` (the shift of the label lean pooled with each word's synonyms, rule
    ``'lean-synonyms'``) to run CSVs recorded before the signal was."""
    pooled = mr_synonym_lean()

    def columns(df, ok):
        df["lean_syn_shift"] = [pooled.shift(o, n) if k else "" for o, n, k in zip(df.old, df.new, ok)]

    add_columns(args.csv, "synonym-pooled lean shift", columns)


# ---------------------------------------------------------------------------------------------- run
def recorded(path):
    """The rows a run already wrote to ``path`` (none when it is missing, or empty: a baseline has no successes)."""
    import pandas as pd

    if not path.exists() or not path.read_text().strip():
        return []
    return pd.read_csv(path, keep_default_na=False).to_dict("records")


def cmd_run(args):
    import pandas as pd
    from textattack.attack_results import FailedAttackResult, SkippedAttackResult, SuccessfulAttackResult

    import textattack_secondorder
    from textattack_secondorder.attack_recipes.build import attack_recipes
    from textattack_secondorder.datasets.label_words import LabelLean
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.goal_functions.patch_rules import build_patch_rule
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.resources import load_pos_tagger, load_sentence_encoder
    from textattack_secondorder.shared.files import atomic_write_text

    textattack_secondorder.register()
    rows = load_mr(args.split)
    todo = list(enumerate(rows))[args.start : args.start + args.count]
    train = load_mr("train")
    held = set(range(args.start, args.start + args.count)) if args.split == "train" else set()
    stem = RESULTS / f"label_rule_{args.stem}_{args.victim}_{args.recipe}"
    ex_path, succ_path, meta_path = (Path(f"{stem}_{k}") for k in ("examples.csv", "successes.csv", "run.json"))
    examples, successes = recorded(ex_path), recorded(succ_path)
    done = {r["row"] for r in examples}
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"seconds": 0.0, "attacked_seconds": []}

    encoder = load_sentence_encoder("all-MiniLM-L6-v2")
    lean = LabelLean.from_examples(train, name="mr:train")
    probe_data = [ex for n, ex in enumerate(train) if n not in held]
    print(f"fitting the label probe on {len(probe_data)} training sentences ...", flush=True)
    probe = cached_probe(encoder, probe_data, probe_path(args.split, args.start, args.count))
    judge_rule = build_patch_rule("judge")
    judge = judge_rule.constraints[-1]
    signals = Signals(lean, probe, encoder, judge, load_pos_tagger(), wordnet_antonyms(), mr_synonym_lean())

    model = load_victim(args.victim, train_if_missing=False)
    params = {}
    if args.recipe == "sp-attack":
        params = {"label_rule": args.label_rule, "kappa_examples": args.kappa_examples}
        if args.kappa:  # a saved κ (e.g. a transformer's, from `textattack-so flip-capability`)
            params["kappa"] = args.kappa
        meta["kappa"] = args.kappa or f"mr:train[:{args.kappa_examples}], EUBA m = 512 (the recipe's, cached)"
    attack = attack_recipes()[args.recipe].build(model, **params)
    trace = []
    if args.recipe == "sp-attack":
        search = attack.search_method
        joint = search.joint_scores

        def recording(original, candidates):
            if args.no_perplexity:  # cosine only: no joint score, no pick (the successes are sampled for reads)
                import numpy as np

                emb = np.asarray(search.encoder().encode([original] + candidates), dtype=np.float64)
                emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-12
                cos = emb[1:] @ emb[0]
                ratio = np.full(len(candidates), np.nan)
                score = cos.copy()
            else:
                cos, ratio, score = joint(original, candidates)
            trace.append((candidates, cos, ratio, score))
            return cos, ratio, score

        search.joint_scores = recording

    def save():
        meta.update(
            {
                "perplexity": not args.no_perplexity,
                "label_rule": args.label_rule if args.recipe == "sp-attack" else None,
                "victim": args.victim,
                "recipe": args.recipe,
                "split": args.split,
                "start": args.start,
                "count": args.count,
            }
        )
        meta["probe_train_accuracy"] = probe["train_accuracy"]
        atomic_write_text(ex_path, pd.DataFrame(examples).to_csv(index=False))
        atomic_write_text(succ_path, pd.DataFrame(successes).to_csv(index=False))
        atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")

    from textattack.shared import AttackedText

    for n, (text, label) in todo:
        if n in done:
            continue
        trace.clear()
        t0 = time.perf_counter()
        result = attack.attack(text, label)
        seconds = time.perf_counter() - t0
        kind = {SuccessfulAttackResult: "Successful", FailedAttackResult: "Failed", SkippedAttackResult: "Skipped"}
        status = next((v for k, v in kind.items() if isinstance(result, k)), type(result).__name__)
        orig = result.original_result.attacked_text
        pert = result.perturbed_result.attacked_text
        changed = len(orig.all_words_diff(pert)) if status == "Successful" else 0
        ex = {
            "row": n,
            "label": label,
            "original": text,
            "perturbed": pert.text,
            "result": status,
            "words_changed": changed,
            "queries": result.perturbed_result.num_queries,
            "seconds": round(seconds, 3),
        }
        if status != "Skipped":
            meta["attacked_seconds"].append(seconds)
        if args.recipe == "sp-attack" and trace:
            candidates, cos, ratio, score = trace[-1]
            texts = [AttackedText(c) for c in candidates]
            for t in texts:
                t.attack_attrs["newly_modified_indices"] = orig.all_words_diff(t)
            mine = [
                {
                    "row": n,
                    "label": label,
                    "original": text,
                    "perturbed": candidates[k],
                    "picked": candidates[k] == pert.text and status == "Successful",
                    "cos": float(cos[k]),
                    "ppl_ratio": float(ratio[k]),
                    "score": float(score[k]),
                    **sig,
                }
                for k, sig in enumerate(signals.rows(orig, label, texts))
            ]
            # the judge (costly) for the swap each rule would report
            picked = sorted({k for rule in CHEAP_RULES for k in [pick(mine, rule)] if k is not None})
            picked = [] if args.no_perplexity else picked
            for k, extra in zip(picked, signals.judged(orig, [texts[k] for k in picked])):
                mine[k].update(extra)
            successes.extend(mine)
        elif status == "Successful" and changed == 1:
            pert.attack_attrs["newly_modified_indices"] = orig.all_words_diff(pert)
            ex.update(signals.rows(orig, label, [pert])[0])
            if not args.no_perplexity:
                ex.update(signals.judged(orig, [pert])[0])
        examples.append(ex)
        meta["seconds"] += seconds
        save()
        print(json.dumps({k: ex[k] for k in ("row", "result", "words_changed", "seconds")}), flush=True)
    save()


# ---------------------------------------------------------------------------------------------- cost
def cmd_cost(args):
    """SP-Attack's seconds per attacked example under each label rule, on the same sentences, alternating the order
    of the rules from one sentence to the next (the machine's load shifts over a run). Saved after each sentence."""
    import os

    import pandas as pd
    from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult

    import textattack_secondorder
    from textattack_secondorder.attack_recipes import SPAttack
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.shared.files import atomic_write_text

    textattack_secondorder.register()
    model = load_victim(args.victim, train_if_missing=False)
    kappa = {"kappa": args.kappa} if args.kappa else {"kappa_examples": args.kappa_examples}
    attacks = {r: SPAttack.build(model, label_rule=r, **kappa) for r in args.rules}
    rows = []
    for n, (text, label) in enumerate(load_mr(args.split)[args.start : args.start + args.count], args.start):
        order = args.rules if n % 2 == 0 else args.rules[::-1]
        for rule in order:
            t0 = time.perf_counter()
            result = attacks[rule].attack(text, label)
            seconds = time.perf_counter() - t0
            if isinstance(result, SkippedAttackResult):
                continue
            rows.append(
                {
                    "row": n,
                    "rule": rule,
                    "success": isinstance(result, SuccessfulAttackResult),
                    "queries": result.perturbed_result.num_queries,
                    "seconds": round(seconds, 3),
                    "perturbed": result.perturbed_result.attacked_text.text,
                }
            )
            print(json.dumps(rows[-1]), flush=True)
        if not rows:
            continue
        df = pd.DataFrame(rows)
        summary = df.groupby("rule").agg(attacked=("row", "size"), ASR=("success", "mean"), s=("seconds", "mean"))
        summary["ASR"] = (100 * summary.ASR).round(1)
        doc = {
            "victim": args.victim,
            "sentences": f"{args.split}[{args.start}:{n + 1}]",
            "kappa": args.kappa or f"mr:train[:{args.kappa_examples}]",
            "loadavg": [round(x, 2) for x in os.getloadavg()],
            "summary": summary.reset_index().to_dict("records"),
            "rows": rows,
        }
        atomic_write_text(Path(args.out), json.dumps(doc, indent=2) + "\n")
    print(summary.to_string())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="attack MR sentences, keep every SP-Attack success with its signals")
    r.add_argument("--victim", default="mr-cnn")
    r.add_argument("--recipe", default="sp-attack", choices=["sp-attack", "textfooler-offline", "bae-offline"])
    r.add_argument("--split", default="train", choices=["train", "test"])
    r.add_argument("--start", type=int, default=2000)
    r.add_argument("--count", type=int, default=100)
    r.add_argument("--stem", default="train")
    r.add_argument("--kappa-examples", type=int, default=1000, help="κ from MR train[:N] (paper and recipe: 1000)")
    r.add_argument("--kappa", help="sp-attack: a saved κ (JSON/CSV of `textattack-so flip-capability`) instead")
    r.add_argument(
        "--no-perplexity",
        action="store_true",
        help="sp-attack: record the successes with their cosine only (no causal LM: no joint score, no pick, no "
        "judge); for reads of sampled successes (items --sampled)",
    )
    r.add_argument(
        "--label-rule",
        default="paper",
        help="sp-attack's own label rule during the run (default 'paper': every success of the paper's pool is "
        "recorded, and the candidate rules are simulated on them; 'lean': the recipe's rule, its real ASR)",
    )
    r.set_defaults(func=cmd_run)
    i = sub.add_parser("items", help="changed sentences and their originals, shuffled and unlabelled")
    i.add_argument("--successes", nargs="*", help="run's *_sp-attack_successes.csv (picks simulated per rule)")
    i.add_argument(
        "--examples",
        nargs="*",
        help="runs' *_examples.csv: their successes (a baseline's, or sp-attack's picks as run under its rule)",
    )
    i.add_argument("--sampled", nargs="*", help="runs' successes CSVs to sample successes from (cosine > 0.8)")
    i.add_argument("--sample", type=int, default=3, help="successes read per sentence of --sampled (default 3)")
    i.add_argument("--rules", nargs="+", default=list(RULES), choices=list(RULES))
    i.add_argument("--stem", default="label_read_train")
    i.add_argument("--seed", type=int, default=0)
    i.add_argument("--out-dir", default=str(RESULTS))
    i.set_defaults(func=cmd_items)
    s = sub.add_parser("score", help="readers' verdicts joined with the key: label kept per system")
    s.add_argument("--key", required=True)
    s.add_argument("--verdicts", nargs="+", required=True, help="one CSV (id,sentiment) per reader")
    s.add_argument("--successes", nargs="*", help="the runs' successes CSVs: AUC of each signal on the read items")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_score)
    t = sub.add_parser("table", help="ASR / ASR1 of recorded runs (and the read's label kept) beside the paper's")
    t.add_argument("--examples", nargs="+", required=True, help="the runs' *_examples.csv (sp-attack and baselines)")
    t.add_argument(
        "--rules", nargs="+", default=["paper", "lean1"], choices=list(RULES), help="baselines' ASR1 under each rule"
    )
    t.add_argument("--read", help="score's JSON of the read of these runs (label kept per attack)")
    t.add_argument(
        "--successes", nargs="*", help="sp-attack runs' *_successes.csv: its ASR under each of --rules, simulated"
    )
    t.add_argument("--out")
    t.set_defaults(func=cmd_table)
    x = sub.add_parser("lexicon", help="add VADER's valence of each swapped word to run CSVs (after the run)")
    x.add_argument("csv", nargs="+", help="a run's *_successes.csv or *_examples.csv")
    x.set_defaults(func=add_lexicon)
    y = sub.add_parser("synonym-lean", help="add the synonym-pooled label lean's shift to run CSVs (after the run)")
    y.add_argument("csv", nargs="+", help="a run's *_successes.csv or *_examples.csv")
    y.set_defaults(func=add_synonym_lean)
    c = sub.add_parser("cost", help="SP-Attack's seconds per attacked example under each rule, alternating")
    c.add_argument("--victim", default="mr-cnn")
    c.add_argument("--rules", nargs="+", default=["paper", "lean"])
    c.add_argument("--split", default="test", choices=["train", "test"])
    c.add_argument("--start", type=int, default=0)
    c.add_argument("--count", type=int, default=10)
    c.add_argument("--kappa-examples", type=int, default=1000)
    c.add_argument("--kappa", help="a saved κ instead (JSON/CSV of `textattack-so flip-capability`)")
    c.add_argument("--out", default=str(RESULTS / "label_rule_cost.json"))
    c.set_defaults(func=cmd_cost)
    f = sub.add_parser("from-comparison", help="a defend --compare cell's attacks as runs (items, table)")
    f.add_argument("--work", required=True, help="the cell's folder: OUT/work/<defense>[-seed<N>]")
    f.add_argument("--victim", default="mr-cnn")
    f.add_argument("--stem", default="cmp")
    f.add_argument("--dataset", default="mr")
    f.add_argument("--split", default="test")
    f.add_argument("--sp-attack-rule", default="lean", help="which SP-Attack measurement: its label rule")
    f.add_argument("--out-dir", default=str(RESULTS))
    f.set_defaults(func=cmd_from_comparison)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
