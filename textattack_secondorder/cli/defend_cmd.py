"""``textattack-so defend``: fine-tune a classifier with SP-Defense, Rand or A2T and save it; ``--compare``: every
defense side by side on the same sentences (docs/design/defenses.md)."""

from .common import add_cluster_args, add_dataset_args, add_model_args, non_negative_int, positive_int

# the comparison's defaults: sized so that the demo CNN, 3 seeds, fits in about 2 hours on 2 cores
# (docs/design/defenses.md)
COMPARE_SENTENCES = 100
COMPARE_KAPPA_SENTENCES = 200
COMPARE_RHO_SENTENCES = 40
COMPARE_SO_BEAM_SENTENCES = 10
COMPARE_SO_BEAM_RECIPE = "so-beam^query_budget=10000"


def _share(text):
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number between 0 and 0.9") from None
    if not 0 <= value <= 0.9:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: must be between 0 and 0.9")
    return value


def add_parser(subparsers):
    p = subparsers.add_parser(
        "defend",
        help="SP-Defense / Rand / A2T fine-tuning (saves a model TextAttack loads); --compare: every defense, "
        "measured side by side",
    )
    add_model_args(p)
    add_dataset_args(p, default_split="train")
    p.add_argument(
        "--defense",
        default="sp-defense",
        choices=["sp-defense", "rand", "a2t", "continue"],
        help="sp-defense (paper §5), rand (the Rand baseline), a2t (adversarial training with A2T's attack, "
        "Yoo & Qi 2021) or continue (same fine-tuning, original examples only)",
    )
    p.add_argument("--steps", type=positive_int, default=1000, help="fine-tuning batches (paper: 20k on BERT)")
    p.add_argument("--batch-size", type=positive_int, default=32)
    p.add_argument("--lr", type=float, default=None, help="learning rate (default 2e-5 transformers, 1e-3 word models)")
    add_embedding_args(p)
    p.add_argument(
        "--gradient-candidates",
        type=positive_int,
        default=None,
        help="gradient augmentation: check the K lowest first-order estimates with a forward pass each and "
        "apply the one that hurts most (default: 1, the paper's Eq. 5 minimum, on transformers; 32 on the "
        "word models; docs/design/defenses.md)",
    )
    p.add_argument(
        "--a2t-rounds",
        type=positive_int,
        default=None,
        help="a2t: adversarial sets made from the current model over the steps, after one clean epoch, each of "
        "20%% of the training rows (default 3, the epochs of Xu et al.'s A2T; TextAttack's Trainer makes one "
        "every epoch; docs/design/defenses.md)",
    )
    p.add_argument(
        "--test-dataset",
        default=None,
        metavar="CSV",
        help="rows to measure test accuracy on (default: the test split of a named data set; for a CSV "
        "--dataset, the --holdout-share of its rows, held out from this fine-tuning)",
    )
    p.add_argument(
        "--holdout-share",
        type=_share,
        default=0.1,
        help="share of a CSV --dataset held out (seeded, the same rows for every seed) for test accuracy when "
        "no --test-dataset is given (default 0.1; 0: none)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument(
        "--out",
        required=True,
        help="output model directory (use with `textattack attack --model OUT`); with --compare the "
        "comparison's directory",
    )
    c = p.add_argument_group(
        "comparison (--compare): train every defense, measure every model on the same sentences, write "
        "OUT/comparison.json, .md, .html; resumable (a re-run with the same --out reuses what is done). "
        f"Defaults: {COMPARE_SENTENCES} attacked test sentences, κ from {COMPARE_KAPPA_SENTENCES} others, ρ/ρ* on "
        f"{COMPARE_RHO_SENTENCES}: on the demo CNN with --jobs 2, 3 seeds and 3,000 steps about 2 hours on 2 "
        "CPU cores (docs/design/defenses.md); so-beam takes most of it. With --compare, --num-examples is the "
        "number of attacked sentences, and every training row is used"
    )
    c.add_argument(
        "--compare",
        default=None,
        metavar="LIST",
        help="defenses to compare, comma-separated, of vanilla,continue,rand,a2t,sp-defense",
    )
    c.add_argument("--seeds", type=positive_int, default=3, help="seeds 0..N-1 of every trained defense (default 3)")
    c.add_argument("--jobs", type=positive_int, default=1, help="models trained and measured at a time (processes)")
    c.add_argument("--kappa-sentences", type=positive_int, default=COMPARE_KAPPA_SENTENCES)
    c.add_argument("--rho-sentences", type=positive_int, default=COMPARE_RHO_SENTENCES)
    c.add_argument(
        "--so-beam-examples",
        type=positive_int,
        default=COMPARE_SO_BEAM_SENTENCES,
        help=f"so-beam on the first N attacked sentences (default {COMPARE_SO_BEAM_SENTENCES}: on 2 CPU cores a "
        "sentence costs it 10 s to minutes)",
    )
    c.add_argument("-m", type=positive_int, default=128, help="EUBA early stop for ρ, ρ*, κ (default 128)")
    c.add_argument(
        "--vocab-limit", type=non_negative_int, default=3000, help="first N vocabulary entries for ρ, ρ*, κ (0: all)"
    )
    c.add_argument(
        "--vocab-from",
        default=None,
        metavar="DATASET",
        help="κ, ρ, ρ*: only the vocabulary entries that occur in DATASET's training sentences (mr or a CSV, read "
        "with --text-column), before --vocab-limit; give your training CSV on a transformer, whose first entries "
        "are single characters and other scripts",
    )
    c.add_argument(
        "--sp-attack-recipe",
        default="sp-attack",
        help="SP-Attack as a recipe string, e.g. \"sp-attack^label_rule='paper'\" (κ of each model is added)",
    )
    c.add_argument("--textfooler-recipe", default="textfooler-offline")
    c.add_argument(
        "--so-beam-recipe",
        default=COMPARE_SO_BEAM_RECIPE,
        help=f"the second-order column (default {COMPARE_SO_BEAM_RECIPE!r}: so-beam's rules, the search stopped at "
        "10,000 victim queries a sentence instead of 50,000; a failed search costs minutes on a CPU, "
        "docs/design/defenses.md)",
    )
    add_cluster_args(p, unit="cells of --compare (a defense and a seed each)")
    p.set_defaults(func=run)


def add_embedding_args(parser):
    """``--freeze-embeddings`` / ``--train-embeddings`` into ``args.embeddings`` (``"default"`` when neither)."""
    emb = parser.add_mutually_exclusive_group()
    emb.add_argument(
        "--freeze-embeddings",
        dest="embeddings",
        action="store_const",
        const="freeze",
        default="default",
        help="keep the input embeddings fixed (default: docs/design/defenses.md)",
    )
    emb.add_argument(
        "--train-embeddings",
        dest="embeddings",
        action="store_const",
        const="train",
        help="train the input embeddings too, also where they were frozen in training (the default already)",
    )


def run(args):
    from ..shared.errors import UsageError

    if args.compare is not None:
        return run_compare(args)
    if args.ray is not None or args.workers is not None:
        raise UsageError("--ray and --workers run the cells of --compare; plain defend trains one model here")
    from ..defense.data import defense_data, screen_defense_rows
    from ..defense.defend import a2t_warning, defend_model
    from ..models.loading import load_model_wrapper
    from ..models.token_classifier import TokenClassifier
    from ..shared.inputs import write_skipped

    # the data first: a wrong column or file is one line before the model loads
    train, test, test_source = defense_data(
        args.dataset,
        args.split,
        args.text_column,
        args.label_column,
        args.num_examples,
        args.test_dataset,
        args.holdout_share,
    )
    model = load_model_wrapper(args.model, args.device, args.model_batch_size, args.dtype)
    purpose = {"sp-defense": "SP-Defense training", "rand": "Rand training", "a2t": "A2T's adversarial training"}
    # one line, exit code 2
    TokenClassifier.require_access(model, purpose.get(args.defense, "fine-tuning"), name=args.model)
    train, test, skipped = screen_defense_rows(train, test, model)
    info = {
        "base_model": args.model,
        "data": f"{args.dataset}:{args.split}",
        "test_data": test_source,
        "dtype": args.dtype,
        "rows skipped for bad input": len(skipped),
    }
    record = defend_model(
        model,
        train,
        test,
        args.out,
        defense=args.defense,
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        seed=args.seed,
        device=args.device,
        embeddings=args.embeddings,
        gradient_candidates=args.gradient_candidates,
        model_batch_size=args.model_batch_size,
        a2t_rounds=args.a2t_rounds,
        info=info,
    )
    write_skipped(skipped, f"{args.out}/skipped_rows.csv")
    before, after = record["test_accuracy_before"], record["test_accuracy_after"]
    print(
        f"{args.defense}: {args.steps} steps in {record['seconds']:.1f} s; test accuracy "
        f"{'n/a' if before is None else f'{before:.4f}'} -> {'n/a' if after is None else f'{after:.4f}'} "
        f"(on {test_source}); saved {args.out}"
    )
    if record.get("note"):  # what SP-Defense was measured to do on this kind of model (defense.json has it too)
        print(record["note"])
    if a2t_warning(record):  # A2T that found no adversarial example trained as `continue` does
        print(f"warning: {a2t_warning(record)}")
    return 0


def run_compare(args):
    from ..defense.comparison import parse_defenses, run_comparison
    from ..distributed import ClusterOptions
    from ..shared.errors import UsageError

    defenses = parse_defenses(args.compare)  # one line, exit 2, for an unknown name
    options = ClusterOptions.from_settings(vars(args))
    if options.num_shards:
        raise UsageError("--shards: defend --compare runs one cell (a defense and a seed) a shard")
    if options.distributed and args.jobs > 1:
        raise UsageError("--jobs runs cells in processes here; with --ray give --workers instead")
    settings = {
        "model": args.model,
        "dataset": args.dataset,
        "split": args.split,
        "text_column": args.text_column,
        "label_column": args.label_column,
        "test_dataset": args.test_dataset,
        "holdout_share": args.holdout_share,
        "train_examples": None,
        "steps": args.steps,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "embeddings": args.embeddings,
        "gradient_candidates": args.gradient_candidates,
        "a2t_rounds": args.a2t_rounds,
        "num_attacked": args.num_examples or COMPARE_SENTENCES,
        "num_kappa": args.kappa_sentences,
        "num_rho": args.rho_sentences,
        "num_so_beam": args.so_beam_examples,
        "m": args.m,
        "vocab_limit": args.vocab_limit,
        "vocab_from": args.vocab_from,
        "sp_attack_recipe": args.sp_attack_recipe,
        "textfooler_recipe": args.textfooler_recipe,
        "so_beam_recipe": args.so_beam_recipe,
        "device": args.device,
        "model_batch_size": args.model_batch_size,
    }
    run_comparison(settings, defenses, list(range(args.seeds)), args.out, jobs=args.jobs, options=options)
    print(open(f"{args.out}/comparison.md", encoding="utf-8").read())
    print(f"wrote {args.out}/comparison.json, comparison.md, comparison.html")
    return 0
