"""SP-Attack's own reported successes, read blind for the label and the fluency (Xu et al., Table 4 and E.2).

Three steps, each a sub-command:

``run`` — attack sentences with SP-Attack variants on one victim (a demo victim's name or a Hugging Face folder,
loaded as the stock command line loads it), the variants taking turns on each sentence (their order alternated),
and keep every row: the success's text, the swapped word, the causal LM's log-likelihood change and the seconds.
Resumable (rows already in the CSV are skipped)::

    python benchmarks/sp_attack_read.py run --victim mr-cnn --kappa K.json --data mr --split test --count 100 \\
        --variants sp-attack "sp-attack^fluency_rule='paper'" --stem sp_read_test_mr-cnn

``candidates`` — for deciding a rule: one permissive variant's search (default: the part-of-speech check and
Eq. 6's label lean), keeping every misclassified candidate its joint score ranks (up to k per sentence) with its
cosine, perplexity ratio, joint score, the causal LM's log-likelihood drop and whether the label rule keeps it
under each ``--priors`` value; ``items --candidates`` then reads the pick each (budget, prior) setting would report::

    python benchmarks/sp_attack_read.py candidates --victim mr-cnn --kappa K.json --split train --start 2000 \
        --count 40 --stem sp_train_mr-cnn

``items`` — the successes of one or more runs and their unchanged originals, shuffled together without system
names, made by the review module (``textattack-so review --blind``'s items): the text items for helper readers
``{stem}_items.txt``, the same items as a blind review sheet ``{stem}.html`` (a reader marks them in a browser and
downloads the marks), the key in ``{stem}_key.csv``::

    python benchmarks/sp_attack_read.py items --examples R/sp_read_test_*_examples.csv --stem sp_read_test

``score`` — the readers' verdicts (CSV ``id,label,fluency``: the label the sentence states and Xu et al.'s 1–5
fluency, one file per reader; ``benchmarks/sp_attack_reader.md`` is their instruction; or the sheet's downloaded
marks, ``natural`` yes / no in place of the fluency) judged by the review module, then joined with the key: per
victim and variant the share of successes that keep the label the same reader gave the original (the paper's
question), the share that keep the data's gold label, the mean fluency, and the share both label-keeping and fluent
(fluency >= 4), per reader and over readers; the originals' figures beside them; ASR and seconds per attacked
sentence from the runs::

    python benchmarks/sp_attack_read.py score --key R/sp_read_test_key.csv --verdicts A.csv B.csv \\
        --examples R/sp_read_test_*_examples.csv --out R/sp_read_test_read.json
"""

import argparse
import json
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


# ------------------------------------------------------------------------------------------------ run
def label_names_of(model_wrapper, data_labels):
    from textattack_secondorder.models.probe import model_label_names, probe_model

    names = model_label_names(model_wrapper, probe_model(model_wrapper))
    return names or sorted({str(y) for y in data_labels})


def cmd_run(args):
    import os

    import pandas as pd
    from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult

    from second_order import build, load_benchmark_victim
    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.resources import load_causal_lm
    from textattack_secondorder.shared.files import atomic_write_text
    from textattack_secondorder.shared.inputs import label_reason

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    import textattack_secondorder

    textattack_secondorder.register()
    model = load_benchmark_victim(args.victim)
    rows = load_examples(args.data, args.split)[args.start : args.start + args.count]
    names = label_names_of(model, [y for _, y in rows])
    attacks = {}
    for variant in args.variants:
        extra = f"kappa='{args.kappa}'" + (f",label_data='{args.label_data}'" if args.label_data else "")
        spec = variant + ("," if "^" in variant else "^") + extra
        t0 = time.perf_counter()
        attacks[variant] = build(spec, model, None)
        print(f"built {variant} in {time.perf_counter() - t0:.1f} s", flush=True)
    lm = load_causal_lm()
    out = Path(args.out_dir) / f"{args.stem}_examples.csv"
    done = pd.read_csv(out, keep_default_na=False).to_dict("records") if out.exists() else []
    have = {(r["variant"], int(r["row"])) for r in done}
    victim = Path(args.victim).name
    for n, (text, label) in enumerate(rows, args.start):
        order = args.variants if n % 2 == 0 else args.variants[::-1]
        gold, _ = label_reason(label, len(names), names)
        for variant in order:
            if (variant, n) in have:
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            result = attacks[variant].attack(text, gold)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            row = {"victim": victim, "variant": variant, "row": n, "label": names[gold] if gold is not None else ""}
            row |= {"result": type(result).__name__.replace("AttackResult", ""), "original": text}
            row |= {"perturbed": "", "old": "", "new": "", "lm_drop": "", "seconds": round(seconds, 3)}
            row["cpu_seconds"] = round(cpu, 3)
            if isinstance(result, SuccessfulAttackResult):
                x, adv = result.original_result.attacked_text, result.perturbed_result.attacked_text
                (i,) = sorted(adv.all_words_diff(x)) or [None]
                row |= {"perturbed": adv.text, "old": x.words[i], "new": adv.words[i]}
                row["lm_drop"] = round(float(-lm.log_likelihood_differences(x.text, [adv.text])[0]), 3)
            if isinstance(result, SkippedAttackResult):
                row["result"] = "Skipped"
            done.append(row)
            print(json.dumps({k: row[k] for k in ("variant", "row", "result", "perturbed", "seconds")}), flush=True)
        atomic_write_text(out, pd.DataFrame(done).to_csv(index=False))
    df = pd.DataFrame(done)
    summary = summarize_runs(df)
    doc = {"victim": args.victim, "kappa": args.kappa, "data": f"{args.data}:{args.split}", "loadavg": os.getloadavg()}
    doc["summary"] = summary.to_dict("records")
    atomic_write_text(out.with_name(args.stem + "_run.json"), json.dumps(doc, indent=2) + "\n")
    print(summary.to_string(index=False))


def summarize_runs(df):
    """Per victim and variant: rows, attacked (not skipped), successes, ASR and mean seconds per attacked row."""
    attacked = df[df.result != "Skipped"]
    g = attacked.groupby(["victim", "variant"], sort=False)
    out = g.agg(attacked=("row", "size"), successes=("result", lambda r: int((r == "Successful").sum())))
    out["ASR"] = (100.0 * out.successes / out.attacked).round(1)
    out["s_per_attacked"] = g.seconds.mean().round(3)
    out["cpu_s_per_attacked"] = g.cpu_seconds.mean().round(3)
    return out.reset_index()


# ------------------------------------------------------------------------------------------ candidates
def cmd_candidates(args):
    import pandas as pd
    import torch
    from textattack.shared import AttackedText

    from second_order import build, load_benchmark_victim
    from textattack_secondorder.constraints.label_rules import label_rule_for_data
    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.models.probe import model_label_names, probe_model
    from textattack_secondorder.resources import load_causal_lm
    from textattack_secondorder.shared.files import atomic_write_text
    from textattack_secondorder.shared.inputs import label_reason

    torch.set_num_threads(args.threads)
    import textattack_secondorder

    textattack_secondorder.register()
    model = load_benchmark_victim(args.victim)
    rows = load_examples(args.data, args.split)[args.start : args.start + args.count]
    names = label_names_of(model, [y for _, y in rows])
    spec = args.variant + ("," if "^" in args.variant else "^") + f"kappa='{args.kappa}'"
    attack = build(spec, model, None)
    search = attack.search_method
    seen = []
    scores = search.joint_scores

    def capture(original, candidates):  # every candidate the joint score ranks, as the search hands them over
        cos, ratio, score = scores(original, candidates)
        seen.extend(zip([original] * len(candidates), candidates, cos, ratio, score))
        return cos, ratio, score

    search.joint_scores = capture
    outputs = probe_model(model)
    data = args.label_data or "mr"
    rules = {  # "PRIOR" or "PRIOR@MARGIN" (the label rule's largest shift, nats; default 1)
        spec: label_rule_for_data(
            args.label_rule,
            data,
            float(spec.partition("@")[2] or 1.0),
            prior=None if spec.partition("@")[0] == "none" else float(spec.partition("@")[0]),
            num_classes=outputs,
            label_names=model_label_names(model, outputs),
        )
        for spec in args.priors
    }
    lm = load_causal_lm()
    out = Path(args.out_dir) / f"{args.stem}_candidates.csv"
    table = []
    victim = Path(args.victim).name
    for n, (text, label) in enumerate(rows, args.start):
        gold, _ = label_reason(label, len(names), names)
        seen.clear()
        t0 = time.perf_counter()
        attack.attack(text, gold)
        seconds = time.perf_counter() - t0
        if not seen:
            table.append({"victim": victim, "row": n, "label": names[gold], "original": text, "perturbed": ""})
            continue
        x = AttackedText(text)
        drops = -lm.log_likelihood_differences(text, [c for _, c, *_ in seen])
        for (_, cand, cos, ratio, score), drop in zip(seen, drops):
            adv = AttackedText(cand)
            (i,) = sorted(adv.all_words_diff(x)) or [None]
            row = {"victim": victim, "row": n, "label": names[gold], "original": text, "perturbed": cand}
            row |= {"old": x.words[i], "new": adv.words[i], "cos": round(float(cos), 4), "ppl_ratio": float(ratio)}
            row |= {"score": float(score), "lm_drop": round(float(drop), 3), "seconds": round(seconds, 2)}
            row |= {f"label_kept_{p}": bool(r.kept(x, [adv])) for p, r in rules.items()}
            table.append(row)
        print(f"row {n}: {len(seen)} candidates, {seconds:.1f} s", flush=True)
        atomic_write_text(out, pd.DataFrame(table).to_csv(index=False))


def simulated_picks(cands, budgets, priors, similarity=0.8):
    """``[(victim, row, system, text)]``: per sentence the candidate each (budget, prior) setting reports — the highest
    joint score among those with cosine > ``similarity``, an LM drop <= budget and kept by the label rule."""
    picks = []
    cands = cands[cands.perturbed != ""].astype({"cos": float, "lm_drop": float, "score": float})
    for (victim, row), g in cands.groupby(["victim", "row"]):
        for b in budgets:
            for p in priors:
                ok = g[(g.cos > similarity) & (g.lm_drop <= b) & g[f"label_kept_{p}"].astype(str).eq("True")]
                if len(ok):
                    picks.append((victim, row, f"sim:b={b:g},prior={p}", ok.loc[ok.score.idxmax(), "perturbed"]))
    return picks


# ---------------------------------------------------------------------------------------------- items
def cmd_items(args):
    """The read's key and sheet, made by the review module (``textattack_secondorder.evaluation.review``, the
    one place that decides the items and their score): ``{stem}_key.csv``, the text items for helper readers
    ``{stem}_items.txt`` and the same items as a blind review sheet ``{stem}.html``."""
    import pandas as pd

    from textattack_secondorder.evaluation.review import BLIND, ReviewSheet, blind_key

    key = []
    for path in args.candidates or []:
        cands = pd.read_csv(path, keep_default_na=False)
        labels = dict(zip(zip(cands.victim, cands.row), cands.label))
        originals = dict(zip(zip(cands.victim, cands.row), cands.original))
        for victim, row, system, text in simulated_picks(cands, args.budgets, args.priors):
            base = {"victim": victim, "example": row, "label": labels[victim, row]}
            key.append({"group": "original", "system": "original", "text": originals[victim, row], **base})
            key.append({"group": "changed", "system": system, "text": text, **base})
    for path in args.examples or []:
        ex = pd.read_csv(path, keep_default_na=False)
        for r in ex[ex.result == "Successful"].itertuples():
            base = {"victim": r.victim, "example": r.row, "label": r.label}
            key.append({"group": "original", "system": "original", "text": r.original, **base})
            key.append({"group": "changed", "system": r.variant, "text": r.perturbed, **base})
    key = pd.DataFrame(key).drop_duplicates(["group", "victim", "system", "example", "text"])
    key = blind_key(key.rename(columns={"victim": "run"}), args.seed)
    sheet = ReviewSheet(key, BLIND, sorted(set(key.label.astype(str))), "Blind read")
    paths = sheet.save(Path(args.out_dir) / f"{args.stem}.html")
    changed, originals = (key.group == "changed").sum(), (key.group == "original").sum()
    print(f"{key.id.nunique()} items: {changed} successes, {originals} originals: {paths['items']}, {paths['html']}")


# ---------------------------------------------------------------------------------------------- score
def cmd_score(args):
    """The verdicts judged by the review module (``judge_items``: the label kept against the same reader's original,
    fluent from its ``FLUENT`` = 4 up), then this read's table: own / gold / both / fluency per victim and variant."""
    import numpy as np
    import pandas as pd

    from textattack_secondorder.evaluation.review import judge_items, read_marks, reader_means
    from textattack_secondorder.shared.files import atomic_write_text

    key = pd.read_csv(args.key, keep_default_na=False).rename(columns={"victim": "run"})  # older keys: victim
    if args.first is not None:  # the read of the first N sentences of longer runs
        key = key[key.example.astype(int) < args.first]
    marks = []
    for path in args.verdicts:
        v = read_marks(path)
        if not set(key.id) <= set(v.id):
            raise SystemExit(f"{path}: its ids are not the key's ({len(v)} rows for {key.id.nunique()} items)")
        marks.append(v)
    readers = list(range(1, len(marks) + 1))
    key = judge_items(key, marks).rename(columns={"run": "victim"})
    key = key.rename(
        columns={f"{a}_{n}": f"{b}_{n}" for n in readers for a, b in (("kept", "own"), ("accepted", "both"))}
    )
    runs = None
    if args.examples:
        from sp_attack_read import summarize_runs

        runs = pd.concat([pd.read_csv(p, keep_default_na=False) for p in args.examples])
        runs = summarize_runs(runs if args.first is None else runs[runs.row.astype(int) < args.first])
    means = {
        kind: reader_means(key, ["victim", "system"], kind, readers) for kind in ("own", "gold", "both", "fluency")
    }
    table = []
    for (victim, system), g in key.groupby(["victim", "system"], sort=False):
        row = {"victim": victim, "system": system, "items": len(g)}
        for kind in ("own", "gold", "both", "fluency"):
            per = means[kind][victim, system]
            row[kind] = round(float(np.nanmean(per)) * (1 if kind == "fluency" else 100), 2 if kind == "fluency" else 1)
            row |= {
                f"{kind}_reader{n}": round(float(p) * (1 if kind == "fluency" else 100), 2)
                for n, p in zip(readers, per)
            }
        if runs is not None and system != "original":
            r = runs[(runs.victim == victim) & (runs.variant == system)]
            if len(r):
                row |= {
                    k: r.iloc[0][k] for k in ("attacked", "successes", "ASR", "s_per_attacked", "cpu_s_per_attacked")
                }
        table.append(row)
    df = pd.DataFrame(table)
    print(df[[c for c in df.columns if "reader" not in c]].to_string(index=False))
    agree = {}
    items = key.drop_duplicates("id")
    if len(readers) > 1:
        agree["label"] = round(100.0 * (items[[f"label_{n}" for n in readers]].nunique(axis=1) == 1).mean(), 1)
    if len(readers) > 1 and all(f"fluency_{n}" in items for n in readers):  # helper readers' 1-5 fluency
        f = items[[f"fluency_{n}" for n in readers]]
        agree["fluency_exact"] = round(100.0 * (f.nunique(axis=1) == 1).mean(), 1)
        agree["fluency_mean_abs_diff"] = round(float((f.max(axis=1) - f.min(axis=1)).mean()), 2)
    doc = {"key": args.key, "verdicts": args.verdicts, "agreement": agree, "table": table}
    atomic_write_text(Path(args.out), json.dumps(doc, indent=2, default=float) + "\n")
    atomic_write_text(Path(args.out).with_name(Path(args.out).stem + "_judged.csv"), key.to_csv(index=False))


def main():
    sys.path.insert(0, str(Path(__file__).parent))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="attack sentences with SP-Attack variants, keep every row")
    r.add_argument("--victim", required=True, help="a demo victim's name or a Hugging Face folder")
    r.add_argument("--kappa", required=True, help="the victim's κ (textattack-so flip-capability's JSON)")
    r.add_argument("--label-data", default=None, help="label_data for every variant (default: the recipe's)")
    r.add_argument("--data", default="mr", help="'mr' or a CSV with text,label")
    r.add_argument("--split", default="test")
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--count", type=int, default=100)
    r.add_argument("--variants", nargs="+", default=["sp-attack", "sp-attack^fluency_rule='paper'"])
    r.add_argument("--stem", required=True)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--out-dir", default=str(RESULTS))
    r.set_defaults(func=cmd_run)
    c = sub.add_parser("candidates", help="every misclassified candidate one permissive variant ranks")
    c.add_argument("--victim", required=True)
    c.add_argument("--kappa", required=True)
    c.add_argument("--variant", default="sp-attack^fluency_rule='pos',label_prior=None")
    c.add_argument("--label-rule", default="lean-synonyms-lexicon", help="the rule whose verdicts are recorded")
    c.add_argument("--label-data", default=None, help="its data (default mr)")
    c.add_argument(
        "--priors", nargs="+", default=["none", "1"], help="label_prior values ('none': Eq. 6), each PRIOR[@MARGIN]"
    )
    c.add_argument("--data", default="mr")
    c.add_argument("--split", default="train")
    c.add_argument("--start", type=int, default=2000)
    c.add_argument("--count", type=int, default=40)
    c.add_argument("--stem", required=True)
    c.add_argument("--threads", type=int, default=1)
    c.add_argument("--out-dir", default=str(RESULTS))
    c.set_defaults(func=cmd_candidates)
    i = sub.add_parser("items", help="the runs' successes and their originals, shuffled and unlabelled")
    i.add_argument("--examples", nargs="*")
    i.add_argument("--candidates", nargs="*", help="candidates CSVs: the pick of each --budgets x --priors setting")
    i.add_argument("--budgets", nargs="+", type=float, default=[4.0, 6.0, 8.0, 10.0, 1e9])
    i.add_argument("--priors", nargs="+", default=["none", "1"])
    i.add_argument("--stem", required=True)
    i.add_argument("--seed", type=int, default=0)
    i.add_argument("--out-dir", default=str(RESULTS))
    i.set_defaults(func=cmd_items)
    s = sub.add_parser("score", help="readers' verdicts joined with the key")
    s.add_argument("--key", required=True)
    s.add_argument("--verdicts", nargs="+", required=True, help="one CSV (id,label,fluency) per reader")
    s.add_argument("--examples", nargs="*", help="the runs' *_examples.csv: ASR and seconds beside the read")
    s.add_argument("--first", type=int, default=None, help="score only the first N sentences (example < N)")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_score)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
