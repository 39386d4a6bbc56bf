"""How much textfooler-offline's sentence-encoder threshold rejects (docs/design/offline-resources.md).

TextFooler's threshold (angular similarity 0.8408 in a 15-word window) was set for the
Universal Sentence Encoder; offline the ``sentence_encoder`` slot gives all-MiniLM-L6-v2.
On the same MR test sentences this measures (1) the share of single-word swaps from the
``synonyms`` slot that the constraint accepts at several thresholds, and (2) the attack
with the constraint on and off: success, perturbed words, queries.

    python benchmarks/encoder_threshold.py --threads 1

Writes benchmarks/results/encoder_threshold.json.
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victim", default="mr-cnn")
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--thresholds", nargs="+", type=float, default=[0.7, 0.8, 0.840845057, 0.9, 0.95])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", default=str(RESULTS / "encoder_threshold.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    import numpy as np
    import textattack
    from textattack.shared import AttackedText

    import textattack_secondorder
    from baselines import attack_stats
    from textattack_secondorder.attack_recipes.build import attack_recipes
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.resources import load_synonyms, sentence_encoder_constraint
    from textattack_secondorder.shared.files import atomic_write_text
    from textattack_secondorder.transformations.word_swap_synonym_list import WordSwapSynonymList

    textattack_secondorder.register()
    test = random.Random(args.seed + 1).sample(load_mr("test"), args.examples)
    swap = WordSwapSynonymList(load_synonyms(), max_candidates=50)
    encoder = sentence_encoder_constraint(
        None,
        threshold=0.0,
        metric="angular",
        compare_against_original=False,
        window_size=15,
        skip_text_shorter_than_window=True,
    )
    sims = []
    for text, _ in test:
        original = AttackedText(text)
        candidates = swap(original)
        if candidates:  # the window scores the constraint compares with its threshold
            sims.extend(encoder._score_list(original, candidates).tolist())
    sims = np.array(sims)
    result = {
        "victim": args.victim,
        "sentences": len(test),
        "single_swaps": int(sims.size),
        "accepted_share": {f"{t:.4f}": round(float((sims >= t).mean()), 4) for t in args.thresholds},
        "similarity_quantiles": {q: round(float(np.quantile(sims, q)), 4) for q in (0.05, 0.25, 0.5)},
        "attacks": [],
    }
    model = load_victim(args.victim)
    for use in (True, False):
        attack = attack_recipes()["textfooler-offline"].build(model, use_sentence_encoder=use)
        t0 = time.perf_counter()
        results = textattack.Attacker(
            attack,
            textattack.datasets.Dataset(test),
            textattack.AttackArgs(num_examples=len(test), silent=True, disable_stdout=True, random_seed=args.seed),
        ).attack_dataset()
        result["attacks"].append({"use_sentence_encoder": use, **attack_stats(results, time.perf_counter() - t0)})
        print(json.dumps(result["attacks"][-1]), flush=True)
    atomic_write_text(Path(args.out), json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "attacks"}, indent=2))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
