"""An attack from a recipe name: ours (with ``NAME^param=value`` parameters) or TextAttack's.

The one place that turns a recipe string into a TextAttack ``Attack``; sweeps, checks, the
command line and the TextAttack glue (:mod:`textattack_secondorder.plugin`) import it from here.
"""

import textattack

from ..shared.errors import UsageError
from ..shared.recipe_params import SPLIT, parse_recipe_params, recipes_by_name
from . import RECIPES


def attack_recipes():
    """``{name: class}`` of this package's attack recipes."""
    return recipes_by_name(RECIPES)


def textattack_recipes():
    """``{name: expression}`` of the recipes TextAttack's ``--recipe`` knows (ours too once registered)."""
    return textattack.attack_args.ATTACK_RECIPE_NAMES


def build_attack(recipe, model_wrapper, device=None, batch_size=None):
    """A TextAttack ``Attack`` for ``recipe``: one of ours (parameters allowed: ``"so-beam^beam_width=5"``)
    or one of TextAttack's.

    ``device`` (e.g. ``"cuda"``) goes to our recipes that load a model of their own (the masked LM
    of ``so-*``/``bae-offline``) unless the recipe string names one; ``batch_size`` becomes the goal
    function's victim batch and the masked LM's batch (both, so ``--model-batch-size`` reaches
    every model forward of an attack).
    """
    name, _, params = recipe.partition(SPLIT)
    ours = attack_recipes()
    if name in ours:
        kwargs = parse_recipe_params(params)
        if device is not None and "device" in ours[name].PARAMS:
            kwargs.setdefault("device", device)
        return set_batch_size(ours[name].build(model_wrapper, **kwargs), batch_size)
    theirs = textattack_recipes()
    if name not in theirs:
        known = sorted(set(ours) | set(theirs))
        raise ValueError(f"Unknown attack recipe {name!r}; known: {', '.join(known)}")
    if params:
        raise ValueError(f"TextAttack's recipe {name!r} takes no parameters")
    # TextAttack's table holds expressions such as "textattack.attack_recipes.TextFoolerJin2019";
    # evaluated as TextAttack's own attack_args.py does.
    recipe_class = eval(theirs[name], {"textattack": textattack})
    return set_batch_size(recipe_class.build(model_wrapper), batch_size)


def set_batch_size(attack, batch_size):
    """Victim batch of ``attack``'s goal function and, where it has one, its masked LM's batch; returns ``attack``."""
    if batch_size:
        attack.goal_function.batch_size = int(batch_size)
        proposer = getattr(getattr(attack, "transformation", None), "proposer", None)
        if proposer is not None and hasattr(proposer, "batch_size"):
            proposer.batch_size = int(batch_size)
    return attack


def checked_recipe(recipe, recipes=None):
    """``recipe`` with its parameters checked and written as Python literals (for TextAttack's ``eval``).

    Only the recipes in ``recipes`` (``{name: class}``; default: our attack recipes) are touched;
    raises ``UsageError`` or ``RecipeParameterError``.
    """
    if not isinstance(recipe, str) or SPLIT not in recipe:
        return recipe
    name, params = recipe.split(SPLIT, 1)
    cls = (attack_recipes() if recipes is None else recipes).get(name)
    if cls is None:
        return recipe
    try:
        parsed = parse_recipe_params(params)
    except ValueError as e:
        raise UsageError(f"--recipe {recipe!r}: {e}") from None
    if hasattr(cls, "check_params"):
        cls.check_params(parsed)
    return name + SPLIT + ",".join(f"{k}={v!r}" for k, v in parsed.items())
