"""Attack sweeps over models × recipes × one dataset, sharded and resumable, on Ray if asked
(docs/design/sharding.md)."""

from .sweep import cell_name, run_attack_sweep, sweep_shards
from .task import SweepTask, adversarial_task

__all__ = ["SweepTask", "adversarial_task", "cell_name", "run_attack_sweep", "sweep_shards"]
