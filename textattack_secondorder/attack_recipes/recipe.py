"""Base class of our recipes: named parameters with paper defaults and a clear error for unknown ones."""
from textattack.attack_recipes import AttackRecipe


class SORecipe(AttackRecipe):
    """An attack recipe whose ``build`` takes keyword parameters.

    Subclasses set ``name`` (the ``--recipe`` name), ``PARAMS`` (parameter ->
    ``(default, help)``; the help cites where the default comes from) and
    implement ``_build(model_wrapper, **params)``. From the command line:
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
        unknown = sorted(set(params) - set(cls.PARAMS))
        if unknown:
            valid = "\n".join(f"  {k} (default {v[0]!r}): {v[1]}" for k, v in cls.PARAMS.items())
            raise ValueError(
                f"Unknown parameter(s) {', '.join(map(repr, unknown))} for recipe '{cls.name}'. "
                f"Valid parameters:\n{valid}"
            )
        settings = cls.defaults()
        settings.update(params)
        return settings

    @classmethod
    def build(cls, model_wrapper, **params):
        return cls._build(model_wrapper, **cls.check_params(params))

    @classmethod
    def _build(cls, model_wrapper, **params):  # pragma: no cover - abstract
        raise NotImplementedError
