"""Augmentation recipes of textattack-secondorder (SP-Defense), registered with ``textattack augment``.

Each augmenter class carries its registered name (``SPDefenseAugmenter.name == "sp-defense"``);
``RECIPES`` lists the registered classes.
"""

from .sp_defense import SPDefenseAugmenter, augment_examples, special_word_table

# every registered augmentation recipe (each carries its ``name``)
RECIPES = (SPDefenseAugmenter,)

__all__ = ["RECIPES", "SPDefenseAugmenter", "augment_examples", "special_word_table"]
