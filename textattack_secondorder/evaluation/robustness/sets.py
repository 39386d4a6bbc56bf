"""Saving perturbed sets and reading them back (docs/methods.md §4).

One CSV per set (``index, label, original, perturbed``) plus ``sets.json`` in
``<out>/sets``; :func:`load_sets` reads them so another model can be evaluated on
exactly the same perturbed texts (``textattack-so robustness --reuse``).
"""
import json
from pathlib import Path

from ...shared.files import atomic_write_text
from .result import PerturbedSet

SETS_DIR = "sets"


def save_sets(out_dir, texts, labels, sets):
    """One CSV per perturbed set in ``out_dir/sets``: ``index, label, original, perturbed`` (+ ``sets.json``)."""
    import pandas as pd

    folder = Path(out_dir, SETS_DIR)
    meta = []
    for s in sets:
        df = pd.DataFrame({"index": range(len(texts)), "label": labels, "original": texts, "perturbed": s.texts})
        atomic_write_text(folder / f"{s.name}.csv", df.to_csv(index=False))
        meta.append({"name": s.name, "level": s.level, "method": s.method, "file": f"{s.name}.csv",
                     "settings": s.settings})
    atomic_write_text(folder / "sets.json", json.dumps(meta, indent=2, default=str))
    return folder


def load_sets(directory):
    """Read sets written by :func:`save_sets` (``directory`` or ``directory/sets``).

    Returns ``(examples, sets)``: the original ``(text, label)`` pairs and the :class:`PerturbedSet` list.
    """
    import pandas as pd

    folder = Path(directory)
    if (folder / SETS_DIR / "sets.json").exists():
        folder = folder / SETS_DIR
    meta_path = folder / "sets.json"
    if not meta_path.exists():
        raise FileNotFoundError(f"no perturbed sets in {directory} (expected {SETS_DIR}/sets.json)")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    examples, sets = None, []
    for m in meta:
        df = pd.read_csv(folder / m["file"], keep_default_na=False)
        pairs = list(zip(df["original"].astype(str), df["label"].astype(int)))
        if examples is None:
            examples = pairs
        elif pairs != examples:
            raise ValueError(f"{m['file']} does not perturb the same examples as the other sets")
        sets.append(PerturbedSet(m["name"], m["level"], m["method"], df["perturbed"].astype(str).tolist(),
                                 m.get("settings", {})))
    return examples or [], sets
