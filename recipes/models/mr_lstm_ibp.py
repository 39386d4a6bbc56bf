"""Victim ``mr-lstm-ibp``: LSTM on GloVe 50d with a word layer, certified (IBP) training (Jia et al. 2019).

The robust model of the Double Perturbation paper's Table 2 (Zhang et al. 2021): the same architecture
as ``mr-lstm`` above Jia et al.'s word layer, word vectors trained from GloVe, trained against every
combination of counter-fitted synonym swaps (docs/design/certified.md).
Use with the stock TextAttack command line (the variable must be called ``model``)::

    textattack attack --recipe so-beam --model-from-file recipes/models/mr_lstm_ibp.py \
        --dataset-from-file recipes/datasets/mr.py^dataset --num-examples 10

Trained and cached on first use (see ``textattack-so train-victims --names mr-lstm-ibp``);
``textattack-so certify --model mr-lstm-ibp --out cert.json`` gives its certified accuracy.
``TA_SO_DEVICE`` picks the device (default: TextAttack's).
"""

import os

from textattack_secondorder.models.victims import load_victim

model = load_victim("mr-lstm-ibp", device=os.environ.get("TA_SO_DEVICE") or None)
