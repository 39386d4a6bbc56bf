"""Augmentation recipes of textattack-secondorder (SP-Defense), registered with ``textattack augment``.

Each augmenter class carries its registered name (``SPDefenseAugmenter.name == "sp-defense"``);
``RECIPES`` lists the registered classes. :class:`~.token_augmenter.TokenAugmenter` is the same
augmentations on token ids, which ``defend`` trains on (docs/design/defenses.md).
"""

from .sp_defense import SPDefenseAugmenter, augment_examples
from .vocabulary import special_word_table

# every registered augmentation recipe (each carries its ``name``)
RECIPES = (SPDefenseAugmenter,)

__all__ = ["RECIPES", "SPDefenseAugmenter", "augment_examples", "special_word_table"]
