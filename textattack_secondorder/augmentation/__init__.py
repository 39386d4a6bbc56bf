"""Augmentation recipes of textattack-secondorder (SP-Defense), registered with ``textattack augment``.

Each augmenter class carries its registered name (``SPDefenseAugmenter.name == "sp-defense"``);
``RECIPES`` lists the registered classes.
"""

import importlib

# class name -> module of every registered augmentation recipe
RECIPES = {"SPDefenseAugmenter": ".sp_defense"}

_NAMES = {
    "SPDefenseAugmenter": ".sp_defense",
    "augment_examples": ".sp_defense",
    "special_word_table": ".sp_defense",
}


def __getattr__(name):
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_NAMES)
