"""Does an SP-Attack success keep the sentence's label? Signals, blind reads and ASR (docs/methods.md §2.5).

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

from label_signals import Signals, cached_probe, probe_path, vader_lexicon, wordnet_antonyms

RESULTS = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parent.parent
SIMILARITY = 0.8  # Xu et al. §6.1: USE cosine > 0.8
#: candidate rules simulated on SP-Attack's recorded successes: name -> (what it keeps, in words)
RULES = {
    "paper": "cos > 0.8 (Xu et al.)",
    "cos0.9": "cos > 0.9",
    "lean1": "cos > 0.8, no negator in or out, label-lean shift <= 1 nat",
    "lean05": "cos > 0.8, no negator in or out, label-lean shift <= 0.5 nat",
    "lean1-tag": "lean1 and the word's Penn tag kept (two letters)",
    "lexicon": "cos > 0.8, no negator in or out, neither word has a VADER valence of 1 or more (task-specific)",
    "lean1-lexicon": "lean1 and lexicon",
    "probe": "cos > 0.8, no negator in or out, label probe log-odds of the label fall <= 1",
    "judge": "cos > 0.8 and the patch judge keeps the swap (P >= its threshold; computed on the other rules' picks)",
}
#: paper figures (Xu et al.) on MR: label kept by human annotators (Table 4: TextFooler, CLARE, SP-Attack; no BAE);
#: ASR and ASR1 of the vanilla BERT (Tables 1 and 9) and distilBERT (Table 10) classifiers; SP-Attack's ASR1 = ASR
PAPER = {
    "label_kept": {"textfooler": 69, "clare": 83, "sp-attack": 93},
    "BERT": {"sp-attack": (93.5, 93.5), "textfooler": (72.4, 35.6), "bae": (41.3, 27.5), "clare": (90.0, 59.6)},
    "distilBERT": {"sp-attack": (73.2, 73.2), "textfooler": (70.4, 35.5), "bae": (44.8, 31.4), "clare": (89.8, 63.9)},
}


#: the rules simulated in the run itself (the judge's P is computed for their picks only)
CHEAP_RULES = [r for r in RULES if r != "judge"]


def _pick(rows, rule):
    """Index of the success ``rule`` reports among ``rows`` (the highest joint score it keeps), or None."""
    kept = [k for k, r in enumerate(rows) if keeps(rule, r)]
    return max(kept, key=lambda k: rows[k]["score"]) if kept else None


def keeps(rule, r):
    """Whether the simulated ``rule`` keeps the success row ``r`` (a dict or a pandas row)."""
    cos_ok = r["cos"] > SIMILARITY
    if rule == "paper":
        return cos_ok
    if rule == "cos0.9":
        return r["cos"] > 0.9
    no_neg = not r["negation"]
    if rule == "lean1":
        return cos_ok and no_neg and r["lean_shift"] <= 1.0
    if rule == "lean05":
        return cos_ok and no_neg and r["lean_shift"] <= 0.5
    if rule in ("lexicon", "lean1-lexicon"):
        try:
            calm = abs(float(r["lex_old"])) < 1.0 and abs(float(r["lex_new"])) < 1.0
        except (KeyError, TypeError, ValueError):  # the lexicon's columns are added after the run
            return False
        return cos_ok and no_neg and calm and (rule == "lexicon" or r["lean_shift"] <= 1.0)
    if rule == "lean1-tag":
        return cos_ok and no_neg and r["lean_shift"] <= 1.0 and bool(r["tag_kept"])
    if rule == "probe":
        return cos_ok and no_neg and r["probe_drop"] <= 1.0
    if rule == "judge":
        try:
            p, threshold = float(r.get("judge_p")), float(r.get("judge_threshold"))
        except (TypeError, ValueError):
            return False
        return cos_ok and p >= threshold
    raise ValueError(rule)


def add_lexicon(args):
    """Adds ``lex_old`` / ``lex_new`` (VADER valence of each word, 0 when it has none) and ``lex_shift``
    (``|lex_new − lex_old|``) to run CSVs (a signal of words the lexicon knows; computed after the run)."""
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    lexicon = vader_lexicon()
    for path in args.csv:
        df = pd.read_csv(path, keep_default_na=False)
        if "old" not in df.columns:
            continue
        ok = df.old.astype(str) != ""
        df["lex_old"] = [lexicon.get(w, 0.0) if k else "" for w, k in zip(df.old.astype(str), ok)]
        df["lex_new"] = [lexicon.get(w, 0.0) if k else "" for w, k in zip(df.new.astype(str), ok)]
        df["lex_shift"] = [abs(a - b) if k else "" for a, b, k in zip(df.lex_new, df.lex_old, ok)]
        atomic_write_text(Path(path), df.to_csv(index=False))
        print(f"{path}: lexicon valence added to {int(ok.sum())} rows")


# ---------------------------------------------------------------------------------------------- run
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
    examples = pd.read_csv(ex_path, keep_default_na=False).to_dict("records") if ex_path.exists() else []
    successes = pd.read_csv(succ_path, keep_default_na=False).to_dict("records") if succ_path.exists() else []
    done = {r["row"] for r in examples}
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"seconds": 0.0, "attacked_seconds": []}

    encoder = load_sentence_encoder("all-MiniLM-L6-v2")
    lean = LabelLean.from_examples(train, name="mr:train")
    probe_data = [ex for n, ex in enumerate(train) if n not in held]
    print(f"fitting the label probe on {len(probe_data)} training sentences ...", flush=True)
    probe = cached_probe(encoder, probe_data, probe_path(args.split, args.start, args.count))
    judge_rule = build_patch_rule("judge")
    judge = judge_rule.constraints[-1]
    signals = Signals(lean, probe, encoder, judge, load_pos_tagger(), wordnet_antonyms())

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
            picked = sorted({k for rule in CHEAP_RULES for k in [_pick(mine, rule)] if k is not None})
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


# ---------------------------------------------------------------------------------------------- items
def shuffled_apart(key, seed):
    """The key's distinct texts in a seeded order in which no changed text stands next to its original."""
    from naturalness import shuffle_apart

    pairs = {
        frozenset((a, b))
        for (_, g) in key.groupby(["victim", "example"])
        for a in g[g.group == "original"].text
        for b in g[g.group == "changed"].text
    }
    return shuffle_apart(dict.fromkeys(key.text), pairs, seed)


def read_run(path):
    """A run's successes or examples CSV with its victim, the flags as booleans and the signals as numbers (blank
    where a row has none: a baseline's failed or multi-word result, a success no rule reported)."""
    import pandas as pd

    df = pd.read_csv(path, keep_default_na=False)
    df["victim"] = _victim_of(path)
    for col in ("negation", "tag_kept", "picked"):
        if col in df.columns:
            df[col] = df[col].astype(str).str.lower().eq("true")
    numeric = ("judge_", "sig_", "lean_", "lex_", "probe_", "cos", "ppl_ratio", "score")
    for col in [c for c in df.columns if c.startswith(numeric)]:
        df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


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
        victim, system = _victim_of(path), _system_of(path)
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


def _victim_of(path):
    name = Path(path).name
    return next(v for v in ("mr-cnn", "mr-lstm", "mr-bow", "mr-minilm") if f"_{v}_" in name)


def _recipe_of(path):
    name = Path(path).name
    return next(r for r in ("sp-attack", "textfooler-offline", "bae-offline") if f"_{r}_" in name)


def _system_of(path):
    """The run's attack as the key and the table name it: the recipe, and for sp-attack the rule it ran under
    (``sp-attack[lean]``, from the run's JSON)."""
    recipe = _recipe_of(path)
    if recipe != "sp-attack":
        return recipe
    run = json.loads(Path(str(path).replace("_examples.csv", "_run.json")).read_text())
    return f"sp-attack[{run.get('label_rule') or 'paper'}]"


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

    def add(victim, system, rule, att, asr, asr1, secs):
        family = next((f for f in ("sp-attack", "textfooler", "bae") if system.startswith(f)), system)
        r = read.get((victim, system), {})
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
        victim, system = _victim_of(path), _system_of(path)
        if system.startswith("sp-attack"):  # as run: the recipe's own rule decided; ASR1 = ASR
            add(victim, system, system[len("sp-attack[") : -1], len(att), pct(len(succ), len(att)), None, secs)
            out[-1]["ASR1"] = out[-1]["ASR"]
            continue
        one = succ[succ.words_changed.astype(int) == 1]
        for rule in args.rules:  # ASR1 counts a one-word success only when the rule keeps its swap
            kept = [r for _, r in one.iterrows() if keeps(rule, {**r, "cos": 1.0})] if rule != "paper" else one
            add(victim, system, rule, len(att), pct(len(succ), len(att)), pct(len(kept), len(att)), secs)
    df = pd.DataFrame(out)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(df.to_string(index=False))
    if args.out:
        from textattack_secondorder.shared.files import atomic_write_text

        doc = {"rows": out, "paper": PAPER, "examples": args.examples, "read": args.read}
        atomic_write_text(Path(args.out), json.dumps(doc, indent=2) + "\n")
        atomic_write_text(Path(args.out).with_suffix(".csv"), df.to_csv(index=False))


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
    t.add_argument("--out")
    t.set_defaults(func=cmd_table)
    x = sub.add_parser("lexicon", help="add VADER's valence of each swapped word to run CSVs (after the run)")
    x.add_argument("csv", nargs="+", help="a run's *_successes.csv or *_examples.csv")
    x.set_defaults(func=add_lexicon)
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
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
