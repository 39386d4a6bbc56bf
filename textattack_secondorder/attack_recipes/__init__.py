"""Attack recipes of textattack-secondorder, one per file, registered with the stock ``textattack`` CLI.

Each recipe class carries its registered name (``SOBeam.name == "so-beam"``); the
command-line tables are built from ``RECIPES`` (``textattack_secondorder.plugin.registry``).
Adding a recipe: one file with an :class:`~.recipe.SORecipe` subclass (``name``, ``PARAMS``
with paper-cited defaults, ``_build``) and one line in ``RECIPES``.

Classes load on first use (so listing the package does not import TextAttack).
"""

import importlib

# class name -> module of every registered recipe
RECIPES = {
    "SOBeam": ".so_beam",
    "SOEnum": ".so_enum",
    "SORandom": ".so_random",
    "SPAttack": ".sp_attack",
    "TextFoolerOffline": ".textfooler_offline",
    "BAEOffline": ".bae_offline",
    "AlzantotOffline": ".alzantot_offline",
}
# building blocks shared by recipes
_PARTS = {
    "SORecipe": ".recipe",
    "SecondOrderAttack": ".second_order",
}


def __getattr__(name):
    module = RECIPES.get(name) or _PARTS.get(name)
    if module:
        return getattr(importlib.import_module(module, __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [*RECIPES, *_PARTS]
