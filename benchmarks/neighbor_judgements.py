"""How many vulnerable candidates the natural rule's causal LM may judge per sentence (docs/design/neighbours.md).

Runs so-beam with the default rules on a seeded slice of MR *training* sentences, once per variant of
(``neighbor_lm_max_scored``, candidates judged per round), the variants taking turns on each sentence, and
prints attacked, vulnerable found, words changed and seconds per variant (JSON with ``--out``).

    python benchmarks/neighbor_judgements.py --victim mr-cnn --offset 60 --num-examples 30
"""

import argparse
import json
import random
import time

import torch

import textattack_secondorder.goal_functions.second_order as goal
from textattack_secondorder.attack_recipes import SOBeam
from textattack_secondorder.datasets.mr import load_mr
from textattack_secondorder.models.victims import load_victim

VARIANTS = {"24 per sentence, 2 per round": (24, 2), "96, 2": (96, 2), "96, 8": (96, 8)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victim", default="mr-cnn")
    ap.add_argument("--offset", type=int, default=60, help="skip this many of the training split's seeded sample")
    ap.add_argument("--num-examples", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    pool = load_mr("train")
    sentences = random.Random(0).sample(pool, args.offset + args.num_examples)[args.offset :]
    model = load_victim(args.victim)
    attacks = {k: SOBeam.build(model, neighbor_lm_max_scored=cap) for k, (cap, _) in VARIANTS.items()}
    stats = {k: {"attacked": 0, "vulnerable": 0, "words": 0, "seconds": 0.0} for k in VARIANTS}
    for text, label in sentences:
        for k, (_, per_round) in VARIANTS.items():
            goal.NATURAL_CHUNK = per_round  # the goal function reads it per call
            t0 = time.perf_counter()
            result = attacks[k].attack(text, label)
            seconds = time.perf_counter() - t0
            kind = type(result).__name__
            if kind == "SkippedAttackResult":
                continue
            s = stats[k]
            s["attacked"] += 1
            s["seconds"] += seconds
            if kind == "SuccessfulAttackResult":
                s["vulnerable"] += 1
                after, before = result.perturbed_result.attacked_text, result.original_result.attacked_text
                s["words"] += len(after.all_words_diff(before))
    for k, s in stats.items():
        print(
            f"{k:32s} attacked {s['attacked']:3d}  vulnerable {s['vulnerable']:3d}  words {s['words']:3d}  "
            f"seconds {s['seconds']:.1f}"
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(
                {
                    "victim": args.victim,
                    "offset": args.offset,
                    "num_examples": args.num_examples,
                    "variants": {k: dict(zip(("max_scored", "per_round"), v)) | stats[k] for k, v in VARIANTS.items()},
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
