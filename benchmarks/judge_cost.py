"""What the patch judge costs per candidate swap, by signal group (docs/design/patch-rules.md).

Times the judge's signals (:class:`~textattack_secondorder.constraints.swap_signals.SwapSignals`, on the models
the packaged judge was fitted with) on two checks of one MR-like sentence: one as so-beam makes it (a chunk of 8
candidates over 3 positions) and one as the SWORDS fit makes it (16 candidates of one position). Prints and
writes milliseconds per candidate for each group and in all. With ``--sentences N`` it also times the whole choice
of the patch pair (the judge rule, the demo CNN's favourites, the sure bar) on MR training sentences 401 to
400 + N and writes the pairs, so two checkouts can be compared on the same work:

    python benchmarks/judge_cost.py --threads 1 --out benchmarks/results/judge_cost_per_candidate.json
    python benchmarks/judge_cost.py --threads 1 --sentences 40 --out /tmp/now.json   # and in a checkout of REV

``--dtypes bfloat16 float32`` runs the whole report once per precision of the causal LM (Gemma-3-270M), side by side
in one process, and counts the sentences whose chosen pair differs (docs/design/offline-resources.md: bfloat16 is only
fast where the hardware computes it). Times are CPU seconds of the process (``time.process_time``), so a shared
machine's load changes them less than wall-clock ones.
"""

import argparse
import json
import time

import torch
from textattack.shared import AttackedText

from textattack_secondorder.constraints.swap_signals import CAUSAL, ENCODER, LEXICAL, MASKED
from textattack_secondorder.goal_functions.patch_rules import build_patch_rule
from textattack_secondorder.shared.files import atomic_write_text

SENTENCE = "the movie is a charming and often funny tale of friendship , though the ending drags on too long ."
CHECKS = {
    "an attack's check: 8 swaps at 3 positions": [
        (1, "film"), (1, "flick"), (1, "picture"), (4, "delightful"), (4, "lovely"), (4, "endearing"),
        (13, "conclusion"), (13, "finale"),
    ],
    "a SWORDS-like check: 16 swaps at 1 position": [
        (4, w)
        for w in "delightful lovely endearing sweet pleasant cute nice enchanting appealing adorable winsome "
        "engaging likeable attractive fetching captivating".split()
    ],
}  # fmt: skip


def choose_pairs(n, offset=400, causal_lm=None):
    """Seconds to choose the pair (:meth:`PatchWordSelector.select`, the judge rule) on MR training sentences
    ``offset + 1`` .. ``offset + n`` for the demo CNN (the first one warms up, untimed), and the pairs chosen."""
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.goal_functions.patch_words import PatchWordSelector
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.resources import load_synonyms

    rule = build_patch_rule("judge", causal_lm=causal_lm)
    selector = PatchWordSelector(load_victim("mr-cnn"), load_synonyms())
    texts = [AttackedText(t) for t, _ in load_mr("train")[offset : offset + n]]
    selector.select(texts[0], rule)
    start, pairs = time.process_time(), []
    for text in texts[1:]:
        pair, _ = selector.select(text, rule)
        pairs.append(str(pair) if pair is not None else None)
    return {"sentences": len(texts) - 1, "cpu_seconds": round(time.process_time() - start, 2), "pairs": pairs}


def report_for(args, causal_lm=None):
    """Milliseconds (CPU) per candidate of each signal group, and the pair choice with ``--sentences``."""
    signals = build_patch_rule("judge", device=args.device, causal_lm=causal_lm).constraints[-1].signals
    reference = AttackedText(SENTENCE)
    lm = signals.causal_lm
    report = {"sentence": SENTENCE, "threads": args.threads, "device": str(lm.device), "ms": {}}
    report["causal_lm_dtype"] = str(next(lm.model.parameters()).dtype).replace("torch.", "")
    for name, swaps in CHECKS.items():
        texts = [reference.replace_word_at_index(i, w) for i, w in swaps]
        row = {}
        for group, names in (("causal", CAUSAL), ("masked", MASKED), ("encoder", ENCODER), ("lexical", LEXICAL)):
            signals.compute(reference, texts, names)  # warm
            took = 0.0
            for _ in range(args.repeats):
                signals._known = (None, {})  # a first check of this sentence: none of its states projected yet
                start = time.process_time()
                signals.compute(reference, texts, names)
                took += time.process_time() - start
            row[group] = round(took / args.repeats / len(texts) * 1000, 1)
        row["all"] = round(sum(row.values()), 1)
        report["ms"][name] = row
        print(f"[{report['causal_lm_dtype']}] {name}: " + ", ".join(f"{k} {v} ms" for k, v in row.items()))
    if args.sentences:
        report["choice"] = choose_pairs(args.sentences, causal_lm=causal_lm)
        print(f"choosing the pair on {args.sentences} MR training sentences: {report['choice']['cpu_seconds']} CPU s")
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--device", default=None, help="where the judge's models run (default: TextAttack's device)")
    ap.add_argument("--sentences", type=int, default=0, help="also time choosing the pair on N MR training sentences")
    ap.add_argument(
        "--dtypes", nargs="*", help="the causal LM in each of these precisions, side by side (default: the slot's)"
    )
    ap.add_argument("--out", default="benchmarks/results/judge_cost_per_candidate.json")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    if not args.dtypes:
        report = report_for(args)
    else:
        from textattack_secondorder.resources.gemma import load_gemma
        from textattack_secondorder.resources.perplexity import CausalLMScorer
        from textattack_secondorder.shared.device import native_bfloat16, torch_dtype

        report = {"native_bfloat16": native_bfloat16(args.device), "cpu": torch.backends.cpu.get_cpu_capability()}
        for name in args.dtypes:
            lm = CausalLMScorer(*load_gemma(torch_dtype(name)), device=args.device)
            report[name] = report_for(args, causal_lm=lm)
        if args.sentences:
            first, *others = args.dtypes
            for name in others:
                pairs = zip(report[first]["choice"]["pairs"], report[name]["choice"]["pairs"])
                report[f"pairs_differ_{first}_{name}"] = sum(a != b for a, b in pairs)
    atomic_write_text(args.out, json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
