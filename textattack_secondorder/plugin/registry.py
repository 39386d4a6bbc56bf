"""Registration of this package's recipes with the stock TextAttack command line.

TextAttack resolves ``--recipe NAME`` through two module-level dicts,
``textattack.attack_args.ATTACK_RECIPE_NAMES`` and
``textattack.augment_args.AUGMENTATION_RECIPE_NAMES`` (name -> a Python
expression that is ``eval``-ed). :func:`install_tables` adds our entries, built
from the recipe classes themselves (each carries its ``name``), and replaces each
dict by a :class:`~.recipe_params.RecipeTable`, whose ``keys()`` also accept
``"name^param=value,..."`` so argparse lets recipe parameters through.

Building an attack from a name is :func:`textattack_secondorder.attack_recipes.build.build_attack`.
"""

import sys

import textattack
import textattack.attack_args
import textattack.augment_args

from .. import augmentation
from ..attack_recipes.build import attack_recipes
from ..models.word_models import register_auto_classes
from ..shared.recipe_params import parse_recipe_params, recipes_by_name
from .recipe_params import RecipeTable


def augmentation_recipes():
    """``{name: class}`` of this package's augmentation recipes."""
    return recipes_by_name(augmentation.RECIPES)


def recipe_expression(cls):
    """TextAttack's form of one of our recipes: an expression that imports the defining module and
    evaluates to the class, e.g. ``__import__('textattack_secondorder.attack_recipes.so_beam',
    fromlist=['SOBeam']).SOBeam``."""
    return f"__import__({cls.__module__!r}, fromlist=[{cls.__name__!r}]).{cls.__name__}"


def _table(recipes):
    return {name: recipe_expression(cls) for name, cls in recipes.items()}


def augmenter_with_params(name, expression, params):
    """Callable building augmenter ``name`` with parameters parsed from ``params``."""
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
    attack, augment = _table(attack_recipes()), _table(augmentation_recipes())
    for m in (textattack.attack_args, textattack.augment_args):
        _swap_table(m, "ATTACK_RECIPE_NAMES", attack)
        _swap_table(m, "AUGMENTATION_RECIPE_NAMES", augment)
    # lets ``textattack attack --model DIR`` load this package's word-level victims
    register_auto_classes()
    return textattack.attack_args.ATTACK_RECIPE_NAMES
