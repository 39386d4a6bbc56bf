"""``textattack-so defend``: fine-tune a classifier with SP-Defense (or the Rand baseline) and save it."""

from .common import add_dataset_args, add_model_args, non_negative_int, positive_int


def add_parser(subparsers):
    p = subparsers.add_parser(
        "defend", help="SP-Defense (or --defense rand) fine-tuning; saves a model TextAttack loads"
    )
    add_model_args(p)
    add_dataset_args(p, default_split="train")
    p.add_argument(
        "--defense",
        default="sp-defense",
        choices=["sp-defense", "rand", "continue"],
        help="sp-defense (paper §5), rand (the Rand baseline) or continue (same fine-tuning, original examples only)",
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
        "word models; docs/methods.md §2.4)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--out", required=True, help="output model directory (use with `textattack attack --model OUT`)")
    p.set_defaults(func=run)


def add_embedding_args(parser):
    """``--freeze-embeddings`` / ``--train-embeddings`` into ``args.embeddings`` (also benchmarks/sp_defense.py)."""
    emb = parser.add_mutually_exclusive_group()
    emb.add_argument(
        "--freeze-embeddings",
        dest="embeddings",
        action="store_const",
        const="freeze",
        default="train",
        help="keep the input embeddings fixed (default: train them, as the paper fine-tunes every weight; "
        "on the demo CNN freezing them weakens SP-Defense: docs/methods.md §2.4)",
    )
    emb.add_argument(
        "--train-embeddings",
        dest="embeddings",
        action="store_const",
        const="train",
        help="train the input embeddings too, also where they were frozen in training (the default)",
    )


def run(args):
    import numpy as np

    from ..augmentation.gradient import default_gradient_candidates
    from ..datasets.examples import load_examples
    from ..defense import save_model, train_defense
    from ..defense.training import _default_lr
    from ..models.loading import load_model_wrapper
    from ..models.probe import screen_rows
    from ..models.token_classifier import TokenClassifier
    from ..shared.inputs import write_skipped

    # the data first: a wrong column or file is one line before the model loads
    train = load_examples(
        args.dataset, args.split, args.text_column, args.label_column, args.num_examples, labelled=True
    )
    model = load_model_wrapper(args.model, args.device, args.model_batch_size, args.dtype)
    TokenClassifier.require_access(model, "SP-Defense training", name=args.model)  # one line, exit code 2
    train, skipped = screen_rows(train, model)
    test = load_examples(args.dataset, "test") if args.dataset == "mr" else None

    def acc():
        if not test:
            return None
        probs = TokenClassifier.from_model_wrapper(model, device=args.device).predict_texts([t for t, _ in test])
        return float(np.mean(probs.argmax(1) == np.array([y for _, y in test])))

    candidates = args.gradient_candidates or default_gradient_candidates(model.model)
    before = acc()
    history = []
    seconds = train_defense(
        model,
        train,
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        defense=args.defense,
        seed=args.seed,
        device=args.device,
        train_embeddings=args.embeddings != "freeze",
        history=history,
        gradient_candidates=candidates,
        model_batch_size=args.model_batch_size,
    )
    after = acc()
    info = {
        "base_model": args.model,
        "defense": args.defense,
        "steps": args.steps,
        "batch_size": args.batch_size,
        "seed": args.seed,
        "lr": args.lr or _default_lr(model.model),
        "schedule": "linear decay to 0",
        "embeddings": args.embeddings,
        "train_embeddings": bool(model.model.get_input_embeddings().weight.requires_grad),
        "gradient_candidates": candidates,
        "data": f"{args.dataset}:{args.split}",
        "seconds": seconds,
        "device": str(next(model.model.parameters()).device),
        "dtype": args.dtype,
        "test_accuracy_before": before,
        "test_accuracy_after": after,
        "training_loss_per_50_steps": history,
        "training examples": len(train),
        "rows skipped for bad input": len(skipped),
    }
    save_model(model, args.out, info)
    write_skipped(skipped, f"{args.out}/skipped_rows.csv")
    print(
        f"{args.defense}: {args.steps} steps in {seconds:.1f} s; test accuracy "
        f"{'n/a' if before is None else f'{before:.4f}'} -> {'n/a' if after is None else f'{after:.4f}'}; "
        f"saved {args.out}"
    )
    return 0
