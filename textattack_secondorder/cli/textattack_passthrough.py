"""``textattack-so attack|augment|list|...``: the stock TextAttack CLI with our recipes registered.

A fallback for environments where the start-up hook is switched off
(``TEXTATTACK_SECONDORDER_NO_HOOK=1``) or the ``.pth`` file was not installed.
``textattack-so attack --asr1 ...`` adds the ASR1 row (Xu et al.) to the summary (``--asr1-label-rule RULE``: a
one-word success counts only when the label rule keeps it, docs/design/single-word.md; ``--asr1-label-data DATA``: the
training sentences its label lean is read from, by default those of the recipe's ``label_data`` or of its κ, as
SP-Attack's ``label_data`` does, else the data set the model's folder records; never the movie reviews unasked);
``textattack-so attack
--help`` ends with our recipes, their parameters and how to pass them (:mod:`.recipes_cmd`).
"""

import sys

from ..shared.errors import UsageError
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
    from ..metrics.label_rule import ROW as LABEL_ROW
    from ..metrics.label_rule import RuleName
    from ..plugin.extensions import EXTRA_METRICS

    rule = _asr1_label_rule(args)
    if "--asr1" in args.rest or rule is not None:
        # ASR1 (Xu et al.): success rate counting only one-word adversarial examples (kept by the label rule)
        args.rest = [a for a in args.rest if a != "--asr1"]
        EXTRA_METRICS[ROW] = ASR1(label_rule=rule)
        if rule is not None:
            EXTRA_METRICS[LABEL_ROW] = RuleName(rule)
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


def _option(args, flag):
    """The value after ``flag`` in ``args.rest`` (removed from it with its flag); None when absent."""
    if flag not in args.rest:
        return None
    at = args.rest.index(flag)
    if at + 1 >= len(args.rest) or args.rest[at + 1].startswith("--"):
        raise UsageError(f"{flag} needs a value")
    value = args.rest[at + 1]
    del args.rest[at : at + 2]
    return value


def _recipe_label_data(rest):
    """``(data, origin)`` of the attack's recipe string (``--recipe "sp-attack^..."``): its ``label_data``, else the
    data its saved κ was computed on, else its ``kappa_dataset``; ``(None, None)`` when it names none."""
    from ..shared.recipe_params import SPLIT, parse_recipe_params

    recipe = next((rest[i + 1] for i, a in enumerate(rest[:-1]) if a in ("--recipe", "--attack-recipe")), "")
    try:
        params = parse_recipe_params(recipe.partition(SPLIT)[2])
    except ValueError:
        return None, None  # TextAttack's own check says what is wrong with it
    if isinstance(params.get("label_data"), str):
        return params["label_data"], "the recipe's label_data"
    if isinstance(params.get("kappa"), str):
        from ..evaluation.flip_capability import FlipCapabilityResult

        try:
            data = FlipCapabilityResult.load(params["kappa"]).data_source()
        except (OSError, ValueError):
            data = None
        if data:
            return data, "the data κ was computed on"
    if isinstance(params.get("kappa_dataset"), str):
        return params["kappa_dataset"], "the data κ was computed on"
    return None, None


def _asr1_label_rule(args):
    """The label rule ``--asr1-label-rule NAME [--asr1-label-data DATA]`` names (None without the flag): its data is
    the flag's, else the recipe's (:func:`_recipe_label_data`), else read from the model when the attack starts
    (:class:`~..metrics.asr1.LabelRuleForModel`)."""
    from ..constraints.label_rules import LABEL_RULES, label_rule_for_data
    from ..metrics.asr1 import LabelRuleForModel

    name = _option(args, "--asr1-label-rule")
    data = _option(args, "--asr1-label-data")
    if name is None:
        if data is not None:
            raise UsageError("--asr1-label-data needs --asr1-label-rule")
        return None
    if name not in LABEL_RULES or name == "paper":
        try:
            return label_rule_for_data(name)
        except ValueError as e:
            raise UsageError(f"--asr1-label-rule: {e}") from None
    origin = "--asr1-label-data" if data is not None else None
    if data is None:
        data, origin = _recipe_label_data(args.rest)
    return LabelRuleForModel(name, data, origin)
