"""SP-Defense evaluation (Xu et al., Table 5/9 layout): vanilla vs Rand vs SP-Defense, side by side.

For each victim: fine-tune a copy with ``--defense rand`` and with ``sp-defense`` (same steps and seed), then
report clean test accuracy, ρ (EUBA m on ``--rho-sentences`` training sentences), ρ* (same on test sentences),
SP-Attack ASR (κ recomputed on each model) and textfooler-offline ASR / ASR1 on ``--attack-examples`` test
sentences, plus training seconds.

    python benchmarks/sp_defense.py --victims mr-cnn --steps 600 --threads 1
    python benchmarks/sp_defense.py --victims mr-minilm --steps 300 --lr 5e-5 --rho-sentences 10 --m 128 \
        --vocab-limit 1500 --attack-examples 20 --out benchmarks/results/sp_defense_minilm.json --threads 1

Writes benchmarks/results/sp_defense.json; rows already in ``--out`` for the same victim, model and
settings are kept and skipped, so an interrupted run resumes.
"""
import argparse
import copy
import json
import random
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victims", nargs="+", default=["mr-cnn"])
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--lr", type=float, default=None, help="default: 2e-5 transformers, 1e-3 word models")
    ap.add_argument("--freeze-embeddings", action="store_true")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--rho-sentences", type=int, default=100)
    ap.add_argument("--attack-examples", type=int, default=30)
    ap.add_argument("--m", type=int, default=512)
    ap.add_argument("--vocab-limit", type=int, default=None,
                    help="first N vocabulary entries for rho, rho* and SP-Attack's kappa (CPU runs on transformers)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(RESULTS / "sp_defense.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    import numpy as np
    import textattack

    import textattack_secondorder
    from textattack_secondorder.attack_recipes import SPAttack, TextFoolerOffline
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.defense.training import train_defense
    from textattack_secondorder.evaluation.flip_capability import compute_flip_capability
    from textattack_secondorder.metrics.asr1 import ASR1
    from textattack_secondorder.models.token_classifier import TokenClassifier
    from textattack_secondorder.models import load_victim
    from textattack_secondorder.shared.files import atomic_write_text

    textattack_secondorder.register()
    train, test = load_mr("train"), load_mr("test")
    rng = random.Random(args.seed)
    rho_train = rng.sample(train, args.rho_sentences)
    rho_test = rng.sample(test, args.rho_sentences)
    attack_set = random.Random(args.seed + 1).sample(test, args.attack_examples)
    out = Path(args.out)
    def run_settings(s):  # what the rows depend on
        return {k: v for k, v in s.items() if k not in ("victims", "out", "threads")}

    old = json.loads(out.read_text()) if out.exists() else {}
    rows = old.get("rows", []) if run_settings(old.get("settings", {})) == run_settings(vars(args)) else []

    def attack(recipe, model, **kw):
        a = recipe.build(model, **kw)
        res = textattack.Attacker(a, textattack.datasets.Dataset(attack_set), textattack.AttackArgs(
            num_examples=len(attack_set), silent=True, disable_stdout=True, random_seed=args.seed)).attack_dataset()
        done = [r for r in res if type(r).__name__ in ("SuccessfulAttackResult", "FailedAttackResult")]
        ok = sum(type(r).__name__ == "SuccessfulAttackResult" for r in done)
        return round(100.0 * ok / max(len(done), 1), 1), ASR1().calculate(res)

    for victim in args.victims:
        print(f"{victim}: vanilla, rand, sp-defense ...", flush=True)
        base = load_victim(victim)
        for defense in ("vanilla", "rand", "sp-defense"):
            if any(r["victim"] == victim and r["model"] == defense for r in rows):
                continue
            model = base if defense == "vanilla" else copy.deepcopy(base)
            secs = 0.0
            if defense != "vanilla":
                secs = train_defense(model, train, steps=args.steps, batch_size=args.batch_size, defense=defense,
                                     seed=args.seed, lr=args.lr, train_embeddings=not args.freeze_embeddings)
            probs = TokenClassifier.from_model_wrapper(model).predict_texts([t for t, _ in test])
            acc = float(np.mean(probs.argmax(1) == np.array([y for _, y in test])))
            rho = compute_flip_capability(model, rho_train, m=args.m, progress=False, vocab_limit=args.vocab_limit)
            rho_star = compute_flip_capability(model, rho_test, m=args.m, progress=False, vocab_limit=args.vocab_limit)
            sp_asr, _ = attack(SPAttack, model, kappa=rho)
            tf_asr, tf_asr1 = attack(TextFoolerOffline, model)
            rows.append({"victim": victim, "model": defense, "train_seconds": round(secs, 1),
                         "accuracy": round(100 * acc, 2), "rho": round(100 * rho.rho, 2),
                         "rho_star": round(100 * rho_star.rho, 2), "sp_attack_ASR": sp_asr,
                         "textfooler_ASR": tf_asr, "textfooler_ASR1": tf_asr1})
            print(json.dumps(rows[-1]), flush=True)
            atomic_write_text(args.out, json.dumps({"settings": vars(args), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
