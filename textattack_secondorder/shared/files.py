"""Atomic file writes: a reader (or a crashed run) never sees half a file."""

import io
import os
from pathlib import Path


def atomic_write_bytes(path, data):
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def atomic_write_text(path, text):
    """:func:`atomic_write_bytes` of ``text`` encoded as UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_savefig(fig, path, **kwargs):
    """Save a matplotlib figure as PNG to ``path`` atomically (rendered in memory, then renamed into place)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", **kwargs)
    atomic_write_bytes(path, buf.getvalue())
    return path
