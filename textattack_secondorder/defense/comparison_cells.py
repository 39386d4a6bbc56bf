"""``defend --compare --ray``: each cell (a defense and a seed) one task on a Ray worker (docs/design/sharding.md).

The cells go through the package's one runner (:func:`~..distributed.run_shards`), one shard a cell. A worker
needs no shared disk: the task carries the comparison's rows (read once by the driver) and the given model's files
(:class:`~..models.shipping.ShippedModel`); a cell runs :func:`~.comparison.run_cell` — the code of a run in one
process — in a folder of the worker's own, and returns its row with the files it wrote (the trained model, the
measurements, the κ store's entries), which the driver installs in ``OUT`` as a run in one process would have
left them, the row last. What an earlier run left of an unfinished cell (its trained model, its measurements)
travels with the cell, so it is not computed again; a worker restarted after its process died finds what the
dead one had saved in the same folder (named by the cell's key) and goes on from there; a finished cell (its row
in ``OUT/rows``) is never sent.
"""

import json
import os
import shutil
import tempfile
from pathlib import Path

from ..distributed import ShardStore, make_shards, run_shards
from ..models.shipping import ShippedModel
from ..shared.file_bundle import FileBundle
from ..shared.files import atomic_write_bytes, atomic_write_text
from .comparison import SETTINGS, run_cell
from .comparison_plan import cell_name

#: environment of the workers: TextAttack's Attacker draws a bar even when told to be silent (A2T's sets)
WORKER_ENV = {"TQDM_DISABLE": "1"}


def _cell_files(out, name):
    """What ``out`` holds of the cell ``name`` (its model when whole, its measurements), as one bundle."""
    out = Path(out)
    parts = [f"work/{name}"] + ([f"models/{name}"] if (out / "models" / name / "defense.json").exists() else [])
    files = {
        f"{part}/{rel}": data
        for part in parts
        if (out / part).is_dir()
        for rel, data in FileBundle.pack(out / part).files.items()
    }
    return FileBundle(name, files) if files else None


class CellTask:
    """The picklable work of one comparison cell (module docstring)."""

    def __init__(self, settings, data, model):
        self.settings, self.data, self.model = settings, data, model

    def setup(self):
        return {"model": self.model.local_spec()}

    def run(self, state, shard):
        ((defense, seed),) = shard.items
        name = cell_name(defense, seed)
        # the same folder for every try of this cell on this machine: a restarted worker goes on from what was saved
        folder = Path(tempfile.gettempdir()) / f"textattack-so-compare-{os.getuid()}" / shard.key
        if not folder.exists() and shard.context.get("begun") is not None:
            shard.context["begun"].unpack(folder)
        row = run_cell(self.settings, self.data, defense, seed, folder, False, state["model"], shard.context["home"])
        files = FileBundle.pack(folder, skip=(f"rows/{name}.json",))
        shutil.rmtree(folder, ignore_errors=True)
        return {"row": row, "files": files}


class CellStore(ShardStore):
    """The comparison's folder as the runner's store: a cell is finished when its row is in ``OUT/rows``; a cell
    that arrives is installed there (files, then the model folder as a whole, then the row) and ``done(row)`` is
    called (the report and the progress line)."""

    def __init__(self, out, names, done):
        super().__init__()
        self.out, self.names, self.done = Path(out), names, done

    def _row(self, key):
        return self.out / "rows" / f"{self.names[key]}.json"

    def has(self, key):
        return self._row(key).exists()

    def save(self, key, result):
        name, files = self.names[key], result["files"]
        model = f"models/{name}/"
        for rel, data in files.files.items():
            if not rel.startswith(model):
                atomic_write_bytes(self.out / rel, data)
        inside = {rel[len(model) :]: data for rel, data in files.files.items() if rel.startswith(model)}
        if inside and not (self.out / model / "defense.json").exists():
            FileBundle(name, inside).install(self.out / model)
        atomic_write_text(self._row(key), json.dumps(result["row"], indent=1) + "\n")
        self.computed += 1
        self.done(result["row"])

    def load(self, key):
        return json.loads(self._row(key).read_text())


def run_cells_on_cluster(settings, data, cells, out, options, done):
    """Run ``cells`` (``[(defense, seed)]``, in the order given) as Ray tasks through
    :func:`~..distributed.run_shards`; ``done(row)`` after each. Returns the runner's
    :class:`~..distributed.RunStats`."""
    model = ShippedModel(settings["model"])
    key = {"what": "defend --compare", "model": model.fingerprint, **{k: settings.get(k) for k in SETTINGS}}
    # one shard a cell, each keyed by the settings and its cell alone (not its place in this run's list, which
    # changes when an earlier run finished some cells): a worker's folder of a cell is found again
    shards = [make_shards([[d, s]], key)[0] for d, s in cells]
    for index, shard in enumerate(shards):
        shard.index = index
        shard.context = {"home": str(out), "begun": _cell_files(out, cell_name(*shard.items[0]))}
    store = CellStore(out, {s.key: cell_name(*s.items[0]) for s in shards}, done)
    task = CellTask(settings, data, model)
    _, stats = run_shards(task, shards, store, options, desc="cells", progress=False, env=WORKER_ENV)
    return stats
