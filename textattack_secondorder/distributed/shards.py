"""Deterministic, content-keyed shards of a long computation (docs/design/sharding.md).

A run's work items (examples, protected pairs, (model, recipe, example range) cells ...)
are cut into contiguous shards in their natural order. A shard is named by the content digest
(:func:`~..shared.digest.content_digest`) of the run's settings and of its own items, so

* the same items and settings always give the same shard keys (a re-run finds the
  finished shards on disk and skips them), whatever the number of workers;
* any change of setting or data gives new keys: a stale partial result is never reused.
"""

from dataclasses import dataclass, field

from ..shared.digest import content_digest

KEY_LENGTH = 20  # hex characters of a shard key


@dataclass
class Shard:
    """One unit of distributed work: ``items`` (plain, picklable) starting at ``start`` in the run's order."""

    index: int
    start: int
    items: list
    key: str = ""
    context: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.items)


def shard_count(n_items, options, ray_size, local_size=None):
    """How many shards a run of ``n_items`` is cut into — the one rule every command follows.

    ``--shards N`` gives N (at most one per item); otherwise a Ray run (``--ray``) uses enough
    shards of at most ``ray_size`` items that every worker gets several, and a run in this process
    shards of at most ``local_size`` items (``None``: one shard). :func:`make_shards` then cuts
    that many near-equal shards. ``options`` is a
    :class:`~.runner.ClusterOptions` or ``None`` (this process, no ``--shards``).
    """
    if options is not None and options.num_shards:
        return max(1, min(int(options.num_shards), n_items))
    size = ray_size if options is not None and options.distributed else local_size
    return 1 if size is None else max(1, -(-n_items // size))


def make_shards(items, settings, count=1, size=None):
    """Cut ``items`` into ``count`` contiguous shards of near-equal size (or shards of ``size`` items).

    Args:
        items: the run's work items in order (JSON-serialisable: they are part of the key).
        settings: everything else that decides a shard's result (model, method, seeds ...).
        count: number of shards (at most ``len(items)``); ignored when ``size`` is given.
    Returns a list of :class:`Shard` whose keys hash ``settings`` and the shard's items.
    """
    items = list(items)
    if not items:
        return []
    if size is None:
        n = max(1, min(int(count), len(items)))
        bounds = [round(i * len(items) / n) for i in range(n + 1)]
    else:
        bounds = list(range(0, len(items), max(1, int(size)))) + [len(items)]
    out = []
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        part = items[a:b]
        out.append(Shard(i, a, part, content_digest([settings, a, part], KEY_LENGTH)))
    return out
