"""SP-Defense / Rand fine-tuning (Xu et al., §5; docs/methods.md §2.4).

:mod:`.training` — :func:`train_defense` fine-tunes a classifier on the SP-Defense augmentation
mix (or the ``rand`` baseline), :func:`save_model` writes it as a Hugging Face directory that
``textattack attack --model DIR`` loads; ``DEFENSES`` names the two.
"""

from .training import DEFENSES, save_model, train_defense

__all__ = ["DEFENSES", "save_model", "train_defense"]
