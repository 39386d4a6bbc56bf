"""Which signal tells a fluent SP-Attack swap from one a reader marks down (docs/design/single-word.md, fluency).

Two sub-commands around a blind read of ``benchmarks/sp_attack_read.py``:

``sample`` — from ``sp_attack_read.py candidates`` CSVs (every misclassified candidate the search ranked), the
candidates SP-Attack could report (sentence-encoder cosine > 0.8, kept by the label rule): up to ``--per-sentence``
per sentence, ``--per-victim`` per victim, seeded; with the signals a fluency check could read, computed for each:
the causal LM's whole-sentence log-likelihood drop (``lm_drop``, the default rule's budget), the causal and masked LM
swap signals of ``constraints/swap_signals.py`` (``lm_slot``, ``lm_after``, ``mlm_keep``, ``mlm_mask``,
``st_word_cos``), and the masked LM's pseudo-log-likelihood drop (``pll_drop``). Written as a run's examples CSV, so
``sp_attack_read.py items --examples`` makes the readers' items from it::

    python benchmarks/sp_fluency_signals.py sample --candidates R/sp_pool_train_*_candidates.csv \\
        --out R/sp_fluency_train_sample.csv

``picks`` — the candidates CSVs with, for each candidate, the Penn tag of the replaced word and a label probe's view
of the swap (logistic regression on sentence-encoder vectors of the label data's training sentences, the rows read
left out: ``probe_drop`` = log P(gold | x) − log P(gold | x'), ``probe_shift`` = the largest change of any class's
log-probability); then the pick each setting of a grid (probe margin × LM budget × which slots) would report, as
a run's examples CSV for ``sp_attack_read.py items``::

    python benchmarks/sp_fluency_signals.py picks --candidates R/sp_pool_train_*_candidates.csv \
        --exclude 2000 2500 --out R/sp_pool_grid_train_picks.csv

``fit`` — the readers' verdicts (``sp_attack_read.py score``'s ``*_judged.csv``) beside the signals: per signal the
AUC for "fluent" (both readers' fluency >= 4) and for "label kept" (both readers give the original's label), and for
each threshold of each signal the share of candidates kept and the share of the kept that are fluent and
label-keeping::

    python benchmarks/sp_fluency_signals.py fit --sample R/sp_fluency_train_sample.csv \\
        --judged R/sp_fluency_train_read_judged.csv --out R/sp_fluency_train_fit.json
"""

import argparse
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
SIMILARITY = 0.8
SWAP = ("lm_slot", "lm_after", "mlm_keep", "mlm_mask", "st_word_cos")
#: signals where a larger value means a worse fit (the rest: larger is better)
LOWER_IS_BETTER = ("lm_drop", "pll_drop")


def cmd_sample(args):
    import pandas as pd
    import torch
    from textattack.shared import AttackedText

    from textattack_secondorder.constraints.swap_signals import SwapSignals
    from textattack_secondorder.resources import load_causal_lm, load_sentence_encoder, load_word_proposer

    torch.set_num_threads(args.threads)
    cands = pd.concat([pd.read_csv(p, keep_default_na=False) for p in args.candidates], ignore_index=True)
    cands = cands[cands.perturbed != ""].astype({"cos": float, "score": float, "lm_drop": float})
    kept = [c for c in cands.columns if c.startswith("label_kept_")]
    ok = cands[(cands.cos > SIMILARITY) & cands[kept[0]].astype(str).eq("True")]
    ok = ok.sample(frac=1.0, random_state=args.seed)
    ok = ok.groupby(["victim", "row"], sort=False).head(args.per_sentence)
    ok = ok.groupby("victim", sort=False).head(args.per_victim).sort_values(["victim", "row"]).reset_index(drop=True)
    proposer = load_word_proposer()
    signals = SwapSignals(causal_lm=load_causal_lm(), masked_lm=proposer, sentence_encoder=load_sentence_encoder())
    rows = []
    for (victim, row), g in ok.groupby(["victim", "row"], sort=False):
        x = AttackedText(g.original.iloc[0])
        texts = []
        for r in g.itertuples():
            t = AttackedText(r.perturbed)
            (i,) = sorted(t.all_words_diff(x))
            t.attack_attrs["newly_modified_indices"] = {i}
            texts.append(t)
        values = signals.compute(x, texts, names=SWAP)
        pll = proposer.pseudo_log_likelihood([x.words] + [t.words for t in texts])
        for k, r in enumerate(g.itertuples()):
            out = {"victim": victim, "variant": "sample", "row": row, "label": r.label, "result": "Successful"}
            out |= {"original": r.original, "perturbed": r.perturbed, "old": r.old, "new": r.new}
            out |= {"cos": r.cos, "score": r.score, "lm_drop": r.lm_drop, "pll_drop": float(pll[0] - pll[k + 1])}
            out |= {s: float(v) for s, v in zip(SWAP, values[k])}
            rows.append(out)
        print(f"{victim} row {row}: {len(g)} candidates", flush=True)
    df = pd.DataFrame(rows)
    df["seconds"] = df["cpu_seconds"] = 0.0
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    print(df.groupby("victim").size().to_string())


MODIFIERS = ("JJ", "RB")
CONTENT = ("JJ", "RB", "NN", "VB")


def fit_label_probe(encoder, examples):
    """Multinomial logistic regression (scikit-learn, C = 1) on sentence-encoder vectors of ``(text, class)``."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(encoder.encode([t for t, _ in examples]), dtype=np.float64)
    return LogisticRegression(C=1.0, max_iter=2000).fit(x, [int(y) for _, y in examples])


def cmd_picks(args):
    import numpy as np
    import pandas as pd
    from textattack.shared import AttackedText

    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.resources import load_pos_tagger, load_sentence_encoder

    cands = pd.concat([pd.read_csv(p, keep_default_na=False) for p in args.candidates], ignore_index=True)
    cands = cands[cands.perturbed != ""].astype({"cos": float, "score": float, "lm_drop": float}).reset_index()
    kept = [c for c in cands.columns if c.startswith("label_kept_")][0]
    cands = cands[(cands.cos > SIMILARITY) & cands[kept].astype(str).eq("True")].reset_index(drop=True)
    encoder, tagger = load_sentence_encoder(), load_pos_tagger()
    lo, hi = args.exclude
    train = [(t, y) for i, (t, y) in enumerate(load_examples(args.data, "train")) if not lo <= i < hi]
    probe = fit_label_probe(encoder, train)
    classes = {name: n for n, name in enumerate(args.labels)}
    before = probe.predict_log_proba(np.asarray(encoder.encode(list(cands.original)), dtype=np.float64))
    after = probe.predict_log_proba(np.asarray(encoder.encode(list(cands.perturbed)), dtype=np.float64))
    gold = cands.label.map(classes).to_numpy()
    cands["probe_drop"] = before[np.arange(len(cands)), gold] - after[np.arange(len(cands)), gold]
    cands["probe_shift"] = np.abs(before - after).max(axis=1)
    tags = []
    for r in cands.itertuples():
        x, t = AttackedText(r.original), AttackedText(r.perturbed)
        (i,) = sorted(t.all_words_diff(x))
        tags.append(tagger.tags(x)[i][:2])
    cands["tag"] = tags
    picks = []
    for margin in args.margins:
        for budget in args.budgets:
            for slots, allowed in (("content", CONTENT), ("modifiers", MODIFIERS)):
                ok = cands[(cands.probe_drop <= margin) & (cands.lm_drop <= budget) & cands.tag.isin(allowed)]
                for _, g in ok.groupby(["victim", "row"]):
                    pick = g.loc[g.score.idxmax()].copy()
                    pick["variant"] = f"sim:probe={margin:g},b={budget:g},{slots}"
                    picks.append(pick)
    out = pd.DataFrame(picks)
    out["result"] = "Successful"
    out["seconds"] = out["cpu_seconds"] = 0.0
    out.to_csv(args.out, index=False)
    cands.to_csv(Path(args.out).with_name(Path(args.out).stem + "_signals.csv"), index=False)
    attacked = (
        pd.concat([pd.read_csv(p, keep_default_na=False) for p in args.candidates]).groupby("victim").row.nunique()
    )
    print(out.groupby(["variant", "victim"]).size().unstack().to_string())
    print("attacked rows:", attacked.to_dict())


def auc(score, good):
    """Probability that a random good item scores above a random bad one (ties half)."""
    import numpy as np

    s, g = np.asarray(score, float), np.asarray(good, bool)
    pos, neg = s[g], s[~g]
    if not len(pos) or not len(neg):
        return None
    greater = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    return round(float(greater), 3)


def cmd_fit(args):
    import numpy as np
    import pandas as pd

    sample = pd.read_csv(args.sample, keep_default_na=False)
    judged = pd.read_csv(args.judged, keep_default_na=False)
    changed = judged[judged.group == "changed"]
    readers = sorted(int(c.split("_")[1]) for c in judged.columns if c.startswith("fluency_"))
    originals = judged[judged.group == "original"].drop_duplicates(["victim", "example"])
    df = sample.merge(changed, left_on=["victim", "row", "perturbed"], right_on=["victim", "example", "text"])
    own = originals.set_index(["victim", "example"])
    df["fluent"] = np.all([df[f"fluency_{n}"] >= 4 for n in readers], axis=0)
    df["fluency_mean"] = np.mean([df[f"fluency_{n}"] for n in readers], axis=0)
    at = list(zip(df.victim, df.row))
    df["label_kept"] = np.all(
        [df[f"label_{n}"].to_numpy() == own[f"label_{n}"].reindex(at).to_numpy() for n in readers], axis=0
    )
    df["good"] = df.fluent & df.label_kept
    names = ["lm_drop", "pll_drop", *SWAP]
    table = {"items": len(df), "fluent_pct": round(100 * df.fluent.mean(), 1)}
    table["label_kept_pct"] = round(100 * df.label_kept.mean(), 1)
    table["good_pct"] = round(100 * df.good.mean(), 1)
    table["auc"] = {}
    table["thresholds"] = {}
    for name in names:
        v = -df[name] if name in LOWER_IS_BETTER else df[name]
        table["auc"][name] = {
            "fluent": auc(v, df.fluent),
            "label_kept": auc(v, df.label_kept),
            "good": auc(v, df.good),
        }
        rows = []
        for q in (0.1, 0.25, 0.5, 0.75, 0.9):
            cut = float(np.quantile(df[name], q if name not in LOWER_IS_BETTER else 1 - q))
            keep = df[name] <= cut if name in LOWER_IS_BETTER else df[name] >= cut
            rows.append(
                {
                    "threshold": round(cut, 3),
                    "kept_pct": round(100 * keep.mean(), 1),
                    "fluent_pct": round(100 * df.fluent[keep].mean(), 1) if keep.any() else None,
                    "good_pct": round(100 * df.good[keep].mean(), 1) if keep.any() else None,
                    "mean_fluency": round(float(df.fluency_mean[keep].mean()), 2) if keep.any() else None,
                }
            )
        table["thresholds"][name] = rows
    by_victim = df.groupby("victim").agg(items=("good", "size"), fluent=("fluent", "mean"), good=("good", "mean"))
    table["by_victim"] = by_victim.round(3).reset_index().to_dict("records")
    Path(args.out).write_text(json.dumps(table, indent=2) + "\n")
    print(json.dumps({k: table[k] for k in ("items", "fluent_pct", "label_kept_pct", "good_pct", "auc")}, indent=1))


def main():
    sys.path.insert(0, str(Path(__file__).parent))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample", help="candidates SP-Attack could report, with the signals of each")
    s.add_argument("--candidates", nargs="+", required=True)
    s.add_argument("--per-sentence", type=int, default=3)
    s.add_argument("--per-victim", type=int, default=120)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_sample)
    p = sub.add_parser("picks", help="label-probe and slot signals, and the picks of a grid of settings")
    p.add_argument("--candidates", nargs="+", required=True)
    p.add_argument("--data", default="mr", help="the label data the probe is fitted on")
    p.add_argument("--labels", nargs="+", default=["negative", "positive"], help="class names, in class order")
    p.add_argument("--exclude", nargs=2, type=int, default=[0, 0], help="training rows [LO, HI) left out of the probe")
    p.add_argument("--margins", nargs="+", type=float, default=[0.25, 0.5])
    p.add_argument("--budgets", nargs="+", type=float, default=[4.0, 8.0])
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_picks)
    f = sub.add_parser("fit", help="each signal beside the readers' verdicts")
    f.add_argument("--sample", required=True)
    f.add_argument("--judged", required=True)
    f.add_argument("--out", required=True)
    f.set_defaults(func=cmd_fit)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
