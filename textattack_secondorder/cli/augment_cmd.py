"""``textattack-so sp-augment``: label-aware SP-Defense augmentation of a CSV, losing nothing.

Unlike ``textattack augment`` (no labels; writes with quotechar "/" and strips
every "/"), this keeps the label and every other column and writes texts with
quotes, "/", commas, newlines and non-ASCII characters unchanged.

Rows are screened first (docs/design/hostile-input.md): a bad text, a label that is not a class number
(outside the model's classes when ``--model`` is given) or a duplicate row is written once,
unchanged, with its reason in ``skip_reason``, and never augmented.
"""

import csv
import os

from ..shared.errors import UsageError
from .common import add_device_args, non_negative_int, positive_int


def add_parser(subparsers):
    p = subparsers.add_parser("sp-augment", help="SP-Defense augmentation of a labelled CSV (keeps every column)")
    p.add_argument("--input-csv", required=True)
    p.add_argument("--output-csv", required=True)
    p.add_argument("--text-column", default="text")
    p.add_argument(
        "--label-column",
        default=None,
        help="label column: class numbers or the model's label names (default: 'label' when the CSV has one; "
        "'' = none: use the model's prediction)",
    )
    p.add_argument("--mode", default="mix", help="mix (training mix), gradient, random, special")
    p.add_argument("--model", default=None, help="victim for gradient augmentation (name, dir or file)")
    add_device_args(p)
    p.add_argument("--model-batch-size", type=positive_int, default=64, help="rows per model forward pass")
    p.add_argument("--special-words", default=None, help="saved T(y) table (JSON); built from this CSV if omitted")
    p.add_argument("--transformations-per-example", type=positive_int, default=1)
    p.add_argument("--exclude-original", action="store_true")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--overwrite", action="store_true")
    p.set_defaults(func=run)


def run(args):
    import pandas as pd
    from tqdm.auto import tqdm

    from ..augmentation.sp_defense import SPDefenseAugmenter, special_word_table
    from ..datasets.examples import read_csv_columns
    from ..models.loading import load_model_wrapper
    from ..models.probe import screen_rows
    from ..shared.files import atomic_write_text

    if os.path.exists(args.output_csv) and not args.overwrite:
        raise UsageError(f"{args.output_csv} exists; pass --overwrite")
    # a label column the user named must be there; the default 'label' only when the CSV has one
    df = read_csv_columns(args.input_csv, args.text_column, args.label_column, labelled=bool(args.label_column))
    label_column = "label" if args.label_column is None else args.label_column
    has_label = bool(label_column) and label_column in df.columns
    labels = df[label_column].tolist() if has_label else [None] * len(df)
    model = None
    if args.model:
        model = load_model_wrapper(args.model, args.device, args.model_batch_size, args.dtype)
    good, skipped = screen_rows(
        list(zip(df[args.text_column].tolist(), labels)), model, labelled=has_label, indexed=True
    )
    skipped = {i: reason for i, _, _, reason in skipped}
    examples = [(t, y) for _, t, y in good]
    special = args.special_words
    if special is None and has_label and args.mode in ("mix", "special"):
        special = special_word_table(examples)
    try:
        aug = SPDefenseAugmenter(args.mode, model=model, special_words=special, seed=args.seed, device=args.device)
    except ValueError as e:  # a mode without what it needs (a model, a special-word table): one line, exit code 2
        raise UsageError(str(e)) from None
    rows = []
    augmented = {}
    for _ in tqdm(range(args.transformations_per_example), desc="sp-augment passes"):
        batch = aug.augment_examples(examples) if examples else []
        skipped.update({good[j][0]: reason for j, reason in getattr(aug, "skip_reasons", {}).items()})
        for (i, _, _), done in zip(good, batch):
            augmented.setdefault(i, []).append(done)
    for i, row in enumerate(df.to_dict(orient="records")):
        if i in skipped:  # bad input (docs/design/hostile-input.md): kept as it is, with the reason
            rows.append(dict(row, augmentation="original", skip_reason=skipped[i]))
            continue
        if not args.exclude_original:
            rows.append(dict(row, augmentation="original", skip_reason=""))
        for text, _, mode in augmented.get(i, []):
            rows.append(dict(row, **{args.text_column: text, "augmentation": mode, "skip_reason": ""}))
    out = pd.DataFrame(rows, columns=list(df.columns) + ["augmentation", "skip_reason"])
    atomic_write_text(args.output_csv, out.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC))
    print(f"wrote {len(out)} rows ({len(df)} inputs, mode {aug.mode}) to {args.output_csv}")
    if skipped:
        print(f"skipped {len(skipped)} row(s) for bad input (kept unchanged, reason in column skip_reason)")
    return 0
