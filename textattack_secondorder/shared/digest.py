"""The one content digest: what names a thing by its content (shard keys, κ cache, resume parts, model fingerprints).

* :func:`content_digest` — hex SHA-256 of a JSON-able value, serialised canonically (keys sorted,
  non-JSON values by ``str``, text as UTF-8), optionally cut to ``length`` characters;
* :class:`Digest` — the same hash fed piece by piece, for content too large to serialise at once
  (a model's tensors, the files behind a model spec): ``bytes`` go in as they are, anything else as
  :func:`content_digest` would serialise it, so ``Digest().update(x).hexdigest() == content_digest(x)``.
"""

import hashlib
import json


def canonical_json(value):
    """The bytes :func:`content_digest` hashes: JSON with sorted keys, ``str`` for other values, UTF-8."""
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False).encode("utf-8")


class Digest:
    """Incremental :func:`content_digest`: ``update`` with bytes (raw) or JSON-able values, then ``hexdigest``."""

    def __init__(self, *values):
        self._hash = hashlib.sha256()
        for value in values:
            self.update(value)

    def update(self, value):
        self._hash.update(value if isinstance(value, (bytes, bytearray, memoryview)) else canonical_json(value))
        return self

    def hexdigest(self, length=None):
        return self._hash.hexdigest()[:length]


def content_digest(value, length=None):
    """Hex SHA-256 of ``value`` serialised by :func:`canonical_json` (the first ``length`` characters)."""
    return Digest(value).hexdigest(length)
