"""Where the package keeps its cache and finds the files it ships.

Nothing here imports torch or TextAttack.
"""
import os
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
        root = os.path.join(ta, "secondorder") if ta else os.path.join(
            os.path.expanduser("~"), ".cache", "textattack", "secondorder"
        )
    path = Path(root, *parts)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def data_path(*parts):
    """Path of a file shipped in the package's ``data/`` folder."""
    from importlib.resources import files

    return Path(str(files("textattack_secondorder.data").joinpath(*parts)))


def atomic_write_bytes(path, data):
    """Write ``data`` to ``path`` through a temporary file, so a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def atomic_write_text(path, text):
    atomic_write_bytes(path, text.encode("utf-8"))
