"""Attack recipes of textattack-secondorder, one per file, registered with the stock ``textattack`` CLI.

Each recipe class carries its registered name (``SOBeam.name == "so-beam"``); ``RECIPES`` lists
the registered classes, from which the command-line tables are built
(:mod:`textattack_secondorder.plugin.registry`) and :func:`.build.build_attack` looks a name up.
Adding a recipe: one file with an :class:`~.recipe.SORecipe` subclass (``name``, ``PARAMS``: a
:class:`~.param.Param` per parameter with its paper-cited default, help, bounds or choices; ``build``
returning a ``GuardedAttack``) and one entry in ``RECIPES``.

Importing this package imports TextAttack (the recipes subclass its ``AttackRecipe``).
"""

from .a2t_offline import A2TOffline
from .alzantot_offline import AlzantotOffline
from .bae_offline import BAEOffline
from .recipe import SORecipe
from .second_order import SecondOrderAttack
from .so_beam import SOBeam
from .so_enum import SOEnum
from .so_random import SORandom
from .sp_attack import SPAttack
from .textfooler_offline import TextFoolerOffline

# every registered recipe (each carries its ``name``)
RECIPES = (SOBeam, SOEnum, SORandom, SPAttack, TextFoolerOffline, BAEOffline, AlzantotOffline, A2TOffline)

__all__ = [
    "RECIPES",
    "A2TOffline",
    "AlzantotOffline",
    "BAEOffline",
    "SOBeam",
    "SOEnum",
    "SORandom",
    "SORecipe",
    "SPAttack",
    "SecondOrderAttack",
    "TextFoolerOffline",
]
