"""Attack recipes of textattack-secondorder, registered with the stock ``textattack`` CLI.

Classes load on first use (so listing the package does not import TextAttack).
"""
import importlib

_RECIPES = {
    "SORecipe": ".recipe",
    "TextFoolerOffline": ".textfooler_offline",
    "SecondOrderAttack": ".second_order",
    "SOBeam": ".second_order",
    "SOEnum": ".second_order",
    "SORandom": ".second_order",
    "BAEOffline": ".offline_baselines",
    "SPAttack": ".sp_attack",
    "AlzantotOffline": ".offline_baselines",
}


def __getattr__(name):
    if name in _RECIPES:
        return getattr(importlib.import_module(_RECIPES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_RECIPES)
