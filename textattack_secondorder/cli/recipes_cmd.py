"""``textattack-so recipes [NAME]``: this package's attack recipes, their parameters with defaults, and how to
pass them; the same text ends ``textattack-so attack --help`` (docs/design/hostile-input.md)."""

import textwrap

from ..shared.errors import UsageError

HOW = """\
textattack-secondorder adds to `textattack attack`:
  --recipe NAME          one of this package's recipes (below) or one of TextAttack's
  --recipe "NAME^param=value,param=value"
                         parameters of one of ours, as Python literals; quote strings:
                         --recipe "so-beam^beam_width=10,patch_rule='paper'"
  --asr1                 add the ASR1 row to the summary: the success rate counting only
                         one-word adversarial examples (Xu et al.)
  --asr1-label-rule RULE ASR1 counts a one-word success only when the label rule keeps it
                         ('lean-synonyms-lexicon', 'lean-synonyms', 'lean' or 'paper';
                         docs/design/single-word.md);
                         --asr1-label-data DATA:
                         the training sentences of the label lean ('mr' or a CSV; default:
                         the recipe's label_data or κ data, else what the model's folder
                         records; neither: one line asking for it)
  `textattack-so recipes NAME` prints one recipe's parameters with their help."""


def add_parser(subparsers):
    p = subparsers.add_parser("recipes", help="this package's attack recipes, their parameters and defaults")
    p.add_argument("name", nargs="?", help="one recipe: each parameter with its default and help")
    p.set_defaults(func=run)


def run(args):
    from ..attack_recipes.build import attack_recipes

    print(describe(attack_recipes(), args.name))
    return 0


def parameters(cls):
    """``[(name, default, help)]`` of a recipe class's ``PARAMS`` (records with ``default``, ``help`` and, where
    the parameter has them, its bounds or choices: ``allowed()``)."""
    rows = []
    for name, spec in cls.PARAMS.items():
        text = spec.help
        if getattr(spec, "choices", None) is not None or getattr(spec, "low", None) is not None:
            text = f"{text} [{spec.allowed()}]"
        rows.append((name, spec.default, text))
    return rows


def describe(recipes, name=None, width=100):
    """The text of ``textattack-so recipes [NAME]`` for ``recipes`` (``{name: class}``): every recipe with its
    parameters and defaults, or one recipe with each parameter's help."""
    if name is not None and name not in recipes:
        raise UsageError(f"no recipe {name!r} in textattack-secondorder; ours: {', '.join(recipes)}")
    out = [HOW, "", "Recipes of textattack-secondorder (NAME: parameters, default):"]
    for recipe, cls in recipes.items():
        if name is not None and recipe != name:
            continue
        doc = (cls.__doc__ or "").strip().splitlines()
        out.append(f"  {recipe}: {doc[0] if doc else cls.__name__}")
        rows = parameters(cls)
        if name is None:
            shown = ", ".join(f"{p}={d!r}" for p, d, _ in rows) or "(no parameters)"
            out += textwrap.wrap(shown, width, initial_indent="      ", subsequent_indent="      ")
            continue
        for p, d, text in rows:
            out.append(f"      {p} = {d!r}")
            out += textwrap.wrap(text, width, initial_indent="          ", subsequent_indent="          ")
    return "\n".join(out)
