"""SP-Attack's label rule, read blind: the items, their score and the ASR table (docs/design/single-word.md).

The sub-commands ``items``, ``score`` and ``table`` of ``benchmarks/label_rule.py`` (their usage is there).
"""

import json
from pathlib import Path

from label_signals import SIMILARITY, keeps, read_run, system_of, victim_of

#: paper figures (Xu et al.) on MR: label kept by human annotators (Table 4: TextFooler, CLARE, SP-Attack; no BAE);
#: ASR and ASR1 of the vanilla BERT (Tables 1 and 9) and distilBERT (Table 10) classifiers; SP-Attack's ASR1 = ASR
PAPER = {
    "label_kept": {"textfooler": 69, "clare": 83, "sp-attack": 93},
    "BERT": {"sp-attack": (93.5, 93.5), "textfooler": (72.4, 35.6), "bae": (41.3, 27.5), "clare": (90.0, 59.6)},
    "distilBERT": {"sp-attack": (73.2, 73.2), "textfooler": (70.4, 35.5), "bae": (44.8, 31.4), "clare": (89.8, 63.9)},
}


# ---------------------------------------------------------------------------------------------- items
def shuffled_apart(key, seed):
    """The key's distinct texts in a seeded order in which no changed text stands next to its original."""
    from textattack_secondorder.evaluation.review import shuffle_apart

    pairs = {
        frozenset((a, b))
        for (_, g) in key.groupby(["victim", "example"])
        for a in g[g.group == "original"].text
        for b in g[g.group == "changed"].text
    }
    return shuffle_apart(dict.fromkeys(key.text), pairs, seed)


def sample_swaps(g, n, seed):
    """``n`` of one sentence's successes for a read: one that moves the label lean more than 1 nat, one that puts in or
    takes out a negator (when the sentence has them: they are a few of its successes, and what a rule would refuse),
    the rest at random."""
    g = g.sample(frac=1.0, random_state=seed)
    first = [g[g.lean_shift > 1.0].head(1), g[g.negation].head(1)]
    picked = g.loc[list(dict.fromkeys(i for f in first for i in f.index))].head(n)
    return g.loc[list(picked.index) + list(g.drop(picked.index).index[: n - len(picked)])]


def rule_picks(succ, rules):
    """``{(victim, row): {text: [rules]}}``: the success each rule reports for each sentence."""
    picks = {}
    for (victim, row), g in succ.groupby(["victim", "row"]):
        for rule in rules:
            kept = g[[keeps(rule, r) for _, r in g.iterrows()]]
            if len(kept):
                text = kept.loc[kept.score.idxmax(), "perturbed"]
                picks.setdefault((victim, row), {}).setdefault(text, []).append(rule)
    return picks


def cmd_items(args):
    import pandas as pd

    key = []
    for path in args.sampled or []:  # successes read one by one, sampled per sentence (a run without the joint score)
        succ = read_run(path)
        succ = succ[succ.cos > SIMILARITY]
        for (victim, row), g in succ.groupby(["victim", "row"]):
            o = g.iloc[0]
            key.append({"group": "original", "victim": victim, "system": "original", "example": row, **_lab(o.label)})
            key[-1]["text"] = o.original
            for text in sample_swaps(g, args.sample, args.seed).perturbed:
                key.append({"group": "changed", "victim": victim, "system": "sampled", "example": row, **_lab(o.label)})
                key[-1]["text"] = text
    for path in args.successes or []:
        succ = read_run(path)
        originals = succ.drop_duplicates(["victim", "row"]).set_index(["victim", "row"])
        for (victim, row), texts in rule_picks(succ, args.rules).items():
            o = originals.loc[(victim, row)]
            key.append({"group": "original", "victim": victim, "system": "original", "example": row, **_lab(o.label)})
            key[-1]["text"] = o.original
            for text, rules in texts.items():
                key.append(
                    {"group": "changed", "victim": victim, "system": "|".join(rules), "example": row, **_lab(o.label)}
                )
                key[-1]["text"] = text
    for path in args.examples or []:
        ex = pd.read_csv(path, keep_default_na=False)
        ex = ex[(ex.result == "Successful") & (ex.perturbed != ex.original)]
        victim, system = victim_of(path), system_of(path)
        for r in ex.itertuples():
            key.append({"group": "original", "victim": victim, "system": "original", "example": r.row, **_lab(r.label)})
            key[-1]["text"] = r.original
            key.append({"group": "changed", "victim": victim, "system": system, "example": r.row, **_lab(r.label)})
            key[-1]["text"] = r.perturbed
    key = pd.DataFrame(key).drop_duplicates(["group", "victim", "system", "example", "text"])
    read = set(zip(key[key.group == "original"].victim, key[key.group == "original"].example))
    orphans = [(v, e) for v, e in zip(key[key.group == "changed"].victim, key[key.group == "changed"].example)]
    orphans = [o for o in orphans if o not in read]
    if orphans:  # every changed sentence is read beside its original (score's second figure needs it)
        raise SystemExit(f"items: {len(orphans)} changed sentences without their original, e.g. {orphans[0]}")
    from naturalness import write_items

    out_dir = Path(args.out_dir)
    key = write_items(key, shuffled_apart(key, args.seed), out_dir, args.stem)
    counts = key[key.group == "changed"].system.value_counts().to_dict()
    print(
        f"{key.id.nunique()} items ({(key.group == 'changed').sum()} changed rows {counts}, "
        f"{(key.group == 'original').sum()} original rows): {out_dir / (args.stem + '_items.txt')}"
    )


def _lab(label):
    """The gold label as readers name it (MR: 1 = positive, 0 = negative)."""
    return {"label": "positive" if int(label) == 1 else "negative"}


# ---------------------------------------------------------------------------------------------- score
def auc(pos, neg):
    """P(a random kept item's value > a random lost one's) (ties count half)."""
    if not len(pos) or not len(neg):
        return None
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return round(wins / (len(pos) * len(neg)), 3)


def kept_columns(key, readers):
    """``key`` (one row per item and system, with each reader's verdict in a column named after the reader) with, per
    reader ``r`` and for the mean / all of them:

    * ``kept_{r}``: the reader gives the sentence MR's gold label (of a changed sentence: its original's gold label;
      of an original: the reader agrees with MR);
    * ``own_{r}``: of a changed sentence, the reader gives it the label the same reader gave its original (the
      paper's question: does the change keep the original's label?); blank (NaN) for the originals, where the
      reader found the original ``unsure`` (no label to keep) and where the original is not in the read.

    ``_mean`` is the share over the readers with a value, ``_all`` 1 when every such reader kept it."""
    import numpy as np

    key = key.copy()
    originals = key[key.group == "original"].drop_duplicates(["victim", "example"]).set_index(["victim", "example"])
    at = list(zip(key.victim, key.example))
    for r in readers:
        key[f"kept_{r}"] = (key[r] == key.label).astype(float)
        own = originals[r].reindex(at).to_numpy()  # the reader's label of each row's original (NaN: not read)
        labelled = np.isin(own, ["positive", "negative"]) & (key.group == "changed").to_numpy()
        key[f"own_{r}"] = np.where(labelled, (key[r].to_numpy() == own).astype(float), np.nan)
    for kind in ("kept", "own"):
        cols = key[[f"{kind}_{r}" for r in readers]]
        key[f"{kind}_mean"] = cols.mean(axis=1)
        key[f"{kind}_all"] = cols.min(axis=1)
    return key


def _pct(values):
    """100 × the mean of the values that are there (None when none is)."""
    values = values.dropna()
    return round(100.0 * values.mean(), 1) if len(values) else None


def cmd_score(args):
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    key = pd.read_csv(args.key, keep_default_na=False)
    readers = []
    for n, path in enumerate(args.verdicts):
        v = pd.read_csv(path, keep_default_na=False)
        v["sentiment"] = v.sentiment.str.strip().str.lower()
        bad = sorted(set(v.sentiment) - {"positive", "negative", "unsure"})
        if v.id.duplicated().any() or set(v.id) != set(key.id) or bad:
            raise SystemExit(f"{path}: ids are not the key's or unknown answers {bad} ({len(v)} rows)")
        key = key.merge(v.rename(columns={"sentiment": f"reader_{n + 1}"}), on="id")
        readers.append(f"reader_{n + 1}")
    key = kept_columns(key, readers)
    # one row per system: a text several rules picked counts for each of them
    rows = key.assign(system=key.system.str.split("|")).explode("system")
    table = []
    for (victim, system), g in rows.groupby(["victim", "system"]):
        row = {"victim": victim, "system": system, "items": len(g)}
        for r in readers + ["mean", "all"]:
            row[f"label_kept_pct_{r}"] = _pct(g[f"kept_{r}"])
        if system != "original":  # against each reader's own reading of the original
            row["items_own"] = int(g.own_mean.notna().sum())
            for r in readers + ["mean", "all"]:
                row[f"label_kept_own_pct_{r}"] = _pct(g[f"own_{r}"])
        table.append(row)
    df = pd.DataFrame(table)
    print(df.to_string(index=False))
    items = key.drop_duplicates("id")
    agree = round(100.0 * (items[readers].nunique(axis=1) == 1).mean(), 1) if len(readers) > 1 else None
    doc = {
        "key": str(args.key),
        "verdicts": args.verdicts,
        "readers": dict(zip(readers, args.verdicts)),
        "reader_agreement_pct": agree,
        "table": table,
    }
    if args.successes:  # the signals of the read changed items: AUC of each for kept (mean over readers >= 0.5)
        succ = pd.concat([read_run(p) for p in args.successes])
        changed = key[key.group == "changed"].drop_duplicates(["victim", "example", "text"])
        joined = changed.merge(
            succ.rename(columns={"row": "example", "perturbed": "text"}), on=["victim", "example", "text"]
        ).drop_duplicates(["victim", "example", "text"])  # a success recorded by two runs counts once
        kept = joined.kept_mean >= 0.5
        sig = {}
        for col in joined.columns:
            if col.startswith(("sig_", "probe_", "lean_", "lex_", "cos", "ppl_ratio", "score", "judge_p")) or col in (
                "negation",
                "tag_kept",
            ):
                vals = pd.to_numeric(joined[col].replace({"True": 1, "False": 0}), errors="coerce")
                known = vals.notna()  # the judge's signals exist for the picks of the run's own rules only
                if known.any():
                    sig[col] = auc(list(vals[kept & known]), list(vals[~kept & known]))
        doc["signals_auc_kept"] = sig
        # margins: of the read changed items a rule with this margin keeps, the share readers kept the label of
        lex = joined[["lex_old", "lex_new"]].abs().max(axis=1) if "lex_old" in joined.columns else None
        sweeps = {"lean_shift": joined.lean_shift, "probe_drop": joined.probe_drop, "lexicon_max_abs": lex}
        no_neg = ~joined.negation.astype(str).str.lower().eq("true")
        doc["margins"] = {
            name: [
                {
                    "margin": m,
                    "items_kept": int((no_neg & (v <= m)).sum()),
                    "label_kept_pct": _pct(joined.kept_mean[no_neg & (v <= m)]),
                    "label_kept_own_pct": _pct(joined.own_mean[no_neg & (v <= m)]),
                }
                for m in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 99.0)
            ]
            for name, v in sweeps.items()
            if v is not None
        }
        print(json.dumps(doc["margins"], indent=1))
        doc["read_changed_with_signals"] = int(len(joined))
        print(json.dumps(sig, indent=1))
        atomic_write_text(Path(args.out).with_name(Path(args.out).stem + "_signals.csv"), joined.to_csv(index=False))
    out = Path(args.out)
    atomic_write_text(out, json.dumps(doc, indent=2) + "\n")
    atomic_write_text(out.with_name(out.stem + "_judged.csv"), key.to_csv(index=False))


# ---------------------------------------------------------------------------------------------- table
def cmd_table(args):
    """One row per (victim, attack, rule): ASR and ASR1 of the recorded runs, seconds per attacked sentence, the
    label kept by the blind readers (``--read``, score's JSON: against MR's gold label and against the reader's own
    reading of the original) and the paper's figures beside them."""
    import pandas as pd

    read = {}
    if args.read:
        for row in json.loads(Path(args.read).read_text())["table"]:
            read[(row["victim"], row["system"])] = row
    out = []

    def add(victim, system, rule, att, asr, asr1, secs, read_as=None):
        family = next((f for f in ("sp-attack", "textfooler", "bae") if system.startswith(f)), system)
        r = read.get((victim, read_as or system), {})
        paper_bert, paper_distil = PAPER["BERT"].get(family), PAPER["distilBERT"].get(family)
        out.append(
            {
                "victim": victim,
                "attack": system,
                "rule": rule,
                "attacked": att,
                "ASR": asr,
                "ASR1": asr1,
                "s_per_attacked": secs,
                "read_items": r.get("items"),
                "label_kept_gold": r.get("label_kept_pct_mean"),
                "label_kept_own": r.get("label_kept_own_pct_mean"),
                "paper_ASR_BERT": paper_bert and paper_bert[0],
                "paper_ASR1_BERT": paper_bert and paper_bert[1],
                "paper_ASR_distilBERT": paper_distil and paper_distil[0],
                "paper_ASR1_distilBERT": paper_distil and paper_distil[1],
                "paper_label_kept": PAPER["label_kept"].get(family),
            }
        )

    pct = lambda n, d: round(100.0 * n / max(d, 1), 1)  # noqa: E731
    for path in args.examples or []:
        ex = read_run(path)
        att = ex[ex.result != "Skipped"]
        succ = att[att.result == "Successful"]
        secs = round(att.seconds.astype(float).mean(), 2)
        victim, system = victim_of(path), system_of(path)
        if system.startswith("sp-attack"):  # as run: the recipe's own rule decided; ASR1 = ASR
            add(victim, system, system[len("sp-attack[") : -1], len(att), pct(len(succ), len(att)), None, secs)
            out[-1]["ASR1"] = out[-1]["ASR"]
            continue
        one = succ[succ.words_changed.astype(int) == 1]
        for rule in args.rules:  # ASR1 counts a one-word success only when the rule keeps its swap
            kept = [r for _, r in one.iterrows() if keeps(rule, {**r, "cos": 1.0})] if rule != "paper" else one
            add(victim, system, rule, len(att), pct(len(succ), len(att)), pct(len(kept), len(att)), secs)
    for path in getattr(args, "successes", None) or []:  # SP-Attack under each rule, simulated on every success
        succ = read_run(path)
        ex = read_run(str(path).replace("_successes.csv", "_examples.csv"))
        att = ex[ex.result != "Skipped"]
        picks = rule_picks(succ, args.rules)
        for rule in args.rules:
            n = sum(any(rule in rules for rules in texts.values()) for texts in picks.values())
            asr = pct(n, len(att))
            add(victim_of(path), f"sp-attack[{rule}, simulated]", rule, len(att), asr, asr, None, read_as=rule)
    df = pd.DataFrame(out)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(df.to_string(index=False))
    if args.out:
        from textattack_secondorder.shared.files import atomic_write_text

        doc = {"rows": out, "paper": PAPER, "examples": args.examples, "read": args.read}
        atomic_write_text(Path(args.out), json.dumps(doc, indent=2) + "\n")
        atomic_write_text(Path(args.out).with_suffix(".csv"), df.to_csv(index=False))


# ---------------------------------------------------------------------------------------------- from-comparison
COMPARISON_RUNS = {"sp_attack": "sp-attack", "textfooler": "textfooler-offline"}


def cmd_from_comparison(args):
    """The attacks a ``defend --compare`` cell measured (``WORK/<key>_rows.json``) as this benchmark's runs
    (``label_rule_{stem}_{victim}_{recipe}_examples.csv``, and for SP-Attack its ``_run.json`` naming the rule), so
    ``items`` and ``table`` read them like runs of ``run``: the same sentences, no second attack. Gold labels come
    from the data set the comparison attacked (MR test by default), matched by text."""
    import pandas as pd

    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.shared.files import atomic_write_text

    labels = {t: y for t, y in load_examples(args.dataset, args.split)}
    work = Path(args.work)
    for path in sorted(work.glob("*_rows.json")):
        stem = path.name[: -len("_rows.json")]
        key = "sp_attack" if stem.startswith("sp_attack") else stem
        if key not in COMPARISON_RUNS:
            continue
        rule = (stem[len("sp_attack_") :] or "paper") if key == "sp_attack" else ""  # sp_attack_<rule>, or the paper's
        rows = json.loads(path.read_text())
        status = {"successful": "Successful", "failed": "Failed"}
        ex = pd.DataFrame(
            [
                {
                    "row": n,
                    "label": labels.get(r["original"], ""),
                    "result": status.get(r.get("status"), "Skipped"),
                    "original": r["original"],
                    "perturbed": r.get("perturbed") or r["original"],
                    "words_changed": r.get("words_changed", 0),
                    "queries": r.get("queries", 0),
                    "seconds": r.get("seconds", 0.0),
                }
                for n, r in enumerate(rows)
            ]
        )
        missing = (ex.label == "").sum()
        if missing:
            raise SystemExit(f"from-comparison: {missing} sentences of {path} are not in {args.dataset}:{args.split}")
        recipe = COMPARISON_RUNS[key]
        if key == "sp_attack" and rule != args.sp_attack_rule:
            continue
        out = Path(args.out_dir) / f"label_rule_{args.stem}_{args.victim}_{recipe}_examples.csv"
        atomic_write_text(out, ex.to_csv(index=False))
        if recipe == "sp-attack":
            run = {"victim": args.victim, "recipe": recipe, "label_rule": rule, "from_comparison": str(path)}
            atomic_write_text(Path(str(out).replace("_examples.csv", "_run.json")), json.dumps(run, indent=2) + "\n")
        print(f"{path.name}: {len(ex)} sentences, {(ex.result == 'Successful').sum()} successes -> {out}")
