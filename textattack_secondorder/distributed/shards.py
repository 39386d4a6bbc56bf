"""Deterministic, content-keyed shards of a long computation (docs/methods.md §7).

A run's work items (examples, protected pairs, (model, recipe, example range) cells ...)
are cut into contiguous shards in their natural order. A shard is named by the SHA-256 of
the run's settings and of its own items, so

* the same items and settings always give the same shard keys (a re-run finds the
  finished shards on disk and skips them), whatever the number of workers;
* any change of setting or data gives new keys: a stale partial result is never reused.
"""
import hashlib
import json
from dataclasses import dataclass, field


def content_key(*parts):
    """Hex SHA-256 (first 20 characters) of ``parts`` serialised as JSON (non-JSON values by ``str``)."""
    blob = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


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


def make_shards(items, settings, shards=1, size=None):
    """Cut ``items`` into ``shards`` contiguous shards of near-equal size (or shards of ``size`` items).

    Args:
        items: the run's work items in order (JSON-serialisable: they are part of the key).
        settings: everything else that decides a shard's result (model, method, seeds ...).
        shards: number of shards (at most ``len(items)``); ignored when ``size`` is given.
    Returns a list of :class:`Shard` whose keys hash ``settings`` and the shard's items.
    """
    items = list(items)
    if not items:
        return []
    if size is None:
        n = max(1, min(int(shards), len(items)))
        bounds = [round(i * len(items) / n) for i in range(n + 1)]
    else:
        bounds = list(range(0, len(items), max(1, int(size)))) + [len(items)]
    out = []
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        part = items[a:b]
        out.append(Shard(i, a, part, content_key(settings, a, part)))
    return out
