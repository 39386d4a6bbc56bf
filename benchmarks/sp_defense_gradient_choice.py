"""How harmful is the substitution SP-Defense's gradient augmentation picks? (docs/design/defenses.md)

For each of the first ``--sentences`` MR test sentences, the gradient augmentation's choice with
``candidates`` = 1 (the paper's Eq. 5 minimum), 8, 32, 128 (the K lowest first-order estimates
checked with a forward pass), and one random substitution from the same vocabulary; printed and
written as JSON: the share of correctly classified sentences whose prediction the substitution flips,
and the mean change of log f(y|x).

    python benchmarks/sp_defense_gradient_choice.py --model mr-cnn --sentences 300
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="mr-cnn")
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--candidates", type=int, nargs="+", default=[1, 8, 32, 128])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default=None, help="where the model runs (default: TextAttack's rule)")
    ap.add_argument("--out", default=str(RESULTS / "sp_defense_gradient_choice.json"))
    args = ap.parse_args(argv)

    import numpy as np
    import torch

    from textattack_secondorder.augmentation.sp_defense import (
        augmentation_vocabulary,
        gradient_augment,
        random_augment,
    )
    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.models.loading import load_model_wrapper
    from textattack_secondorder.models.token_classifier import TokenClassifier
    from textattack_secondorder.shared.files import atomic_write_text

    torch.set_num_threads(args.threads)
    clf = TokenClassifier.from_model_wrapper(load_model_wrapper(args.model, args.device), device=args.device)
    vocab = augmentation_vocabulary(clf, load_examples("mr", "train"))
    test = load_examples("mr", "test")[: args.sentences]
    texts, y = [t for t, _ in test], np.array([label for _, label in test])
    rows = np.arange(len(y))
    p0 = clf.predict_texts(texts)
    correct = p0.argmax(1) == y

    def measure(name, rewritten, seconds):
        p = clf.predict_texts(rewritten)
        row = {
            "choice": name,
            "flip_rate_of_correct": round(float(np.mean(p.argmax(1)[correct] != y[correct])), 4),
            "mean_delta_log_f_y": round(float(np.mean(np.log(p[rows, y]) - np.log(p0[rows, y]))), 4),
            "seconds": round(seconds, 2),
        }
        print(json.dumps(row), flush=True)
        return row

    results = []
    for k in args.candidates:
        t0 = time.perf_counter()
        out = gradient_augment(clf, texts, list(y), vocab, candidates=k)
        results.append(measure(f"gradient, candidates={k}", out, time.perf_counter() - t0))
    rng = random.Random(0)
    t0 = time.perf_counter()
    out = [random_augment(t, vocab[1], rng) for t in texts]
    results.append(measure("random", out, time.perf_counter() - t0))
    record = {
        "model": args.model,
        "sentences": len(texts),
        "correct": int(correct.sum()),
        "vocabulary": len(vocab[1]),
        "rows": results,
    }
    atomic_write_text(Path(args.out), json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
