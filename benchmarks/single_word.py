"""Single-word perturbation benchmark (Xu et al.): κ/ρ by EUBA vs brute force, SP-Attack vs multi-word attacks.

One run, same victims, same sentences:

1. ρ on ``--kappa-sentences`` training sentences by EUBA (m = 128, 512, 2048) and by
   brute force: ρ, queries per sentence, seconds per sentence. ``--vocab-limit`` keeps
   the first N vocabulary entries for *both* methods when brute force over the full
   vocabulary is too slow for the machine (stated in the output).
2. Attacks on ``--attack-examples`` test sentences: ``sp-attack`` (κ from EUBA m = 512 on
   the training sentences, full vocabulary), ``textfooler-offline`` and ``bae-offline``
   (TextAttack's recipes with this package's offline resources in the hub slots):
   ASR, ASR1 (one-word successes), queries per attacked example, seconds per example.

    python benchmarks/single_word.py --victims mr-cnn mr-minilm --kappa-sentences 100 --attack-examples 100

Writes benchmarks/results/single_word.json (resumable: finished parts are skipped).
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def attack_stats(results, seconds):
    """This benchmark's columns of :func:`baselines.attack_stats` (one computation for both benchmarks)."""
    from baselines import attack_stats as stats

    s = stats(results, seconds)
    return {
        "attacked": s["attacked"],
        "ASR": s["success_%"],
        "ASR1": s["ASR1_%"],
        "queries_per_example": s["queries"],
        "seconds_per_example": s["s_per_example"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victims", nargs="+", default=["mr-cnn", "mr-minilm"])
    ap.add_argument("--kappa-sentences", type=int, default=100)
    ap.add_argument("--attack-examples", type=int, default=100)
    ap.add_argument("--ms", nargs="+", type=int, default=[128, 512, 2048])
    ap.add_argument("--vocab-limit", type=int, default=None)
    ap.add_argument("--skip-brute", action="store_true")
    ap.add_argument("--recipes", nargs="+", default=["sp-attack", "textfooler-offline", "bae-offline"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (1 is fastest on a shared machine)")
    ap.add_argument("--out", default=str(RESULTS / "single_word.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    import textattack

    import textattack_secondorder
    from textattack_secondorder.attack_recipes.build import attack_recipes
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.evaluation.flip_capability import compute_flip_capability
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.shared.files import atomic_write_text

    textattack_secondorder.register()
    out = Path(args.out)
    state = json.loads(out.read_text()) if out.exists() else {"kappa": [], "attacks": []}
    save = lambda: atomic_write_text(out, json.dumps(state, indent=2, default=float) + "\n")  # noqa: E731
    rng = random.Random(args.seed)
    train = rng.sample(load_mr("train"), args.kappa_sentences)
    test = random.Random(args.seed + 1).sample(load_mr("test"), args.attack_examples)

    for victim in args.victims:
        model = load_victim(victim)
        kappa = None
        runs = [("euba", m) for m in args.ms] + ([] if args.skip_brute else [("brute", None)])
        for method, m in runs:
            key = {"victim": victim, "method": method, "m": m, "vocab_limit": args.vocab_limit, "sentences": len(train)}
            if any(all(r.get(k) == v for k, v in key.items()) for r in state["kappa"]):
                continue
            res = compute_flip_capability(model, train, method=method, m=m, vocab_limit=args.vocab_limit)
            if method == "euba" and m == 512 and not args.vocab_limit:
                kappa = res  # the κ SP-Attack uses below
            s = res.summary()
            state["kappa"].append(
                {
                    **key,
                    "rho": round(100 * s["rho"], 2),
                    "correct": s["correct"],
                    "vocabulary": s["vocabulary"],
                    "queries_per_sentence": round(s["queries_per_sentence"], 1),
                    "seconds_per_sentence": round(s["seconds_per_sentence"], 3),
                }
            )
            save()
            print(json.dumps(state["kappa"][-1]), flush=True)
        for recipe in args.recipes:
            key = {"victim": victim, "recipe": recipe, "examples": len(test)}
            if any(all(r.get(k) == v for k, v in key.items()) for r in state["attacks"]):
                continue
            params = {}
            if recipe == "sp-attack":
                if kappa is None:
                    kappa = compute_flip_capability(model, train, method="euba", m=512)
                params["kappa"] = kappa
            attack = attack_recipes()[recipe].build(model, **params)
            t0 = time.perf_counter()
            results = textattack.Attacker(
                attack,
                textattack.datasets.Dataset(test),
                textattack.AttackArgs(num_examples=len(test), silent=True, disable_stdout=True, random_seed=args.seed),
            ).attack_dataset()
            state["attacks"].append({**key, **attack_stats(results, time.perf_counter() - t0)})
            save()
            print(json.dumps(state["attacks"][-1]), flush=True)

    import pandas as pd

    print(pd.DataFrame(state["kappa"]).to_string(index=False))
    print(pd.DataFrame(state["attacks"]).to_string(index=False))


if __name__ == "__main__":
    sys.exit(main())
