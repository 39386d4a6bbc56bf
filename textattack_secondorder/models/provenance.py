"""What a model folder records of the data it was trained on.

The demo victims (``textattack-so train-victims``) write ``metrics.json`` beside their weights, naming their data
set (``"dataset": "mr"``); a copy of such a folder keeps it. A user's own model records nothing, and nothing here
guesses: SP-Attack then asks for its training data instead of falling back on the movie reviews.
"""

import json
from pathlib import Path

#: the file a demo victim's folder holds its training record in (models/victims.py writes it)
METRICS_FILE = "metrics.json"


def model_folder(model_wrapper):
    """The folder the wrapper's model was loaded from (its ``config._name_or_path``), or None."""
    inner = getattr(model_wrapper, "model", None)
    path = getattr(getattr(inner, "config", None), "_name_or_path", None)
    if not path or not Path(str(path)).is_dir():
        return None
    return Path(str(path))


def recorded_training_data(model_wrapper):
    """The data set the model's folder says it was trained on (``"mr"`` for the demo victims), or None."""
    folder = model_folder(model_wrapper)
    if folder is None or not (folder / METRICS_FILE).is_file():
        return None
    try:
        record = json.loads((folder / METRICS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    data = record.get("dataset") if isinstance(record, dict) else None
    return data if isinstance(data, str) and data else None
