"""``textattack-so certify``: certified accuracy of a word victim under every combination of synonym swaps."""

from .common import add_dataset_args, add_device_args, positive_int


def add_parser(subparsers):
    p = subparsers.add_parser(
        "certify",
        help="certified accuracy: the sentences no combination of synonym swaps can flip (interval bounds)",
        description="For each sentence, prove with interval bound propagation (Jia et al. 2019) that every "
        "sentence made by keeping each word or swapping it for one of its neighbours in the synonym list "
        "keeps the model's prediction (docs/design/certified.md). Works on the package's word victims (mr-cnn, "
        "mr-bow, mr-lstm and their -ibp versions); a base model certifies few sentences. Writes "
        '{"summary": {"n", "accuracy", "certified_accuracy", ...}, "examples": [...]} to --out.',
    )
    p.add_argument("--model", required=True, help="a word victim: a demo victim name, its folder, or file.py")
    add_device_args(p, dtype=False)  # the bounds are computed in float32
    p.add_argument("--model-batch-size", type=positive_int, default=64, help="sentences per bound computation")
    add_dataset_args(p)
    p.add_argument(
        "--synonyms",
        default=None,
        help="word->synonyms JSON of the perturbation set (default: the synonyms slot, the packaged "
        "counter-fitted list that alzantot-offline and the patch words use)",
    )
    p.add_argument("--out", required=True, help="output JSON")
    p.set_defaults(func=run)


def run(args):
    import json
    from pathlib import Path

    from ..datasets.examples import load_examples
    from ..models.ibp.bounds import check_boundable
    from ..models.ibp.certification import certify
    from ..models.loading import load_model_wrapper
    from ..models.probe import screen_rows
    from ..resources.synonyms import SynonymList
    from ..shared.errors import UsageError
    from ..shared.files import atomic_write_text
    from ..shared.inputs import write_skipped

    synonyms = SynonymList(args.synonyms)  # a bad list is one line before anything loads
    try:
        wrapper = load_model_wrapper(args.model, args.device, args.model_batch_size, "float32")
    except (ValueError, FileNotFoundError, OSError) as e:
        raise UsageError(f"cannot load --model {args.model!r}: {e}") from None
    model, tokenizer = getattr(wrapper, "model", None), getattr(wrapper, "tokenizer", None)
    check_boundable(model, name=args.model)  # a transformer: one line, exit code 2
    examples = load_examples(args.dataset, args.split, args.text_column, args.label_column, args.num_examples)
    if examples and all(label is None for _, label in examples):
        raise UsageError(f"certify needs labelled examples: {args.dataset} has no {args.label_column!r} column")
    examples, skipped = screen_rows(examples, wrapper)
    write_skipped(skipped, Path(args.out).with_suffix(".skipped.csv"))
    if not examples:
        raise UsageError(f"no usable examples in {args.dataset} (split {args.split})")
    result = certify(model.float(), tokenizer, examples, synonyms, batch_size=args.model_batch_size)
    result["summary"].update({"model": args.model, "dataset": args.dataset, "split": args.split})
    result["summary"]["rows skipped for bad input"] = len(skipped)
    atomic_write_text(args.out, json.dumps(result, indent=2) + "\n")
    s = result["summary"]
    print(
        f"{args.model}: accuracy {100 * s['accuracy']:.1f} %, certified accuracy {100 * s['certified_accuracy']:.1f} % "
        f"({s['n']} sentences; certified, right or wrong: {100 * s['certified']:.1f} %; "
        f"{1000 * s['seconds_per_example']:.1f} ms a sentence)"
    )
    print(f"wrote {args.out}")
    return 0
