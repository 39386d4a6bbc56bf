"""``textattack-so bias``: counterfactual token bias B_{p,k} over natural neighbourhoods (Zhang et al. 2021, §4)."""

from .common import add_cluster_args, add_dataset_args, add_model_args, non_negative_int, positive_int

DEFAULT_TARGET = 1  # --target-class: the positive class of a two-class sentiment model
SMALL = 5e-4  # |B| below this is printed with its significant digits: +0.0000 would read as no change


def signed(value):
    """A difference of probabilities as the table prints it: four decimals, a small one with its significant digits
    (``+3.1e-05``: "+0.0000" and "-0.0000" would read as nothing measured), an exact zero as ``0``."""
    if value != value:
        return "n/a"
    if value == 0:
        return "0"
    return f"{value:+.1e}" if abs(value) < SMALL else f"{value:+.4f}"


def levels_line(table):
    """What the rows of each level are: k = 0 the test sentences themselves, k >= 1 their neighbourhoods."""
    line = (
        "k = 0: the test sentences holding a word of the pair ('sources'), each in both versions: the naive\n"
        "measurement; k >= 1: sentences of their natural neighbourhoods, k words changed"
    )
    small = table[(table["B"].abs() < SMALL) & (table["ci_low"].abs() < SMALL) & (table["ci_high"].abs() < SMALL)]
    if len(small):
        line += (
            f"\n{len(small)} of {len(table)} rows move the class probability by less than {SMALL:g} either way "
            "(interval included):\non these sentences the model hardly tells the pair's words apart"
        )
    return line


def add_parser(subparsers):
    p = subparsers.add_parser(
        "bias",
        help="counterfactual token bias B_{p,k} (he/she, ...) on a test set and its neighbourhoods",
        description="Measure B_{p,k} = mean f_soft(x ⊕ p) − f_soft(x) for protected pairs on the test set (k = 0) "
        "and its masked-LM neighbourhoods (k = 1..max-k), with bootstrap intervals; writes a table, a per-sentence "
        "CSV and PNG plots to --out. Re-running with the same settings resumes finished pairs.",
    )
    add_model_args(p)
    add_dataset_args(p)
    p.add_argument(
        "--pairs",
        default="gender",
        help="group(s) (gender, nationality, religion, sexual_orientation), pairs like 'he/she,gay/straight', "
        "or a JSON file {group: [[p1, p2], ...]}; comma-separated",
    )
    p.add_argument("--max-k", type=positive_int, default=3, help="largest neighbourhood level (paper: 3)")
    p.add_argument(
        "--sample-size", type=positive_int, default=2000, help="sentences sampled at levels >= --sample-from-k"
    )
    p.add_argument(
        "--sample-from-k",
        type=positive_int,
        default=2,
        help="first sampled level (paper §4.2.1 samples large levels; levels below it are exact)",
    )
    p.add_argument(
        "--sample-masks",
        type=non_negative_int,
        default=400,
        help="(sentence of level k-1, position) slots masked and filled at a sampled level k, drawn "
        "uniformly (0: every slot)",
    )
    p.add_argument(
        "--filter-epsilon",
        type=float,
        default=None,
        help="filtered test set: keep sources whose naive |difference| <= epsilon (paper §4.2)",
    )
    p.add_argument(
        "--neutralize",
        action="store_true",
        help="gender pairs: rewrite the sentence's other gendered pronouns to they/them instead of swapping them",
    )
    p.add_argument(
        "--keep-pronouns",
        action="store_true",
        help="gender pairs: swap the pair's word alone (the paper's swap; 'He ... his' becomes 'She ... his'); by "
        "default the sentence's other gendered pronouns are swapped with it ('She ... her'; 'her' becomes his or him "
        "by its part of speech)",
    )
    p.add_argument(
        "--target-class",
        default=None,
        metavar="CLASS",
        help="class whose probability is compared: a class number or one of the model's label names "
        "(its config.id2label, any case); default 1",
    )
    p.add_argument("--masked-lm", default=None, help="masked-LM slot value (default: the slot's default)")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--bootstrap", type=positive_int, default=1000, help="bootstrap resamples for the intervals")
    p.add_argument("--out", default="results/bias", help="output folder")
    add_cluster_args(p, unit="protected pairs (one shard per pair by default)")
    p.set_defaults(func=run)


def run(args):
    import pandas as pd

    from ..datasets.examples import load_examples
    from ..distributed import ClusterOptions
    from ..evaluation.bias import CounterfactualBias, pair_sources, parse_pairs
    from ..evaluation.bias.target import resolve_target_class
    from ..models.loading import load_model_wrapper
    from ..models.probe import screen_rows
    from ..shared.errors import UsageError
    from ..shared.inputs import bad_text_reason, write_skipped
    from ..shared.label_names import target_text
    from ..transformations.neighborhood import WordSwapNeighborhood

    # the data first: a wrong column or file is one line before the model loads
    examples = load_examples(args.dataset, args.split, args.text_column, args.label_column, args.num_examples)
    pairs = parse_pairs(args.pairs)
    # B_{p,k} grows from the sentences holding one word of the pair exactly once: say so when none does
    texts = [t for t, _ in examples if not bad_text_reason(t)]
    unheld = [f"{p1}/{p2}" for p1, p2, _ in pairs if not pair_sources(texts, p1, p2)]
    shown = ", ".join(unheld[:8]) + (f" and {len(unheld) - 8} more" if len(unheld) > 8 else "")
    if len(unheld) == len(pairs):
        raise UsageError(
            f"none of the {len(texts)} sentences holds a word of the pair{'s' if len(pairs) > 1 else ''} "
            f"{shown} (one of the two words, exactly once, is what B_{{p,k}} swaps): nothing to measure; "
            "give sentences that mention them, or other --pairs"
        )
    if unheld:
        print(f"not measured (no sentence holds one of their words exactly once): {shown}")
    model = load_model_wrapper(args.model, args.device, args.model_batch_size, args.dtype)
    # a name the model does not have is one line, exit 2, before any work
    target, names = resolve_target_class(DEFAULT_TARGET if args.target_class is None else args.target_class, model)
    target_shown = target_text(target, names)
    if args.target_class is None:
        choices = f" (a class number or one of: {', '.join(names)})" if names else ""
        print(f"B_{{p,k}} compares the probability of class {target_shown}, the default --target-class{choices}")
    else:
        print(f"B_{{p,k}} compares the probability of class {target_shown}")
    good, skipped = screen_rows(examples, model, labelled=False)
    texts = [t for t, _ in good]
    settings = dict(
        target_class=target,
        max_k=args.max_k,
        sample_size=args.sample_size,
        sample_from_k=args.sample_from_k,
        sample_masks=args.sample_masks,
        filter_epsilon=args.filter_epsilon,
        neutralize_pronouns=args.neutralize,
        swap_pronouns=not args.keep_pronouns,
        batch_size=args.model_batch_size,
        seed=args.seed,
        n_boot=args.bootstrap,
    )
    neighborhood = WordSwapNeighborhood(args.masked_lm, device=args.device)
    neighborhood.proposer.batch_size = args.model_batch_size  # --model-batch-size reaches the masked LM too
    bias = CounterfactualBias(model, neighborhood, **settings)
    report = bias.run(
        texts,
        args.pairs,
        out_dir=args.out,
        options=ClusterOptions.from_settings(vars(args)),
        model_spec=args.model,
        masked_lm=args.masked_lm,
        device=args.device,
    )
    write_skipped(skipped, f"{args.out}/skipped_rows.csv")
    if len(report.table):
        print(f"B_{{p,k}}: change in the probability of class {target_shown}")
        with pd.option_context("display.width", 140, "display.max_rows", 500):
            shown = report.table.copy()
            for column in ("B", "ci_low", "ci_high"):
                shown[column] = shown[column].map(signed)
            print(shown.to_string(index=False))
        print(levels_line(report.table))
    else:  # e.g. --filter-epsilon kept no source
        print("no B_{p,k} measured: no source sentence was left for any pair")
    print("\ncounts (#original at k=0, #perturbed at k=max):")
    for pair, c in report.counts.items():
        print(f"  {pair:24s} {c['original']:6d} {c['perturbed']:8d}")
    print(f"\nrows skipped for bad input: {len(skipped)}")
    print(f"wrote {args.out}/bias_table.csv, bias_sentences.csv, bias_summary.json, hist_k.png, bias_vs_k.png")
    return 0
