"""First-order baselines offline, beside their published strength (docs/design/offline-resources.md).

One run, same victims, same MR test sentences: ``textfooler-offline``, ``bae-offline``,
``alzantot-offline`` (and optionally ``sp-attack``) on each victim, every recipe that
takes swap candidates from the ``synonyms`` slot once per synonym list given with
``--synonyms LABEL=PATH`` (``packaged`` = the slot's offline default). Per row: attack
success rate, ASR1, average perturbed-word %, queries and seconds per attacked example.

    python benchmarks/baselines.py --threads 1 \\
        --synonyms packaged= paper=../shared/data/counterfitted_neighbors.json previous=OLD.json

The published figures printed beside the table are those of Jin et al. (2020, Table 3,
TextFooler on MR). Writes benchmarks/results/baselines.json and .csv (resumable: a
finished (victim, recipe, list) row is kept).
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
SYNONYM_RECIPES = {"textfooler-offline", "alzantot-offline"}
PUBLISHED = {
    # Jin et al. (2020), Table 3, MR: accuracy after TextFooler of about 3 % for the
    # word-CNN and word-LSTM (from about 78-81 %), i.e. attack success of about 96 %.
    ("mr-cnn", "textfooler-offline"): "Jin et al. 2020: ~96 % success (accuracy ~78 % -> ~3 %)",
    ("mr-lstm", "textfooler-offline"): "Jin et al. 2020: ~96 % success (accuracy ~81 % -> ~3 %)",
}


def attack_stats(results, seconds):
    from textattack.attack_results import FailedAttackResult, SkippedAttackResult, SuccessfulAttackResult

    from textattack_secondorder.metrics.asr1 import ASR1

    attacked = [r for r in results if isinstance(r, (SuccessfulAttackResult, FailedAttackResult))]
    succ = [r for r in attacked if isinstance(r, SuccessfulAttackResult)]
    words = []
    for r in succ:
        n = len(r.original_result.attacked_text.words)
        changed = len(r.original_result.attacked_text.all_words_diff(r.perturbed_result.attacked_text))
        words.append(100.0 * changed / max(n, 1))
    return {
        "attacked": len(attacked),
        "skipped": sum(isinstance(r, SkippedAttackResult) for r in results),
        "success_%": round(100.0 * len(succ) / max(len(attacked), 1), 1),
        "ASR1_%": ASR1().calculate(results),
        "perturbed_words_%": round(sum(words) / max(len(words), 1), 1),
        "queries": round(sum(r.num_queries for r in attacked) / max(len(attacked), 1), 1),
        "s_per_example": round(seconds / max(len(attacked), 1), 3),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victims", nargs="+", default=["mr-cnn", "mr-lstm", "mr-bow", "mr-minilm"])
    ap.add_argument("--recipes", nargs="+", default=["textfooler-offline", "bae-offline", "alzantot-offline"])
    ap.add_argument(
        "--synonyms",
        nargs="+",
        default=["packaged="],
        help="LABEL=PATH synonym lists to run the list-based recipes with (PATH empty: the slot default)",
    )
    ap.add_argument("--examples", type=int, default=100, help="MR test sentences per victim")
    ap.add_argument(
        "--examples-for",
        nargs="*",
        default=["mr-minilm=30"],
        help="VICTIM=N or RECIPE=N: fewer sentences for a slow victim or recipe",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (1 is fastest on a shared machine)")
    ap.add_argument("--out", default=str(RESULTS / "baselines.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    import pandas as pd
    import textattack

    import textattack_secondorder
    from textattack_secondorder.attack_recipes.build import attack_recipes
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.models.victims import load_victim
    from textattack_secondorder.shared.files import atomic_write_text

    textattack_secondorder.register()
    lists = dict(s.split("=", 1) for s in args.synonyms)
    fewer = {k: int(v) for k, v in (s.split("=", 1) for s in args.examples_for)}
    test = random.Random(args.seed + 1).sample(load_mr("test"), args.examples)
    out = Path(args.out)
    state = json.loads(out.read_text()) if out.exists() else {"rows": []}

    def save():
        atomic_write_text(out, json.dumps(state, indent=2) + "\n")
        pd.DataFrame(state["rows"]).to_csv(out.with_suffix(".csv"), index=False)

    for victim in args.victims:
        model = load_victim(victim)
        for recipe in args.recipes:
            variants = lists.items() if recipe in SYNONYM_RECIPES else [("n/a", None)]
            n = min(fewer.get(victim, args.examples), fewer.get(recipe, args.examples))
            for label, path in variants:
                key = {"victim": victim, "recipe": recipe, "synonyms": label, "examples": n}
                if any(all(r.get(k) == v for k, v in key.items()) for r in state["rows"]):
                    continue
                params = {"synonyms": path} if path else {}
                attack = attack_recipes()[recipe].build(model, **params)
                t0 = time.perf_counter()
                results = textattack.Attacker(
                    attack,
                    textattack.datasets.Dataset(test[:n]),
                    textattack.AttackArgs(num_examples=n, silent=True, disable_stdout=True, random_seed=args.seed),
                ).attack_dataset()
                row = {
                    **key,
                    **attack_stats(results, time.perf_counter() - t0),
                    "published": PUBLISHED.get((victim, recipe), ""),
                }
                state["rows"].append(row)
                save()
                print(json.dumps(row), flush=True)
    print(pd.DataFrame(state["rows"]).drop(columns=["published"]).to_string(index=False))
    for (victim, recipe), text in PUBLISHED.items():
        print(f"{victim} {recipe}: {text}")


if __name__ == "__main__":
    sys.exit(main())
