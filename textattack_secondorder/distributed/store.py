"""Finished shards on disk: one file per shard key, written atomically (docs/design/sharding.md).

The driver (never a worker, which may sit on another machine) saves each shard's partial
result as it arrives, under ``<folder>/<key>.pkl``; a re-run loads the shards whose key
is there instead of computing them. A file is written under a temporary name and renamed,
so an interrupted run never leaves half a shard under its final name.

Within a shard, a task that can resume (``resumable = True``, e.g. flip capability) saves its
progress through the store as ``<key>.progress.pkl`` while it runs in this process; the file
is replaced by ``<key>.pkl`` when the shard finishes, and a re-run continues the shard from it.

A store that belongs to one run (``run_key`` given: an output's ``OUT.shards/`` folder) records
that run in ``<folder>/run.json``; an *unfinished* run with another key there is never mixed
with this one (:class:`CheckpointMismatch`), while a finished one is no progress to protect and
a run with other settings simply starts (its shards have other keys).
"""

import json
import pickle
from pathlib import Path

from ..shared.errors import UserError
from ..shared.files import atomic_write_bytes, atomic_write_text

RUN_FILE = "run.json"


class CheckpointMismatch(ValueError, UserError):
    """The folder holds an interrupted run made with other settings: it is never mixed into this run."""


class ShardStore:
    """Partial results of one run, keyed by shard key, in ``folder`` (``None``: kept in memory only).

    ``run_key``: the content digest of the whole run, when the folder belongs to one run (see the
    module docstring); ``None`` for a folder shared by many runs (the κ cache).
    """

    def __init__(self, folder=None, run_key=None):
        self.folder = Path(folder) if folder else None
        self.run_key = run_key
        self.memory = {}
        self.computed = 0  # shards computed (not loaded) by this process
        self.loaded = 0

    def _path(self, key, suffix=".pkl"):
        return self.folder / f"{key}{suffix}"

    def has(self, key):
        return key in self.memory or (self.folder is not None and self._path(key).exists())

    def save(self, key, result):
        self.memory[key] = result
        self.computed += 1
        if self.folder is not None:
            atomic_write_bytes(self._path(key), pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
            self._path(key, ".progress.pkl").unlink(missing_ok=True)

    def load(self, key):
        if key not in self.memory:
            with open(self._path(key), "rb") as f:
                self.memory[key] = pickle.load(f)
            self.loaded += 1
        return self.memory[key]

    def path(self, key):
        """Where the finished shard ``key`` is (or will be) saved; ``None`` for a store in memory."""
        return None if self.folder is None else self._path(key)

    # ------------------------------------------------------------------ progress within a shard
    def save_progress(self, key, progress):
        """Save a running shard's progress (picklable; the task's own format)."""
        if self.folder is not None:
            atomic_write_bytes(self._path(key, ".progress.pkl"), pickle.dumps(progress, pickle.HIGHEST_PROTOCOL))

    def load_progress(self, key):
        """The progress saved by :meth:`save_progress` for an unfinished shard, else ``None``."""
        if self.folder is None or not self._path(key, ".progress.pkl").exists():
            return None
        with open(self._path(key, ".progress.pkl"), "rb") as f:
            return pickle.load(f)

    # ------------------------------------------------------------------ the one run of a folder
    def begin(self):
        """Claim the folder for this run (``run_key``); raise :class:`CheckpointMismatch` if an unfinished
        run with another key is there. A store without ``run_key`` or folder claims nothing."""
        if self.folder is None or self.run_key is None:
            return
        path = self.folder / RUN_FILE
        if path.exists():
            try:
                saved = json.loads(path.read_text())
            except ValueError:
                saved = {}
            if saved.get("key") not in (None, self.run_key) and not saved.get("finished"):
                raise CheckpointMismatch(
                    f"{self.folder} holds an interrupted run made with other settings or examples; delete it or "
                    "use another output path"
                )
        self._mark(False)

    def finish(self):
        """Record that this run's shards are all done (a run with other settings may then start here)."""
        if self.folder is not None and self.run_key is not None:
            self._mark(True)

    def _mark(self, finished):
        atomic_write_text(self.folder / RUN_FILE, json.dumps({"key": self.run_key, "finished": finished}))
