"""The recipe table that lets ``--recipe "NAME^param=value,..."`` through TextAttack's argparse.

The parameters themselves are parsed by :mod:`textattack_secondorder.shared.recipe_params`.
"""

from collections.abc import KeysView

from ..shared.recipe_params import SPLIT


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
                "__import__('textattack_secondorder.plugin.registry', fromlist=['augmenter_with_params'])"
                f".augmenter_with_params({name!r}, {dict.__getitem__(self, name)!r}, {params!r})"
            )
        return dict.__getitem__(self, key)
