"""``NAME^param=value,...``: parameters after a recipe name, as ``--recipe`` and config files write them.

Recipe parameters are Python literals, as TextAttack evaluates them:
``--recipe "so-beam^beam_width=10,max_depth=4"``; quote strings:
``--recipe "textfooler-offline^synonyms='my_synonyms.json'"``. Bare words are taken as strings.
The table that lets ``NAME^params`` through TextAttack's argparse is
:class:`~textattack_secondorder.plugin.recipe_params.RecipeTable`.
"""

import ast

from .errors import UserError

SPLIT = "^"  # textattack.shared.utils.ARGS_SPLIT_TOKEN


class RecipeParameterError(ValueError, UserError):
    """A recipe parameter that is unknown or has a value that is not allowed (one line: recipe, parameter,
    value, what is allowed)."""


def parse_recipe_params(text):
    """Parse ``"a=1,b='x',c=True"`` into a dict; bare words are taken as strings.

    Raises ``ValueError`` naming the bad part.
    """
    text = (text or "").strip()
    if not text:
        return {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"Cannot parse recipe parameters {text!r}: write them as name=value,name=value") from e
    if call.args:
        raise ValueError(f"Recipe parameters must be name=value pairs, got {text!r}")
    params = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise ValueError(f"Recipe parameters must be name=value pairs, got {text!r}")
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            params[kw.arg] = ast.get_source_segment(f"f({text})", kw.value)
    return params


def recipes_by_name(classes):
    """``{cls.name: cls}`` of registered recipe classes; each must carry a distinct ``name``."""
    out = {}
    for cls in classes:
        name = getattr(cls, "name", None)
        if not name:
            raise TypeError(f"{cls.__module__}.{cls.__qualname__} has no registered name (class attribute `name`)")
        if name in out:
            raise ValueError(f"recipe name {name!r} used by both {out[name].__qualname__} and {cls.__qualname__}")
        out[name] = cls
    return out
