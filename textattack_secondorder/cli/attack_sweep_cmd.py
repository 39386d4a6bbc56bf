"""``textattack-so attack-sweep``: every recipe against every model on one dataset, sharded, resumable, on Ray."""

from ..shared.specs import MODEL_SPEC_HELP
from .common import add_cluster_args, add_dataset_args, add_device_args, non_negative_int, positive_int


def add_parser(subparsers):
    p = subparsers.add_parser(
        "attack-sweep",
        help="attack a dataset with several recipes against several models (sharded; --ray for a cluster)",
        description="Run every --recipes recipe (ours, with NAME^params, or TextAttack's) against every --models "
        "model on the same examples. Each example is attacked by TextAttack's Attacker with seed --random-seed + "
        "its row, so a sharded or Ray run equals a single run row for row. Writes OUT/<model>__<recipe>.csv, "
        "OUT/summary.csv/.json (success rate, words, queries, ASR1, the recipe's rows); finished shards are kept "
        "in OUT/shards and a re-run resumes.",
    )
    p.add_argument("--models", nargs="+", required=True, help="victims, each in --model form: " + MODEL_SPEC_HELP)
    p.add_argument(
        "--recipes", nargs="+", required=True, help="attack recipes (so-beam, sp-attack^kappa=F, textfooler, ...)"
    )
    add_device_args(p, dtype=False)
    p.add_argument("--model-batch-size", type=positive_int, default=64, help="texts per model call")
    add_dataset_args(p)
    p.set_defaults(num_examples=100)
    p.add_argument(
        "--random-seed", type=non_negative_int, default=765, help="seed of example i is this + i (TextAttack: 765)"
    )
    p.add_argument("--query-budget", type=positive_int, default=None, help="model queries per attacked example")
    p.add_argument("--out", default="results/sweep", help="output folder")
    add_cluster_args(p, unit="examples of each (model, recipe) cell")
    p.set_defaults(func=run)


def run(args):
    import pandas as pd

    from ..attack_recipes.build import checked_recipe
    from ..datasets.examples import load_examples
    from ..distributed import ClusterOptions
    from ..metrics import asr1
    from ..models.loading import load_model_wrapper
    from ..models.probe import screen_rows
    from ..plugin.extensions import extend_textattack
    from ..shared.inputs import write_skipped
    from ..sweeps import run_attack_sweep

    extend_textattack()  # our CSV columns and summary rows in the attacks run here, also with the import hook off
    recipes = [checked_recipe(r) for r in args.recipes]
    examples = load_examples(
        args.dataset, args.split, args.text_column, args.label_column, args.num_examples, labelled=True
    )
    # one probe of the first model: rows no model could take are skipped once, for every cell
    examples, skipped = screen_rows(examples, load_model_wrapper(args.models[0], args.device, args.model_batch_size))
    table, stats = run_attack_sweep(
        args.models,
        recipes,
        examples,
        args.out,
        ClusterOptions.from_settings(vars(args)),
        seed=args.random_seed,
        query_budget=args.query_budget,
        device=args.device,
        batch_size=args.model_batch_size,
        metrics={asr1.ROW: asr1.ASR1()},
    )
    write_skipped(skipped, f"{args.out}/skipped_rows.csv")
    with pd.option_context("display.width", 160, "display.max_columns", 30):
        print(table.to_string(index=False))
    print(f"\n{stats.num_shards} shards: {stats.computed} computed, {stats.reused} reused (from {args.out}/shards)")
    print(f"wrote {args.out}/summary.csv, summary.json and one CSV per (model, recipe)")
    return 0
