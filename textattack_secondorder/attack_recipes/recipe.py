"""Base class of our recipes: named parameters with paper defaults, checked (docs/methods.md §6).

Each recipe's ``build`` reads like TextAttack's: it checks its parameters
(:meth:`SORecipe.check_params`), assembles transformation, constraints, goal function and search
method inside ``with cls.parameter_errors(params):`` and returns a
:class:`~.input_guard.GuardedAttack`.
"""

from contextlib import contextmanager

from textattack.attack_recipes import AttackRecipe

from ..goal_functions.neighbor_rules import NEIGHBOR_RULES
from ..goal_functions.patch_rules import PATCH_RULES
from ..resources.errors import ResourceError
from ..shared.recipe_params import RecipeParameterError  # noqa: F401  (raised by recipes; one home)

# What each numeric or string parameter allows, by name (the same name means the same thing in every
# recipe): (lowest, highest) inclusive (None = unbounded), or a tuple of allowed values under "choices".
LIMITS = {
    "beam_width": (1, None),
    "max_depth": (1, None),
    "query_budget": (1, None),
    "max_candidates": (1, None),
    "top_m": (1, None),
    "max_successes": (1, None),
    "query_batch_size": (1, None),
    "pop_size": (1, None),
    "max_iters": (1, None),
    "kappa_examples": (1, None),
    "kappa_m": (1, None),
    "kappa": (1, None),
    "delta": (0, None),
    "expand_chunk": (0, None),
    "similarity_threshold": (-1, 1),
    "patch_lm_drop": (0, None),
    "neighbor_lm_budget": (0, None),
    "patch_judge_threshold": (0, 1),
    "max_percent": (0, 1),
}
CHOICES = {
    "weighting": ("paper", "code"),
    "wir_method": ("unk", "delete", "weighted-saliency", "gradient", "random"),
    "perplexity": (None, True, False),
    "masked_lm_dtype": (None, "float32", "fp32", "bfloat16", "bf16", "float16", "fp16", "auto"),
    "patch_rule": tuple(PATCH_RULES),
    "neighbor_rule": tuple(NEIGHBOR_RULES),
}
# Parameters whose default is a number but that also take None; parameters that also take an object
# (a torch dtype, a PatchRule) besides their choices.
NONE_ALLOWED = {"similarity_threshold", "patch_lm_drop", "patch_judge_threshold", "neighbor_lm_budget"}
OBJECTS_ALLOWED = {"masked_lm_dtype", "patch_rule"}


def _kind(default):
    if isinstance(default, bool):
        return (bool,), "true or false"
    if isinstance(default, int):
        return (int,), "an integer"
    if isinstance(default, float):
        return (int, float), "a number"
    if isinstance(default, str):
        return (str,), "a string"
    return None, None


def check_value(recipe, name, value, default):
    """Raise :class:`RecipeParameterError` when ``value`` is not allowed for parameter ``name``."""

    def bad(allowed):
        return RecipeParameterError(f"recipe '{recipe}': {name}={value!r} is not allowed: {allowed}")

    if value is None and (default is None or name in NONE_ALLOWED or None in CHOICES.get(name, ())):
        return
    if name in CHOICES:
        if name in OBJECTS_ALLOWED and not isinstance(value, str):
            return
        if value not in CHOICES[name]:
            raise bad("choose one of " + ", ".join(map(repr, CHOICES[name])))
        return
    types, words = _kind(default)
    if types is None:
        return
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        raise bad(f"must be {words}" + (" or None" if name in NONE_ALLOWED else ""))
    if name in LIMITS and not isinstance(value, (bool, str)):
        lo, hi = LIMITS[name]
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            rng = f">= {lo}" if hi is None else f"between {lo} and {hi}"
            raise bad(f"must be {words} {rng}")


class SORecipe(AttackRecipe):
    """An attack recipe whose ``build`` takes keyword parameters.

    Subclasses set ``name`` (the ``--recipe`` name) and ``PARAMS`` (parameter ->
    ``(default, help)``; the help cites where the default comes from) and define
    ``build(model_wrapper, **params)``. From the command line:
    ``textattack attack --recipe "NAME^param=value,..."``; from Python:
    ``Recipe.build(model_wrapper, param=value)``.
    """

    name = None
    PARAMS = {}

    @classmethod
    def defaults(cls):
        return {k: v[0] for k, v in cls.PARAMS.items()}

    @classmethod
    def check_params(cls, params):
        """The recipe's settings: ``params`` over the defaults.

        Raises :class:`RecipeParameterError` for a parameter that is unknown, of the wrong type
        or out of range.
        """
        unknown = sorted(set(params) - set(cls.PARAMS))
        if unknown:
            valid = ", ".join(f"{k} (default {v[0]!r})" for k, v in cls.PARAMS.items())
            raise RecipeParameterError(
                f"Unknown parameter(s) {', '.join(map(repr, unknown))} for recipe '{cls.name}'. "
                f"Valid parameters: {valid}"
            )
        for k, v in params.items():
            check_value(cls.name, k, v, cls.PARAMS[k][0])
        settings = cls.defaults()
        settings.update(params)
        return settings

    @classmethod
    @contextmanager
    def parameter_errors(cls, params):
        """Errors while the attack is assembled from ``params``, told as this recipe's.

        A file named by a parameter that is missing or malformed (``OSError``, ``ValueError``)
        becomes a :class:`RecipeParameterError` naming the recipe and the parameters given; a
        resource slot that cannot be filled stays a ``ResourceError``, with the recipe's name.
        """
        try:
            yield
        except RecipeParameterError:
            raise
        except ResourceError as e:
            raise ResourceError(f"recipe '{cls.name}': {e}") from e
        except (OSError, ValueError) as e:
            given = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "default parameters"
            raise RecipeParameterError(f"recipe '{cls.name}' ({given}): {type(e).__name__}: {e}") from e
