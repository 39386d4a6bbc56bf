"""textattack-secondorder: a TextAttack plugin.

Second-order (double perturbation) attacks, counterfactual token bias,
single-word flip capability / SP-Attack / SP-Defense and meaning-preservation
metrics, built from TextAttack's parts.

Importing this package is cheap: it imports neither torch nor TextAttack, nor its sub-packages.
Sub-packages mirror TextAttack's layout (``goal_functions``,
``transformations``, ``constraints``, ``search_methods``, ``attack_recipes``,
``augmentation``, ``metrics``) plus ``evaluation`` (bias, κ/ρ, meaning, robustness),
``checks`` (the robustness gate), ``sweeps`` (attack sweeps), ``distributed`` (shards, Ray),
``defense``, ``resources``, ``models``, ``datasets``, ``shared``, ``plugin`` (TextAttack
glue) and ``cli``; docs/design/architecture.md says what lives where.
"""

from ._version import __version__


def register():
    """Add this package's recipes to the stock TextAttack command line.

    Normally done automatically right after ``import textattack`` (through the
    import hook installed by ``textattack_secondorder_hook.pth``); call it by
    hand if you set ``TEXTATTACK_SECONDORDER_NO_HOOK=1``.
    """
    # .plugin here, not at the top: every `textattack-so` start imports this package, and .plugin imports NLTK
    from .plugin import register as register_with_textattack

    return register_with_textattack()


# Every sub-package (tests/test_registration.py checks the list against the folders). They are
# not imported here: ``import textattack_secondorder`` stays free of torch and TextAttack; import
# the module that defines a name (``from textattack_secondorder.attack_recipes.so_beam import SOBeam``).
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


__all__ = ["__version__", "register"]
