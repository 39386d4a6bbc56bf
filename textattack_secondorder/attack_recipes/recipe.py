"""Base class of our recipes: named parameters with paper defaults, checked (docs/methods.md §6).

Each recipe's ``build`` reads like TextAttack's: it checks its parameters
(:meth:`SORecipe.check_params`), assembles transformation, constraints, goal function and search
method inside ``with cls.parameter_errors(params):`` and returns a
:class:`~.input_guard.GuardedAttack`.
"""

from contextlib import contextmanager

from textattack.attack_recipes import AttackRecipe

from ..resources.errors import ResourceError
from ..shared.recipe_params import RecipeParameterError  # noqa: F401  (raised by recipes; one home)


class SORecipe(AttackRecipe):
    """An attack recipe whose ``build`` takes keyword parameters.

    Subclasses set ``name`` (the ``--recipe`` name) and ``PARAMS`` (parameter -> :class:`~.param.Param`: default,
    help citing where the default comes from, bounds, choices) and define
    ``build(model_wrapper, **params)``. From the command line:
    ``textattack attack --recipe "NAME^param=value,..."``; from Python:
    ``Recipe.build(model_wrapper, param=value)``.
    """

    name = None
    PARAMS = {}

    @classmethod
    def defaults(cls):
        return {k: v.default for k, v in cls.PARAMS.items()}

    @classmethod
    def check_params(cls, params):
        """The recipe's settings: ``params`` over the defaults.

        Raises :class:`RecipeParameterError` for a parameter that is unknown, of the wrong type
        or out of range.
        """
        unknown = sorted(set(params) - set(cls.PARAMS))
        if unknown:
            valid = ", ".join(f"{k} (default {v.default!r})" for k, v in cls.PARAMS.items())
            raise RecipeParameterError(
                f"Unknown parameter(s) {', '.join(map(repr, unknown))} for recipe '{cls.name}'. "
                f"Valid parameters: {valid}"
            )
        for k, v in params.items():
            cls.PARAMS[k].check(cls.name, k, v)
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
