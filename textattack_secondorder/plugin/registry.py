"""Registration of this package's recipes with the stock TextAttack command line.

TextAttack resolves ``--recipe NAME`` through two module-level dicts,
``textattack.attack_args.ATTACK_RECIPE_NAMES`` and
``textattack.augment_args.AUGMENTATION_RECIPE_NAMES`` (name -> a Python
expression that is ``eval``-ed). :func:`install_tables` adds our entries, built
from the recipe classes themselves (each carries its ``name``), and replaces each
dict by a :class:`~.recipe_params.RecipeTable`, whose ``keys()`` also accept
``"name^param=value,..."`` so argparse lets recipe parameters through.

:func:`build_attack` builds any recipe by name (ours with parameters, or TextAttack's),
for commands that take a recipe name.
"""

import importlib
import sys

from .recipe_params import SPLIT, RecipeTable, parse_recipe_params

PACKAGE = "textattack_secondorder"


def _classes(subpackage):
    """``{registered name: (class name, class)}`` of the recipes listed in ``subpackage.RECIPES``."""
    module = importlib.import_module(f"{PACKAGE}.{subpackage}")
    out = {}
    for attr in module.RECIPES:
        cls = getattr(module, attr)
        if not getattr(cls, "name", None):
            raise TypeError(f"{subpackage}.{attr} has no registered name (class attribute `name`)")
        if cls.name in out:
            raise ValueError(f"recipe name {cls.name!r} used by both {out[cls.name][0]} and {attr}")
        out[cls.name] = (attr, cls)
    return out


def attack_recipes():
    """``{name: class}`` of this package's attack recipes (imports them, hence TextAttack)."""
    return {name: cls for name, (_, cls) in _classes("attack_recipes").items()}


def augmentation_recipes():
    """``{name: class}`` of this package's augmentation recipes."""
    return {name: cls for name, (_, cls) in _classes("augmentation").items()}


def _table(subpackage):
    """TextAttack's form of our recipes: name -> expression that evaluates to the class."""
    return {name: f"__import__({PACKAGE!r}).{subpackage}.{attr}" for name, (attr, _) in _classes(subpackage).items()}


def augmenter_with_params(name, expression, params):
    """Callable building augmenter ``name`` with parameters parsed from ``params``."""
    import textattack  # noqa: F401  (the expression may refer to it)

    factory = eval(expression, {"textattack": textattack, "__builtins__": __builtins__})
    extra = parse_recipe_params(params)

    def build(**kwargs):
        kwargs.update(extra)
        return factory(**kwargs)

    return build


def _swap_table(module, attr, ours):
    table = getattr(module, attr, None)
    if table is None:
        return
    table.update(ours)
    if isinstance(table, RecipeTable):
        return
    new = RecipeTable(table)
    # Every TextAttack module holding the plain dict (it has several when TextAttack
    # was imported before us) gets the table that accepts "name^params".
    for other in list(sys.modules.values()):
        if getattr(other, "__name__", "").startswith("textattack") and getattr(other, attr, None) is table:
            setattr(other, attr, new)


def install_tables():
    """Add our recipes to TextAttack's tables (needs ``textattack`` fully imported)."""
    import textattack.attack_args
    import textattack.augment_args

    attack, augment = _table("attack_recipes"), _table("augmentation")
    for m in (textattack.attack_args, textattack.augment_args):
        _swap_table(m, "ATTACK_RECIPE_NAMES", attack)
        _swap_table(m, "AUGMENTATION_RECIPE_NAMES", augment)
    from ..models import register_auto_classes

    # lets ``textattack attack --model DIR`` load this package's word-level victims
    register_auto_classes()
    return textattack.attack_args.ATTACK_RECIPE_NAMES


def build_attack(recipe, model_wrapper, device=None, batch_size=None):
    """A TextAttack ``Attack`` for ``recipe``: one of ours (parameters allowed: ``"so-beam^beam_width=5"``)
    or one of TextAttack's.

    ``device`` (e.g. ``"cuda"``) goes to our recipes that load a model of their own (the masked LM
    of so-*/bae-offline) unless the recipe string names one; ``batch_size`` becomes the goal
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
    from textattack.attack_args import ATTACK_RECIPE_NAMES

    if name not in ATTACK_RECIPE_NAMES:
        known = sorted(set(ours) | set(ATTACK_RECIPE_NAMES))
        raise ValueError(f"Unknown attack recipe {name!r}; known: {', '.join(known)}")
    if params:
        raise ValueError(f"TextAttack's recipe {name!r} takes no parameters")
    module_name, _, cls_name = ATTACK_RECIPE_NAMES[name].rpartition(".")
    return set_batch_size(getattr(importlib.import_module(module_name), cls_name).build(model_wrapper), batch_size)


def set_batch_size(attack, batch_size):
    """Victim batch of ``attack``'s goal function and, where it has one, its masked LM's batch; returns ``attack``."""
    if batch_size:
        attack.goal_function.batch_size = int(batch_size)
        proposer = getattr(getattr(attack, "transformation", None), "proposer", None)
        if proposer is not None and hasattr(proposer, "batch_size"):
            proposer.batch_size = int(batch_size)
    return attack
