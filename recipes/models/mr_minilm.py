"""Victim ``mr-minilm``: all-MiniLM-L6-v2 fine-tuned on MR for 2 epochs, trained on movie-review polarity.

Use with the stock TextAttack command line (the variable must be called ``model``)::

    textattack attack --recipe deepwordbug --model-from-file recipes/models/mr_minilm.py \
        --dataset-from-file recipes/datasets/mr.py^dataset --num-examples 10

Trained and cached on first use (see ``textattack-so train-victims``).
``TA_SO_DEVICE`` picks the device (default: TextAttack's).
"""

import os

from textattack_secondorder.models.victims import load_victim

model = load_victim("mr-minilm", device=os.environ.get("TA_SO_DEVICE") or None)
