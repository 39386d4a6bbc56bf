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


def data_path(*parts):
    """Path of a file shipped in the package's ``data/`` folder."""
    return Path(str(files("textattack_secondorder.data").joinpath(*parts)))
