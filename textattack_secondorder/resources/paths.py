"""Where the package keeps its cache and finds the files it ships.

Nothing here imports torch or TextAttack.
"""

import os
from importlib.resources import files
from pathlib import Path

CACHE_ENV = "TA_SO_CACHE_DIR"


def cache_dir(*parts, create=True):
    """Cache folder of this package (trained victims, downloaded corpora, score caches).

    Order: ``$TA_SO_CACHE_DIR``, then ``$TA_CACHE_DIR/secondorder`` (TextAttack's own
    cache variable), then ``~/.cache/textattack/secondorder``.
    """
    root = os.environ.get(CACHE_ENV)
    if not root:
        ta = os.environ.get("TA_CACHE_DIR")
        root = (
            os.path.join(ta, "secondorder")
            if ta
            else os.path.join(os.path.expanduser("~"), ".cache", "textattack", "secondorder")
        )
    path = Path(root, *parts)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def cache_origin():
    """Which setting chose the cache folder, in words (``TA_SO_CACHE_DIR``, ``TA_CACHE_DIR`` or the default)."""
    if os.environ.get(CACHE_ENV):
        return f"${CACHE_ENV}"
    if os.environ.get("TA_CACHE_DIR"):
        return "$TA_CACHE_DIR/secondorder"
    return "the default ~/.cache/textattack/secondorder"


def disk_size(path):
    """Bytes of ``path``: a file's size, or every file under a folder."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def size_text(nbytes):
    """``0.54 GB``, ``84 MB``, ``12 kB``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2g} {unit}" if nbytes < 10 * scale else f"{nbytes / scale:.0f} {unit}"
    return f"{nbytes} B"


def cache_note(path):
    """Where something large was written in the package cache and its size, with the way to move the cache, for the
    line that announces it: ``PATH (0.54 GB, in the package cache: the default ~/.cache/textattack/secondorder; set
    TA_SO_CACHE_DIR=FOLDER to keep it elsewhere)``."""
    return (
        f"{path} ({size_text(disk_size(path))}, in the package cache: {cache_origin()}; set {CACHE_ENV}=FOLDER to "
        "keep it elsewhere)"
    )


def data_path(*parts):
    """Path of a file shipped in the package's ``data/`` folder."""
    return Path(str(files("textattack_secondorder.data").joinpath(*parts)))
