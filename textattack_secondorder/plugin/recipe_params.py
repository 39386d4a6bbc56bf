"""``--recipe "NAME^param=value,..."``: parameters after the recipe name, and the table that lets them through argparse.

Recipe parameters are Python literals, as TextAttack evaluates them:
``--recipe "so-beam^beam_width=10,max_depth=4"``; quote strings:
``--recipe "textfooler-offline^synonyms='my_synonyms.json'"``. Bare words are taken as strings.
"""

import ast
from collections.abc import KeysView

from ..shared.errors import UserError

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


class _RecipeKeys(KeysView):
    """Keys view that also contains ``"name^params"`` for every known ``name``."""

    def __contains__(self, key):
        if isinstance(key, str) and SPLIT in key:
            key = key.split(SPLIT, 1)[0]
        return dict.__contains__(self._mapping, key)

    def __repr__(self):
        return f"{type(self).__name__}({list(self)})"


class RecipeTable(dict):
    """TextAttack's recipe dict, extended to accept ``name^params`` on the command line."""

    def keys(self):
        return _RecipeKeys(self)

    def __getitem__(self, key):
        if isinstance(key, str) and SPLIT in key:
            name, params = key.split(SPLIT, 1)
            # Only reached for augmentation recipes: TextAttack splits attack recipes itself.
            return (
                f"__import__('textattack_secondorder').plugin.registry.augmenter_with_params("
                f"{name!r}, {dict.__getitem__(self, name)!r}, {params!r})"
            )
        return dict.__getitem__(self, key)
