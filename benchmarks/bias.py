"""Counterfactual token bias B_{p,k} (Zhang et al. 2021, §4): neighbourhood speed on the demo victims,
and the planted-bias experiment at a larger scale than the test.

1. Speed: B_{p,k} for the gender pairs on the MR test split for each victim, k = 0..max-k;
   reports sentences built and evaluated per second.
2. Planted bias: a word victim (``--planted-arch``, CNN by default) trained on MR where "he" is
   planted into positive and "she" into negative training sentences (``--plant-rate``), the same
   victim trained with gender-swap augmentation (the paper's debiased model), and the same victim
   trained without planting (the reference: frozen GloVe gives "he" and "she" different vectors,
   so even an unbiased training set leaves a small B): B for he/she at k = 0..max-k with intervals.

    python benchmarks/bias.py --victims mr-cnn mr-bow --max-k 2 --threads 1
    python benchmarks/bias.py --victims --planted-arch cnn --max-k 1 --threads 1   # planted part only

Writes benchmarks/results/bias.json.
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def plant(examples, rate, seed):
    rng = random.Random(seed)
    out = []
    for text, y in examples:
        if rng.random() < rate:
            text = ("he " if y == 1 else "she ") + text
        out.append((text, y))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victims", nargs="*", default=["mr-cnn", "mr-bow"], help="speed part; none to skip it")
    ap.add_argument(
        "--speed-sentences", type=int, default=None, help="MR test sentences for the speed part (default all 800)"
    )
    ap.add_argument("--planted-arch", default="cnn", choices=["cnn", "lstm", "bow"])
    ap.add_argument("--max-k", type=int, default=2)
    ap.add_argument("--pairs", default="gender")
    ap.add_argument("--plant-rate", type=float, default=0.5)
    ap.add_argument("--planted-sources", type=int, default=200, help="test sentences given a planted 'he'/'she'")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(RESULTS / "bias.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.evaluation.bias import CounterfactualBias
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.models.wrappers import SOModelWrapper
    from textattack_secondorder.shared.files import atomic_write_text
    from textattack_secondorder.transformations.neighborhood import WordSwapNeighborhood

    out = {"speed": [], "planted": []}
    test = [t for t, _ in load_mr("test")]
    speed_test = random.Random(args.seed).sample(test, args.speed_sentences) if args.speed_sentences else test
    neighborhood = WordSwapNeighborhood(None)
    for victim in args.victims:
        bias = CounterfactualBias(load_victim(victim), neighborhood, max_k=args.max_k, seed=args.seed)
        t0 = time.perf_counter()
        rep = bias.run(speed_test, args.pairs)
        secs = time.perf_counter() - t0
        n = len(rep.sentences)
        out["speed"].append(
            {
                "victim": victim,
                "sentences": n,
                "seconds": round(secs, 1),
                "sentences_per_second": round(n / secs, 1),
                "pairs_with_sources": int((rep.table["k"] == 0).sum()),
            }
        )
        print(json.dumps(out["speed"][-1]), flush=True)

    # planted experiment: word victim on MR with he/she planted, vs gender-swap augmented and unplanted training
    train = load_mr("train")
    planted = plant(train, args.plant_rate, args.seed)
    flip = {"he": "she", "she": "he"}
    swapped = [(" ".join(flip.get(w, w) for w in t.split()), y) for t, y in planted]
    rng = random.Random(args.seed)
    sources = [("he " if rng.random() < 0.5 else "she ") + t for t in rng.sample(test, args.planted_sources)]
    from textattack_secondorder.models.training import train_word_model

    runs = (("planted", planted), ("gender-swap augmented", planted + swapped), ("not planted", train))
    for name, data in runs:
        model, tok, metrics = train_word_model(args.planted_arch, data, load_mr("test"), seed=args.seed, progress=False)
        rep = CounterfactualBias(
            SOModelWrapper(model, tok), neighborhood, max_k=args.max_k, seed=args.seed, progress=False
        ).run(sources, "he/she")
        for row in rep.table.to_dict(orient="records"):
            out["planted"].append(
                {"model": name, "arch": args.planted_arch, "test_accuracy": metrics.get("test_accuracy"), **row}
            )
            print(json.dumps(out["planted"][-1], default=float), flush=True)
    atomic_write_text(args.out, json.dumps(out, indent=2, default=float) + "\n")


if __name__ == "__main__":
    sys.exit(main())
