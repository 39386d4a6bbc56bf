"""Victim ``mr-bow``: bag of words on frozen GloVe 50d (Zhang et al. 2021 base model), trained on movie-review polarity.

Use with the stock TextAttack command line (the variable must be called ``model``)::

    textattack attack --recipe deepwordbug --model-from-file recipes/models/mr_bow.py \
        --dataset-from-file recipes/datasets/mr.py^dataset --num-examples 10

Trained and cached on first use (see ``textattack-so train-victims``).
``TA_SO_DEVICE`` picks the device (default: TextAttack's).
"""

import os

from textattack_secondorder.models.victims import load_victim

model = load_victim("mr-bow", device=os.environ.get("TA_SO_DEVICE") or None)
