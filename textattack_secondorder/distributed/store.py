"""Finished shards on disk: one file per shard key, written atomically (docs/methods.md §7).

The driver (never a worker, which may sit on another machine) saves each shard's partial
result as it arrives, under ``<folder>/<key>.pkl``; a re-run loads the shards whose key
is there instead of computing them. A file is written under a temporary name and renamed,
so an interrupted run never leaves half a shard under its final name.
"""

import pickle
from pathlib import Path

from ..shared.files import atomic_write_bytes


class ShardStore:
    """Partial results of one run, keyed by shard key, in ``folder`` (``None``: kept in memory only)."""

    def __init__(self, folder=None):
        self.folder = Path(folder) if folder else None
        self.memory = {}
        self.computed = 0  # shards computed (not loaded) by this process
        self.loaded = 0

    def _path(self, key):
        return self.folder / f"{key}.pkl"

    def has(self, key):
        return key in self.memory or (self.folder is not None and self._path(key).exists())

    def save(self, key, result):
        self.memory[key] = result
        self.computed += 1
        if self.folder is not None:
            atomic_write_bytes(self._path(key), pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))

    def load(self, key):
        if key not in self.memory:
            with open(self._path(key), "rb") as f:
                self.memory[key] = pickle.load(f)
            self.loaded += 1
        return self.memory[key]
