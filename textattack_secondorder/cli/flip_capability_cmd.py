"""``textattack-so flip-capability``: κ of every word and ρ of a classifier (Xu et al.; EUBA or brute force)."""

from pathlib import Path

from .common import add_cluster_args, add_dataset_args, add_model_args, non_negative_int, positive_int


def add_parser(subparsers):
    p = subparsers.add_parser(
        "flip-capability",
        help="flip capability κ of every word and robustness ρ (EUBA or --exact brute force)",
        description="Compute κ(w) for every all-letter vocabulary word and ρ = 1 − mean κ on the correctly "
        "classified examples (ρ on a train sample, ρ* on test). Writes JSON + CSV (reload with "
        "FlipCapabilityResult.load) and a κ histogram; finished shards and the progress of a running one are "
        "kept in OUT.shards/, and an interrupted run resumes from there.",
    )
    add_model_args(p)
    add_dataset_args(p, default_split="train")
    p.set_defaults(num_examples=1000)
    p.add_argument(
        "--early-stop",
        "-m",
        type=non_negative_int,
        default=512,
        help="EUBA: stop after m consecutive failed verifications (paper: 512); 0 = unbounded (exact)",
    )
    p.add_argument("--exact", action="store_true", help="brute force: every word at every position")
    p.add_argument("--vocab-limit", type=positive_int, default=None, help="only the first N vocabulary entries")
    p.add_argument(
        "--vocab-from",
        default=None,
        metavar="DATASET",
        help="only the vocabulary entries that occur in DATASET's training sentences (mr or a CSV), before "
        "--vocab-limit (a transformer's first entries are single characters and other scripts)",
    )
    p.add_argument("--top", type=non_negative_int, default=20, help="top words to print")
    p.add_argument("--out", default=None, help="output JSON (default results/kappa_<model>_<split>.json)")
    add_cluster_args(p)
    p.set_defaults(func=run)


def run(args):
    from ..datasets.examples import load_examples
    from ..distributed import ClusterOptions
    from ..evaluation.flip_capability import compute_flip_capability, format_summary
    from ..models.loading import load_model_wrapper
    from ..models.probe import screen_rows
    from ..models.token_classifier import TokenClassifier
    from ..shared.inputs import write_skipped

    # the data first: a wrong column or file is one line before the model loads
    examples = load_examples(
        args.dataset, args.split, args.text_column, args.label_column, args.num_examples, labelled=True
    )
    model = load_model_wrapper(args.model, args.device, args.model_batch_size, args.dtype)
    TokenClassifier.require_access(model, "flip capability κ/ρ", name=args.model)  # one line, exit code 2
    examples, skipped = screen_rows(examples, model)
    name = Path(args.model.split("^")[0]).stem or args.model
    out = Path(args.out or f"results/kappa_{name}_{args.split}.json")
    method = "brute" if args.exact else "euba"
    m = None if args.early_stop == 0 else args.early_stop
    settings = {
        "model": args.model,
        "data": f"{args.dataset}:{args.split}[:{len(examples) + len(skipped)}]",
        # the data set itself, for SP-Attack's label rule (its default label_data: the data κ was computed on)
        "dataset": args.dataset,
        "rows skipped for bad input": len(skipped),
    }
    folder = out.with_suffix(".shards")
    options = ClusterOptions.from_settings(vars(args))
    # the one path (docs/design/sharding.md): shards in this process, one after another, or on Ray; finished
    # shards and the progress of a running one are kept in OUT.shards/ and reused by a re-run
    result = compute_flip_capability(
        model,
        examples,
        method=method,
        m=m,
        batch_size=args.model_batch_size,
        device=args.device,
        options=options,
        folder=folder,
        model_spec=args.model,
        vocab_limit=args.vocab_limit,
        settings=settings,
        dtype=args.dtype,
        vocab_from=args.vocab_from,
    )
    stats = result.stats
    if options.sharded or stats.reused or stats.continued:
        print(
            f"{stats.num_shards} shards: {stats.computed} computed ({stats.continued} continued from saved "
            f"progress), {stats.reused} reused from {folder}"
        )
    write_skipped(skipped, out.with_suffix(".skipped.csv"))
    result.save(out)
    result.plot_histogram(out.with_suffix(".png"))
    star = "*" if args.split == "test" else ""
    print(format_summary(result, method, star=star, top=args.top))
    print(f"wrote {out}, {out.with_suffix('.csv')}, {out.with_suffix('.png')}")
    return 0
