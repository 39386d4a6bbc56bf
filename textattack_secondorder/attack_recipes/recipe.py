"""Base class of our recipes: named parameters with paper defaults, checked (docs/design/hostile-input.md).

Each recipe's ``build`` reads like TextAttack's: it checks its parameters
(:meth:`SORecipe.check_params`), assembles transformation, constraints, goal function and search
method inside ``with cls.parameter_errors(params):`` and returns a
:class:`~.input_guard.GuardedAttack`.

Every recipe's ``build`` gets its victim through :func:`~..models.wrappers.fast_model_wrapper` first
(:meth:`SORecipe.__init_subclass__` puts it in front of each subclass's ``build``): a Hugging Face
classifier in TextAttack's ``HuggingFaceModelWrapper`` — what the stock command line builds for
``--model-from-huggingface`` and ``--model DIR`` — is queried padded per batch, not padded to 512
tokens (docs/design/speed.md). TextAttack's own recipes are left as they are.
"""

import functools
from contextlib import contextmanager

from textattack.attack_recipes import AttackRecipe

from ..models.wrappers import fast_model_wrapper
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

    def __init_subclass__(cls, **kwargs):
        """Put :func:`~..models.wrappers.fast_model_wrapper` in front of the subclass's own ``build``."""
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if not isinstance(build, classmethod):
            return
        recipe_build = build.__func__

        @functools.wraps(recipe_build)
        def build_with_fast_victim(klass, model_wrapper, **params):
            return recipe_build(klass, fast_model_wrapper(model_wrapper, f"recipe '{klass.name}'"), **params)

        cls.build = classmethod(build_with_fast_victim)

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
