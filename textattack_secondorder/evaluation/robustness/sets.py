"""Saving perturbed sets and reading them back (docs/design/meaning.md).

One CSV per set (``index, label, original, perturbed``) plus ``sets.json`` in
``<out>/sets``; :func:`load_sets` reads them so another model can be evaluated on
exactly the same perturbed texts (``textattack-so robustness --reuse``).

Resuming (docs/design/hostile-input.md): while a run builds its sets, each finished set is saved at
once (atomically) as ``<out>/parts/<name>-<key>.json``, the key digesting the examples and
everything the perturbation depends on (:func:`part_key`); a rerun reuses a part only under
the same key, so a changed setting, example or attacked model builds the set again.
"""

import json
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from ...shared.digest import content_digest
from ...shared.files import atomic_write_text
from .result import PerturbedSet

SETS_DIR = "sets"
PARTS_DIR = "parts"


def part_key(perturbation, texts, labels):
    """Content key of the set ``perturbation`` builds from ``texts``: a digest of the examples, the level,
    the method and the perturbation's ``resume_key()`` (else its ``settings()``), taken before it runs."""
    describe = getattr(perturbation, "resume_key", None) or perturbation.settings
    payload = {
        "level": perturbation.level,
        "method": perturbation.method,
        "settings": describe(),
        "texts": list(texts),
        "labels": [None if y is None else int(y) for y in labels],
    }
    return content_digest(payload, 16)


def part_path(parts_dir, name, key):
    return Path(parts_dir, f"{name}-{key}.json")


def save_part(path, perturbed_set):
    """Write one finished :class:`PerturbedSet` to ``path`` (atomically, JSON: texts round-trip exactly)."""
    atomic_write_text(path, json.dumps(asdict(perturbed_set), ensure_ascii=False, default=str))


def load_part(path):
    """The :class:`PerturbedSet` saved by :func:`save_part`, or ``None`` when ``path`` does not exist."""
    path = Path(path)
    if not path.exists():
        return None
    return PerturbedSet(**json.loads(path.read_text(encoding="utf-8")))


def save_sets(out_dir, texts, labels, sets):
    """One CSV per perturbed set in ``out_dir/sets``: ``index, label, original, perturbed`` (+ ``sets.json``)."""

    folder = Path(out_dir, SETS_DIR)
    meta = []
    for s in sets:
        df = pd.DataFrame({"index": range(len(texts)), "label": labels, "original": texts, "perturbed": s.texts})
        atomic_write_text(folder / f"{s.name}.csv", df.to_csv(index=False))
        meta.append(
            {"name": s.name, "level": s.level, "method": s.method, "file": f"{s.name}.csv", "settings": s.settings}
        )
    atomic_write_text(folder / "sets.json", json.dumps(meta, indent=2, default=str))
    return folder


def load_sets(directory):
    """Read sets written by :func:`save_sets` (``directory`` or ``directory/sets``).

    Returns ``(examples, sets)``: the original ``(text, label)`` pairs and the :class:`PerturbedSet` list.
    """

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
        sets.append(
            PerturbedSet(
                m["name"], m["level"], m["method"], df["perturbed"].astype(str).tolist(), m.get("settings", {})
            )
        )
    return examples or [], sets
