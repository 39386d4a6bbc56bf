"""Command line of textattack-secondorder (``textattack-so`` / ``python -m textattack_secondorder``).

Each sub-command lives in its own module of this package and exposes
``add_parser(subparsers)``, which registers an ``argparse`` sub-parser whose
``func`` default runs the command. ``SUBCOMMANDS`` lists them, in the order of ``--help``.

This is the one place that decides what the command line costs at start-up. A command module
imports at its top only what its parser needs: the standard library, :mod:`.common` and the
help texts and names of :mod:`..shared.specs` (which imports nothing). The library is imported
in one block at the start of the function that runs the command (``run``, or a step it calls).
So building the parsers (``textattack-so --help``) imports no library module, neither torch nor
TextAttack, and the library modules import what they use at their top.
"""

import argparse
import sys

from ..shared.errors import UserError
from . import (
    attack_sweep_cmd,
    augment_cmd,
    bias_cmd,
    certify_cmd,
    check_cmd,
    defend_cmd,
    flip_capability_cmd,
    meaning_cmd,
    recipes_cmd,
    resources_cmd,
    review_cmd,
    robustness_cmd,
    textattack_passthrough,
    victims_cmd,
)


class OneLineParser(argparse.ArgumentParser):
    """Argument parser whose errors are one line on stderr (exit code 2), without the usage block."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


# the module of each sub-command group
SUBCOMMANDS = [
    textattack_passthrough,  # attack / augment / list ... through the stock TextAttack CLI
    recipes_cmd,  # recipes: our attack recipes, their parameters and defaults
    resources_cmd,  # resources: what each slot resolves to
    victims_cmd,  # train-victims / data
    certify_cmd,  # certify: certified accuracy under every combination of synonym swaps (interval bounds)
    bias_cmd,  # bias: counterfactual token bias B_{p,k}
    flip_capability_cmd,  # flip-capability: kappa / rho (EUBA, brute force)
    meaning_cmd,  # meaning: source chrF / target RDchrF / success % (Michel et al. 2019)
    review_cmd,  # review: a sheet to read a run's findings by hand; --score: accepted findings per 100 attacked
    robustness_cmd,  # robustness: accuracy on perturbed sets and the RB-index (FlagEval)
    augment_cmd,  # sp-augment: label-aware SP-Defense augmentation of a CSV
    defend_cmd,  # defend: SP-Defense / Rand fine-tuning
    attack_sweep_cmd,  # attack-sweep: models x recipes x dataset, sharded, on Ray with --ray
    check_cmd,  # check: the robustness gate (TOML config of checks and thresholds; exit 0/1/2)
]


def build_parser():
    parser = OneLineParser(
        prog="textattack-so",
        description="textattack-secondorder: second-order and single-word attacks, metrics and defenses "
        "for TextAttack. `attack`, `augment` and `list` run the stock TextAttack commands with this "
        "package's recipes registered.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(sub)
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        parser.print_help()
        return 0
    args, rest = parser.parse_known_args(argv)
    if getattr(args, "accepts_rest", False):
        args.rest = rest
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    try:
        result = args.func(args)
    except UserError as e:  # a bad parameter, resource, victim, configuration or cluster: one line, exit code 2
        print(f"textattack-so {args.command}: error: {e}", file=sys.stderr)
        return 2
    return 0 if result is None else int(result)
