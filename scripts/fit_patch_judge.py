#!/usr/bin/env python
"""Fit the patch judge (docs/design/patch-rules.md) to human judgements of word swaps (SWORDS) and write
``data/patch_judge.json``.

Each one-word SWORDS swap (:func:`textattack_secondorder.datasets.swords.swords_swaps`) is scored with
the signals of :class:`~textattack_secondorder.constraints.swap_signals.SwapSignals` (Gemma-3-270M,
the offline DistilBERT, all-MiniLM-L6-v2, WordNet, the packaged counter-fitted list, the part-of-speech
check); the signals are kept in ``--signals-csv`` (resumed when the script is run again). A standardised
logistic regression is then fitted to the share of judges who accepted each swap (soft labels); its
precision and recall for "acceptable" (more than half said yes) are measured by 5-fold cross-validation
grouped by target word (a
target's swaps are never both fitted and measured). The rule the judge serves also requires the part-of-speech
check and a lexical link (a shared first WordNet sense or a listed synonym); the default threshold is the
least probability at which that rule's cross-validated precision reaches ``--precision``; the report
(``--report``) holds the curve.

    python scripts/fit_patch_judge.py --swords swords-v1.1_dev.json.gz            # signals, fit, write
    python scripts/fit_patch_judge.py --swords ... --every 2 --part 0              # signals of half the targets
    python scripts/fit_patch_judge.py --fit-on mr                                  # the readers' model, below

``--fit-on mr`` fits the judge's ``prefer`` model instead: the same signals of MR *training* pairs read blind
(``--mr-reads``: judged CSVs of ``benchmarks/patch_words.py score`` and the in-context rule's tuning table),
hard labels (kept by every reader), 5-fold cross-validation grouped by sentence; it is written into the SWORDS
judge's file, where it picks the reported pair among the swaps the SWORDS judge keeps.

SWORDS: Lee, Donahue, Jia, Iyabor, Liang (NAACL 2021), CC-BY-3.0-US; the weights written are a model
fitted to it and carry that attribution.
"""

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

ATTRIBUTION = (
    "Fitted to SWORDS v1.1 (development split): Lee, Donahue, Jia, Iyabor, Liang, 'Swords: A Benchmark for "
    "Lexical Substitution with Improved Data Coverage and Quality', NAACL 2021; CC-BY-3.0-US; contexts from "
    "CoInCo (Kremer et al. 2014)."
)


def judge_signals(threads, tagger=None):
    """The patch judge's :class:`SwapSignals`, built by the judge rule itself (``patch_rules._judge_rule`` names the
    models it was fitted with), its masked LM on ``threads`` threads."""
    from textattack_secondorder.constraints import PatchJudge
    from textattack_secondorder.goal_functions.patch_rules import JUDGE_MASKED_LM, build_patch_rule
    from textattack_secondorder.resources import load_word_proposer

    rule = build_patch_rule("judge", masked_lm=load_word_proposer(JUDGE_MASKED_LM, threads=threads), tagger=tagger)
    return next(c for c in rule.constraints if isinstance(c, PatchJudge)).signals


def compute_signals(args, names):
    """Signals of every swap, appended target by target to ``args.signals_csv`` (resumable)."""
    import numpy as np
    import pandas as pd
    import torch
    from textattack.shared import AttackedText
    from tqdm.auto import tqdm

    from textattack_secondorder.datasets.swords import swords_swaps
    from textattack_secondorder.resources import load_pos_tagger
    from textattack_secondorder.shared.text import swap_words_at

    torch.set_num_threads(args.threads)
    tagger = load_pos_tagger()
    swaps = swords_swaps(args.swords, tagger=tagger)
    targets = swaps.target_id.drop_duplicates().tolist()[args.part :: args.every]
    out = Path(args.signals_csv)
    done = set(pd.read_csv(out).target_id) if out.is_file() else set()
    signals = judge_signals(args.threads, tagger)
    for tid in tqdm([t for t in targets if t not in done], desc="SWORDS targets", unit="target"):
        group = swaps[swaps.target_id == tid]
        x = AttackedText(group.text.iloc[0])
        i = int(group["index"].iloc[0])
        texts = [swap_words_at(x, i, [p2])[0] for p2 in group.p2]
        values = []
        for s in range(0, len(texts), args.batch):
            values.append(signals.compute(x, texts[s : s + args.batch], names))
        frame = group.reset_index(drop=True).join(pd.DataFrame(np.vstack(values), columns=names))
        frame.to_csv(out, mode="a", header=not out.is_file(), index=False)


def precision_recall(y, probs):
    """``[(threshold, precision, recall, kept)]`` at every distinct probability, highest first."""
    import numpy as np

    order = np.argsort(-probs)
    tp = np.cumsum(y[order])
    kept = np.arange(1, len(y) + 1)
    rows = []
    for k in range(len(y)):
        if k + 1 < len(y) and probs[order[k + 1]] == probs[order[k]]:
            continue
        rows.append((float(probs[order[k]]), float(tp[k] / kept[k]), float(tp[k] / max(y.sum(), 1)), int(kept[k])))
    return rows


def curve_rows(curve):
    """A precision/recall curve (:func:`precision_recall`) as report rows, about 200 of them."""
    return [
        {"threshold": round(t, 4), "precision": round(p, 3), "recall": round(r, 3), "kept": k}
        for t, p, r, k in curve[:: max(1, len(curve) // 200)]
    ]


def weights_block(names, mean, scale, model):
    """One fitted logistic regression as the judge file writes it (``signals``, ``mean``, ``scale``, ``coef``,
    ``intercept``; :func:`textattack_secondorder.constraints.patch_judge.read_judge` reads it)."""
    return {
        "signals": list(names),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
    }


def fit(args, names):
    """Cross-validated curve, the final fit on every swap, the weights file and the report."""
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    frame = pd.read_csv(args.signals_csv).dropna(subset=list(names))
    X, y, groups = frame[list(names)].to_numpy(float), frame.acceptable.to_numpy(int), frame.target_id.to_numpy()

    share = frame.score.to_numpy(float)

    def fitted(rows):
        """Standardisation and a logistic regression fitted on ``rows`` to the share of yes votes (each swap
        counted once as acceptable with weight ``score`` and once as not with ``1 - score``: soft labels)."""
        mean, scale = X[rows].mean(0), X[rows].std(0) + 1e-9
        z = (X[rows] - mean) / scale
        m = LogisticRegression(C=args.C, max_iter=5000)
        m.fit(
            np.vstack([z, z]),
            np.r_[np.ones(len(z)), np.zeros(len(z))],
            sample_weight=np.r_[share[rows], 1 - share[rows]],
        )
        return mean, scale, m

    probs = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=5).split(X, y, groups):
        mean, scale, m = fitted(train)
        probs[test] = m.predict_proba((X[test] - mean) / scale)[:, 1]
    # the rule around the judge: the part-of-speech check and the lexical link (a shared first sense or a listed
    # synonym) come first; a swap they refuse is not kept whatever its probability
    allowed = (frame.pos_kept.to_numpy(float) > 0) & ((frame.wn_shared.to_numpy(float) > 0) | (frame.cf_in > 0))
    judge_curve = precision_recall(y, probs)
    curve = precision_recall(y, np.where(allowed, probs, -1.0))
    curve = [r for r in curve if r[0] >= 0]
    reaching = [r for r in curve if r[1] >= args.precision and r[2] >= args.min_recall]
    threshold = min(reaching, key=lambda r: r[0])[0] if reaching else max(curve, key=lambda r: r[1])[0]
    if args.threshold is not None:  # chosen elsewhere (docs/design/patch-rules.md: on MR training sentences)
        threshold = args.threshold
    at = min((r for r in curve if r[0] >= threshold), key=lambda r: r[0], default=curve[0])
    mean, scale, final = fitted(np.arange(len(y)))
    weights = {
        **weights_block(names, mean, scale, final),
        "threshold": round(threshold, 4),
        "fitted_on": f"{len(y)} one-word swaps of {len(set(groups))} SWORDS targets ({int(y.sum())} acceptable)",
        "attribution": ATTRIBUTION,
        "docs": "docs/design/patch-rules.md",
    }
    auc = {n: round(float(roc_auc_score(y, X[:, k])), 3) for k, n in enumerate(names)}
    report = {
        "swaps": len(y),
        "targets": len(set(groups)),
        "acceptable": int(y.sum()),
        "cv_auc": round(float(roc_auc_score(y, probs)), 3),
        "signal_auc": auc,
        "threshold": threshold,
        "cv_at_threshold": {"precision": at[1], "recall": at[2], "kept": at[3]},
        "rule_recall_ceiling": round(float(allowed[y == 1].mean()), 3),
        "judge_alone_curve": curve_rows(judge_curve),
        "cv_curve": curve_rows(curve),
        "coef": dict(zip(names, weights["coef"])),
        "C": args.C,
        "written": time.strftime("%Y-%m-%d"),
    }
    if Path(args.out).is_file():  # the readers' model fitted into it (--fit-on mr) stays
        prefer = json.loads(Path(args.out).read_text(encoding="utf-8")).get("prefer")
        if prefer is not None:
            weights["prefer"] = prefer
    Path(args.out).write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    Path(args.report).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for name, rows in (("judge alone", judge_curve), ("the judge rule", curve)):
        for r in (0.1, 0.15, 0.2, 0.25, 0.3):
            best = max((c for c in rows if c[2] >= r), key=lambda c: c[1], default=None)
            if best:
                print(f"{name}: CV precision at recall >= {r:.2f}: {best[1]:.3f} (threshold {best[0]:.3f})")
    print(f"AUC {report['cv_auc']}; threshold {threshold:.3f}: precision {at[1]:.3f}, recall {at[2]:.3f}")
    print(f"wrote {args.out} and {args.report}")


MR_READS = [
    REPO / "benchmarks" / "results" / name
    for name in (
        "patch_rule_tuning_train.csv",
        "encoder_judge_train_read_judged.csv",
        "judge_threshold_train100_read_judged.csv",
    )
]


def mr_pairs(paths):
    """``[(group, sentence, index, p1, p2, kept)]`` of MR *training* pairs read blind: the judged CSVs of
    ``patch_words.py score`` (kept by all readers) and the in-context rule's tuning table (kept by both strict
    readers, rows both read). ``group``: the sentence, for folds that never split one."""
    import pandas as pd

    out = []
    for path in paths:
        d = pd.read_csv(path)
        if "strict_reader_1" in d:
            d = d[d.strict_reader_1.notna() & d.strict_reader_2.notna()]
            kept = (d.strict_reader_1 == 1) & (d.strict_reader_2 == 1)
            out += [
                (f"{Path(path).stem}:{r.sent}", r.text, int(r.i), r.p1, r.p2, int(k))
                for (_, r), k in zip(d.iterrows(), kept)
            ]
        else:
            out += [
                (f"{Path(path).stem}:{r.victim}:{r.example}", r.text, int(r["index"]), r.p1, r.p2, int(r.all_readers))
                for _, r in d.iterrows()
            ]
    return out


def compute_mr_signals(args, names):
    """Signals of every MR pair of ``--mr-reads`` (the text holds ``p1`` or, for a vulnerable example's pair,
    ``p2`` at ``index``), written to ``--mr-signals-csv``."""
    import pandas as pd
    import torch
    from textattack.shared import AttackedText

    from textattack_secondorder.shared.text import swap_words_at

    torch.set_num_threads(args.threads)
    signals = judge_signals(args.threads)
    rows = []
    for group, text, i, p1, p2, kept in mr_pairs(args.mr_reads):
        x = AttackedText(text)
        if i < len(x.words) and x.words[i].lower() == str(p2).lower():
            x = swap_words_at(x, i, [p1])[0]
        if i >= len(x.words) or x.words[i].lower() != str(p1).lower():
            continue  # the text does not hold the pair where the read says
        values = signals.compute(x, [swap_words_at(x, i, [p2])[0]], names)[0]
        rows.append({"group": group, "p1": p1, "p2": p2, "kept": kept, **dict(zip(names, values))})
    pd.DataFrame(rows).to_csv(args.mr_signals_csv, index=False)


def fit_mr(args, names):
    """The judge's ``prefer`` model: a logistic regression fitted to the MR readers' verdicts (hard labels),
    written into the SWORDS judge's file ``--out`` (it picks the reported pair among those the SWORDS judge keeps);
    its cross-validated curve on them (5 folds grouped by sentence; also over the pairs a judge had chosen, the
    reads after the tuning table), what it would keep of SWORDS, and the report."""
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    frame = pd.read_csv(args.mr_signals_csv).dropna(subset=list(names))
    X, y, groups = frame[list(names)].to_numpy(float), frame.kept.to_numpy(int), frame.group.to_numpy()
    chosen = ~frame.group.str.startswith("patch_rule_tuning_train").to_numpy()

    def fitted(rows):
        mean, scale = X[rows].mean(0), X[rows].std(0) + 1e-9
        return mean, scale, LogisticRegression(C=args.C, max_iter=5000).fit((X[rows] - mean) / scale, y[rows])

    probs = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=5).split(X, y, groups):
        mean, scale, m = fitted(train)
        probs[test] = m.predict_proba((X[test] - mean) / scale)[:, 1]
    mean, scale, final = fitted(np.arange(len(y)))
    swords = pd.read_csv(args.signals_csv).dropna(subset=list(names))
    sw_probs = final.predict_proba((swords[list(names)].to_numpy(float) - mean) / scale)[:, 1]
    sw_curve = precision_recall(swords.acceptable.to_numpy(int), sw_probs)
    prefer = {
        **weights_block(names, mean, scale, final),
        "fitted_on": f"{len(y)} MR training pairs read blind ({int(y.sum())} kept by the readers), {len(set(groups))} "
        "sentences",
    }
    weights = json.loads(Path(args.out).read_text(encoding="utf-8"))  # the SWORDS judge it joins
    weights["prefer"] = prefer
    report = {
        "pairs": len(y),
        "sentences": len(set(groups)),
        "kept": int(y.sum()),
        "cv_auc": round(float(roc_auc_score(y, probs)), 3),
        "cv_auc_chosen_pairs": round(float(roc_auc_score(y[chosen], probs[chosen])), 3),
        "cv_chosen_pairs_at": [
            {
                "threshold": t,
                "kept_by_rule": int((probs[chosen] >= t).sum()),
                "of": int(chosen.sum()),
                "kept_by_readers": round(float(y[chosen][probs[chosen] >= t].mean()), 3),
            }
            for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
            if (probs[chosen] >= t).any()
        ],
        "swords_auc": round(float(roc_auc_score(swords.acceptable.to_numpy(int), sw_probs)), 3),
        "swords_curve": curve_rows(sw_curve),
        "coef": dict(zip(names, prefer["coef"])),
        "written": time.strftime("%Y-%m-%d"),
    }
    Path(args.out).write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    Path(args.report).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k not in ("swords_curve", "coef")}, indent=1))
    print(f"wrote {args.out} and {args.report}")


def main(argv=None):
    from textattack_secondorder.constraints.swap_signals import SIGNALS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--swords", help="swords-v1.1_dev.json.gz (to compute the SWORDS signals)")
    ap.add_argument("--signals-csv", default=str(REPO / "benchmarks" / "results" / "patch_judge_signals.csv"))
    ap.add_argument("--out", default=str(REPO / "data" / "patch_judge.json"))
    ap.add_argument("--report", help="default: benchmarks/results/patch_judge_fit.json (or _mr_fit.json)")
    ap.add_argument("--signals", nargs="+", default=list(SIGNALS), choices=SIGNALS)
    ap.add_argument("--precision", type=float, default=0.6, help="cross-validated precision the threshold reaches")
    ap.add_argument("--min-recall", type=float, default=0.0)
    ap.add_argument("--threshold", type=float, default=None, help="write this default threshold instead")
    ap.add_argument("--C", type=float, default=1.0, help="inverse L2 strength of the logistic regression")
    ap.add_argument("--every", type=int, default=1, help="signals of every N-th target only")
    ap.add_argument("--part", type=int, default=0, help="... starting at this one")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--fit-only", action="store_true", help="fit on the signals already computed")
    ap.add_argument("--fit-on", choices=("swords", "mr"), default="swords", help="whose verdicts the judge learns")
    ap.add_argument("--mr-reads", nargs="+", default=[str(p) for p in MR_READS], help="MR training reads (--fit-on mr)")
    ap.add_argument("--mr-signals-csv", default=str(REPO / "benchmarks" / "results" / "patch_judge_mr_signals.csv"))
    args = ap.parse_args(argv)
    name = "patch_judge_mr_fit.json" if args.fit_on == "mr" else "patch_judge_fit.json"
    args.report = args.report or str(REPO / "benchmarks" / "results" / name)
    if args.fit_on == "swords" and not args.fit_only and not args.swords:
        ap.error("--swords is needed to compute the SWORDS signals (or --fit-only)")
    if args.fit_on == "mr":
        if not args.fit_only:
            compute_mr_signals(args, SIGNALS)
        fit_mr(args, tuple(args.signals))
        return
    if not args.fit_only:
        compute_signals(args, SIGNALS)
    fit(args, tuple(args.signals))


if __name__ == "__main__":
    main()
