"""textattack-secondorder: a TextAttack plugin.

Second-order (double perturbation) attacks, counterfactual token bias,
single-word flip capability / SP-Attack / SP-Defense and meaning-preservation
metrics, built from TextAttack's parts.

Importing this package is cheap: it imports neither torch nor TextAttack.
Sub-packages mirror TextAttack's layout (``goal_functions``,
``transformations``, ``constraints``, ``search_methods``, ``attack_recipes``,
``augmentation``, ``metrics``) plus ``evaluation`` (bias, κ/ρ, meaning, robustness),
``checks`` (the robustness gate), ``sweeps`` (attack sweeps), ``distributed`` (shards, Ray),
``defense``, ``resources``, ``models``, ``datasets``, ``shared``, ``plugin`` (TextAttack
glue) and ``cli``; the README's layout section says what lives where.
"""

from ._version import __version__


def register():
    """Add this package's recipes to the stock TextAttack command line.

    Normally done automatically right after ``import textattack`` (through the
    import hook installed by ``textattack_secondorder_hook.pth``); call it by
    hand if you set ``TEXTATTACK_SECONDORDER_NO_HOOK=1``.
    """
    from .plugin import register as _register

    return _register()


# Every sub-package (tests/test_registration.py checks the list against the folders).
_SUBPACKAGES = (
    "attack_recipes",
    "augmentation",
    "checks",
    "cli",
    "constraints",
    "datasets",
    "defense",
    "distributed",
    "evaluation",
    "goal_functions",
    "metrics",
    "models",
    "plugin",
    "resources",
    "search_methods",
    "shared",
    "sweeps",
    "transformations",
)


def __getattr__(name):
    # Sub-packages load on first use, so `textattack_secondorder.attack_recipes.X` works
    # in the expressions TextAttack evaluates, without importing torch at start-up.
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["__version__", "register"]
