"""Run a sharded computation in this process or on a Ray cluster, resumably (docs/design/sharding.md).

A *task* is a small picklable object with two methods:

* ``setup()`` — load what every shard needs (the model, a masked LM ...); called once per
  worker (a Ray actor), so a worker loads its model once and reuses it for all its shards;
* ``run(state, shard)`` — the partial result of one :class:`~.shards.Shard` (picklable).
  A task with ``resumable = True`` takes ``run(state, shard, saved, save)`` instead: ``saved`` is
  the progress it saved earlier in this shard (``None`` at first), ``save(progress)`` stores its
  progress while it runs (this process only; ``None`` on Ray, where shards are small).

:func:`run_shards` is the one way every command runs its shards: it computes the shards whose
key is not yet in the :class:`~.store.ShardStore`, saves each one as it finishes (atomically,
by the driver) and returns every shard's result in shard order; the caller merges them
exactly. Without ``--ray`` (the default run included) the shards run one after another in
this process, with the same keys, store and format. With Ray, ``workers`` actors
(``num_cpus = threads_per_worker``, ``num_gpus = gpus_per_worker``) take shards from a
:class:`ray.util.ActorPool`; an actor whose process dies is restarted by Ray and its shard
retried (``max_restarts``/``max_task_retries``), so no shard is lost or counted twice.
Ctrl-C stops the run with the finished shards on disk; running it again resumes.
"""

import logging
import os
import time
from dataclasses import dataclass, field

import torch
from tqdm.auto import tqdm

from ..shared.errors import UserError
from ..shared.specs import CLUSTER_FLAGS

# ray inside functions: optional (the [ray] extra)

logger = logging.getLogger(__name__)

LOCAL = "local"  # --ray without an address: start a Ray instance on this machine


class ClusterError(RuntimeError, UserError):
    """Ray is missing or the cluster cannot be reached (one line, exit code 2)."""


@dataclass
class ClusterOptions:
    """How to spread a run: ``ray`` None (this process), ``"local"``, ``"auto"`` or ``"HOST:PORT"``.

    ``num_shards``: the ``--shards`` count (default: :func:`~.shards.shard_count`'s rule);
    ``workers``: Ray actors (default: the cluster's CPUs // ``threads_per_worker``, or its
    GPUs // ``gpus_per_worker``); ``threads_per_worker``: torch threads (and Ray CPUs) per actor.
    Built from the command-line flags or a config's ``[run]`` table by :meth:`from_settings` only.
    """

    ray: str = None
    num_shards: int = None
    workers: int = None
    threads_per_worker: int = 1
    gpus_per_worker: float = 0.0
    max_retries: int = 3

    # the flag / config names (``--shards``, ``[run] shards``) of the fields
    FLAGS = CLUSTER_FLAGS

    @classmethod
    def from_settings(cls, settings):
        """The options of the cluster flags in ``settings`` (a mapping: ``vars(args)`` or a ``[run]`` table);
        absent or ``None`` values keep the defaults. A bad value is a :class:`ClusterError` (one line)."""
        given = {field: settings[flag] for flag, field in cls.FLAGS.items() if settings.get(flag) is not None}
        for name in ("shards", "workers", "threads_per_worker"):
            value = settings.get(name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                flag = "--" + name.replace("_", "-")
                raise ClusterError(f"{flag} {value!r} is not allowed: must be a whole number >= 1")
        gpus = settings.get("gpus_per_worker")
        if gpus is not None:
            try:
                given["gpus_per_worker"] = float(gpus)
            except (TypeError, ValueError):
                raise ClusterError(f"--gpus-per-worker {gpus!r} is not allowed: must be a number >= 0") from None
            if given["gpus_per_worker"] < 0:
                raise ClusterError(f"--gpus-per-worker {gpus} is not allowed: must be >= 0")
        return cls(**given)

    @property
    def distributed(self):
        return self.ray is not None

    @property
    def sharded(self):
        """Whether the user asked for Ray or for more than one shard (results then record the layout)."""
        return self.ray is not None or (self.num_shards or 1) > 1


@dataclass
class RunStats:
    """What a run did: shards computed / reused, wall seconds, and seconds spent inside the shards."""

    num_shards: int = 0
    computed: int = 0
    reused: int = 0
    continued: int = 0  # computed shards that went on from the progress an interrupted run saved
    workers: int = 1
    startup_seconds: float = 0.0  # Ray: starting the actors and loading their models, before the first shard
    wall_seconds: float = 0.0
    shard_seconds: list = field(default_factory=list)

    @property
    def overhead_per_shard(self):
        """Wall time not spent computing, per computed shard, with the work spread over the workers."""
        if not self.computed:
            return 0.0
        busy = sum(self.shard_seconds) / max(self.workers, 1)
        return max(self.wall_seconds - self.startup_seconds - busy, 0.0) / self.computed


class _Worker:
    """What a Ray actor (or this process) holds: the task and its loaded state."""

    def __init__(self, task, threads=None):
        if threads:
            torch.set_num_threads(int(threads))
        self.task = task
        self.state = task.setup()

    def run(self, shard, saved=None, save=None):
        t0 = time.perf_counter()
        if getattr(self.task, "resumable", False):
            result = self.task.run(self.state, shard, saved, save)
        else:
            result = self.task.run(self.state, shard)
        return shard.key, result, time.perf_counter() - t0

    def pid(self):
        return os.getpid()  # also tells that the actor is up and its model loaded


def import_ray():
    try:
        import ray
    except ImportError:
        raise ClusterError("--ray needs Ray: pip install 'textattack-secondorder[ray]'") from None
    return ray


def start_ray(address):
    """Connect to ``address`` (``"local"``: a new instance on this machine); returns True if we started it."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    kwargs = {"include_dashboard": False, "logging_level": logging.WARNING, "log_to_driver": True}
    try:
        if address in (None, LOCAL):
            ray.init(**kwargs)
        else:
            ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ClusterError(f"cannot reach the Ray cluster at {address!r}: {e}") from None
    return True


def _worker_count(ray, options, todo):
    if options.workers:
        n = options.workers
    else:
        res = ray.cluster_resources()
        n = int(res.get("CPU", 1) // max(options.threads_per_worker, 1))
        if options.gpus_per_worker:
            n = min(n, int(res.get("GPU", 0) // options.gpus_per_worker))
    if n < 1:
        raise ClusterError(
            f"the cluster has no room for one worker ({options.threads_per_worker} CPU, "
            f"{options.gpus_per_worker} GPU): resources {ray.cluster_resources()}"
        )
    return max(1, min(n, todo))


def run_shards(task, shards, store, options=None, desc="shards", progress=True, local_state=None, env=None):
    """Every shard's result, in shard order, computing only those not already in ``store``.

    Args:
        task: object with ``setup()`` and ``run(state, shard)`` (see the module docstring).
        shards: list of :class:`~.shards.Shard`.
        store: :class:`~.store.ShardStore` (the resume point).
        options: :class:`ClusterOptions` (None: this process).
        local_state: in this process, the already-loaded state (skips ``task.setup()``).
        env: environment variables of the Ray workers (set before they import anything).
    Returns ``(results, RunStats)``.
    """
    options = options or ClusterOptions()
    stats = RunStats(num_shards=len(shards))
    t0 = time.perf_counter()
    store.begin()
    todo = [s for s in shards if not store.has(s.key)]
    stats.reused = len(shards) - len(todo)
    if stats.reused:
        logger.info("%s: %d of %d shards already finished, reusing them", desc, stats.reused, len(shards))
    bar = None
    if progress:
        bar = tqdm(total=len(shards), initial=stats.reused, desc=desc, unit="shard")
    try:
        if todo and options.distributed:
            stats.workers = _run_on_ray(task, todo, store, options, stats, bar, env)
        elif todo:
            worker = _Worker.__new__(_Worker)
            worker.task, worker.state = task, local_state if local_state is not None else task.setup()
            for shard in todo:
                saved = store.load_progress(shard.key)
                stats.continued += saved is not None
                key, result, seconds = worker.run(
                    shard, saved, lambda progress, k=shard.key: store.save_progress(k, progress)
                )
                store.save(key, result)
                stats.shard_seconds.append(seconds)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    store.finish()
    stats.computed = len(todo)
    stats.wall_seconds = time.perf_counter() - t0
    return [store.load(s.key) for s in shards], stats


def _run_on_ray(task, todo, store, options, stats, bar, env=None):
    ray = import_ray()
    from ray.util import ActorPool

    started = start_ray(options.ray)
    try:
        n = _worker_count(ray, options, len(todo))
        actor = ray.remote(
            num_cpus=options.threads_per_worker,
            num_gpus=options.gpus_per_worker or 0,
            max_restarts=-1,
            max_task_retries=options.max_retries,
            **({"runtime_env": {"env_vars": dict(env)}} if env else {}),
        )(_Worker)
        task_ref = ray.put(task)
        actors = [actor.remote(task_ref, options.threads_per_worker) for _ in range(n)]
        t0 = time.perf_counter()
        ray.get([a.pid.remote() for a in actors])
        stats.startup_seconds = time.perf_counter() - t0
        pool = ActorPool(actors)
        # a shard an interrupted run had begun in this process continues from its saved progress
        progress = {s.key: store.load_progress(s.key) for s in todo}
        stats.continued = sum(p is not None for p in progress.values())
        for key, result, seconds in pool.map_unordered(lambda a, s: a.run.remote(s, progress[s.key]), todo):
            store.save(key, result)
            stats.shard_seconds.append(seconds)
            if bar is not None:
                bar.update(1)
        for a in actors:
            ray.kill(a)
        return n
    finally:
        if started:
            ray.shutdown()
