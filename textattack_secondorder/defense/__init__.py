"""SP-Defense / Rand / A2T fine-tuning (Xu et al., §5).

:mod:`.training` — :func:`train_defense` fine-tunes a classifier on the batches of one defense
(:func:`~.batches.defense_batches`: the SP-Defense augmentation mix, the ``rand`` and ``continue`` controls,
A2T's adversarial sets), :func:`save_model` writes it as a Hugging Face directory that
``textattack attack --model DIR`` loads; ``DEFENSES`` names the defenses.
"""

from .batches import DEFENSES
from .training import save_model, train_defense

__all__ = ["DEFENSES", "save_model", "train_defense"]
