"""``textattack-so attack|augment|list|...``: the stock TextAttack CLI with our recipes registered.

A fallback for environments where the start-up hook is switched off
(``TEXTATTACK_SECONDORDER_NO_HOOK=1``) or the ``.pth`` file was not installed.
``textattack-so attack --asr1 ...`` adds the ASR1 row (Xu et al.) to the summary; ``textattack-so attack
--help`` ends with our recipes, their parameters and how to pass them (:mod:`.recipes_cmd`).
"""

import sys

from .recipes_cmd import describe

TEXTATTACK_COMMANDS = (
    "attack",
    "attack-resume",
    "augment",
    "benchmark-recipe",
    "eval",
    "list",
    "peek-dataset",
    "train",
)


def add_parser(subparsers):
    for name in TEXTATTACK_COMMANDS:
        p = subparsers.add_parser(
            name,
            help=f"run `textattack {name} ...` with textattack-secondorder's recipes registered",
            add_help=False,
        )
        p.set_defaults(func=run, textattack_command=name, accepts_rest=True)


def run(args):
    from .. import register

    register()  # imports TextAttack with our NLTK data in place, also with the hook off; then adds our recipes
    # TextAttack's command line and our parts that import TextAttack: after register()
    from textattack.commands.textattack_cli import main as textattack_main

    from ..attack_recipes.build import attack_recipes
    from ..metrics.asr1 import ASR1, ROW
    from ..plugin.extensions import EXTRA_METRICS

    if "--asr1" in args.rest:
        # ASR1 (Xu et al.): success rate counting only one-word adversarial examples
        args.rest = [a for a in args.rest if a != "--asr1"]
        EXTRA_METRICS[ROW] = ASR1()
    argv = sys.argv
    sys.argv = ["textattack", args.textattack_command, *args.rest]
    try:
        textattack_main()
    except SystemExit as e:
        if args.textattack_command == "attack" and {"-h", "--help"} & set(args.rest):
            print("\n" + describe(attack_recipes()))  # after TextAttack's own help: what we add
        raise SystemExit(e.code) from None
    finally:
        sys.argv = argv
