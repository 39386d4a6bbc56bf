"""Attack sweeps: every (model, recipe) cell over one dataset, sharded, resumable, on Ray if asked.

Work items are the examples of each cell; a shard holds up to ``shard_size`` consecutive
examples of one cell and is keyed by the model spec (and the files behind it), the recipe,
the seed, the query budget and its examples (docs/design/sharding.md). Finished shards are saved
as they arrive; the merge concatenates each cell's shards in dataset order and recomputes the
summary from the merged rows (:mod:`.merge`).
"""

import json
import re
from pathlib import Path

import pandas as pd

from ..distributed import ShardStore, make_shards, run_shards, shard_count
from ..models.fingerprint import spec_fingerprint
from ..shared.files import atomic_write_text
from .merge import write_cell
from .task import SweepTask

DEFAULT_SHARD_SIZE = 10  # most examples per shard when --shards is not given (also without Ray: resume unit)


def cell_name(model, recipe):
    """File-name-safe ``<model>__<recipe>`` of a cell."""

    def clean(s):
        return re.sub(r"[^A-Za-z0-9._=-]+", "_", Path(s.split("^")[0]).stem if s.endswith(".py") else s)

    return f"{clean(model)}__{clean(recipe)}".strip("_")


def sweep_shards(models, recipes, examples, seed, query_budget, options=None):
    """All shards of the sweep, cell by cell (model-major), each cell's examples in order
    (``--shards`` counts shards per cell)."""
    items = [[t, None if y is None else int(y)] for t, y in examples]
    out = []
    for model in models:
        fp = spec_fingerprint(model)
        for recipe in recipes:
            key = {
                "what": "attack-sweep",
                "model": model,
                "files": fp,
                "recipe": recipe,
                "seed": seed,
                "query_budget": query_budget,
            }
            cell = make_shards(items, key, shard_count(len(items), options, DEFAULT_SHARD_SIZE, DEFAULT_SHARD_SIZE))
            for s in cell:
                s.context = {"model": model, "recipe": recipe}
                s.index = len(out)
                out.append(s)
    return out


def run_attack_sweep(
    models,
    recipes,
    examples,
    out_dir,
    options=None,
    seed=765,
    query_budget=None,
    device=None,
    batch_size=64,
    progress=True,
    metrics=None,
):
    """Attack ``examples`` with every recipe on every model; returns ``(summary DataFrame, RunStats)``.

    Writes ``out_dir/<model>__<recipe>.csv`` (TextAttack's CSV columns and ours),
    ``out_dir/summary.csv`` / ``summary.json`` (one row per cell) and keeps the finished
    shards in ``out_dir/shards/`` for resuming. ``metrics`` (name → TextAttack ``Metric``, as in
    ``AttackArgs(metrics=...)``) adds rows to every cell's summary, e.g. ``{asr1.ROW: asr1.ASR1()}``
    (:mod:`~..metrics.asr1`), which ``textattack-so attack-sweep`` passes.
    """
    out_dir = Path(out_dir)
    shards = sweep_shards(models, recipes, examples, seed, query_budget, options)
    task = SweepTask(seed, query_budget, device, batch_size)
    results, stats = run_shards(
        task, shards, ShardStore(out_dir / "shards"), options, desc="sweep shards", progress=progress
    )
    state = task.setup()
    by_cell, rows = {}, []
    for shard, part in zip(shards, results):
        by_cell.setdefault((shard.context["model"], shard.context["recipe"]), []).extend(part)
    for (model, recipe), cell in by_cell.items():
        attack = state.attack(model, recipe)
        summary = write_cell(cell, attack, out_dir / f"{cell_name(model, recipe)}.csv", metrics)
        rows.append({"model": model, "recipe": recipe, "examples": len(cell), **summary})
    table = pd.DataFrame(rows)
    atomic_write_text(out_dir / "summary.csv", table.to_csv(index=False))
    atomic_write_text(out_dir / "summary.json", json.dumps(rows, indent=2, default=str))
    return table, stats
