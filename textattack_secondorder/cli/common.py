"""Shared command-line arguments: the victim model and the texts, named the way TextAttack users name them.

Argument parsing only: the help texts and names come from :mod:`..shared.specs`, which imports nothing.
"""

import argparse

from ..shared.specs import DATASET_SPEC_HELP, DTYPES, MODEL_SPEC_HELP


def add_model_args(parser):
    parser.add_argument("--model", required=True, help=MODEL_SPEC_HELP)
    add_device_args(parser)
    parser.add_argument("--model-batch-size", type=positive_int, default=64, help="texts per model call")


def add_device_args(parser, dtype=True):
    """``--device`` (where the model, its batches and gradients live) and ``--dtype`` (its precision)."""
    parser.add_argument(
        "--device", default=None, help="cpu, cuda, cuda:1 ... (default: TextAttack's rule: CUDA when there is one)"
    )
    if dtype:
        parser.add_argument(
            "--dtype",
            default="float32",
            choices=DTYPES,
            help="precision of the model (default float32, also for a checkpoint saved in half precision)",
        )


def add_dataset_args(parser, default_split="test"):
    parser.add_argument("--dataset", default="mr", help=DATASET_SPEC_HELP)
    parser.add_argument("--split", default=default_split, help="split of a named dataset (train/test)")
    parser.add_argument("--text-column", default="text", help="CSV column holding the text")
    parser.add_argument("--label-column", default="label", help="CSV column holding the label")
    parser.add_argument("--num-examples", type=positive_int, default=None, help="use the first N examples (N >= 1)")


def _int_at_least(lowest):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not allowed: must be a whole number >= {lowest}") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"{value} is not allowed: must be a whole number >= {lowest}")
        return value

    parse.__name__ = f"int >= {lowest}"
    return parse


non_negative_int = _int_at_least(0)
positive_int = _int_at_least(1)


def add_cluster_args(parser, unit="examples", overrides=None):
    """``--ray [ADDRESS]``, ``--shards N`` and the worker placement flags (docs/design/sharding.md), as the
    :data:`~..shared.specs.CLUSTER_FLAGS` of ``args`` (``ClusterOptions.from_settings(vars(args))`` reads
    them). ``overrides``: the name of a table the flags override (``check``: the config's
    ``[run]``); then a flag not given is None and the table's value (or its default) stands."""
    title = "cluster (pip install 'textattack-secondorder[ray]')"
    g = parser.add_argument_group(title if overrides is None else f"{title}; override the {overrides}")
    default = (lambda value: value) if overrides is None else (lambda value: None)
    g.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="run the shards on Ray: no value starts a local Ray instance on this machine's cores; "
        "'auto' or HOST:PORT joins a running cluster",
    )
    g.add_argument(
        "--shards",
        type=positive_int,
        default=None,
        help=f"cut the {unit} into N shards, each saved as it finishes (a re-run skips finished "
        "shards); default with --ray: see docs/design/sharding.md",
    )
    g.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="Ray actors (default: the cluster's CPUs / --threads-per-worker)",
    )
    g.add_argument(
        "--threads-per-worker", type=positive_int, default=default(1), help="torch threads (Ray CPUs) per actor (1)"
    )
    g.add_argument(
        "--gpus-per-worker", type=float, default=default(0.0), help="GPUs per actor (e.g. 1, or 0.5 to share; 0)"
    )
