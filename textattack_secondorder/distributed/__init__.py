"""Sharded, resumable runs in this process or on a Ray cluster (docs/design/sharding.md)."""

from .runner import LOCAL, ClusterError, ClusterOptions, RunStats, run_shards
from .shards import Shard, make_shards, shard_count
from .store import CheckpointMismatch, ShardStore

__all__ = [
    "LOCAL",
    "ClusterError",
    "ClusterOptions",
    "RunStats",
    "run_shards",
    "Shard",
    "make_shards",
    "shard_count",
    "CheckpointMismatch",
    "ShardStore",
]
