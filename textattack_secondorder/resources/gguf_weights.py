"""Tensors of a GGUF file, de-quantised one at a time into a torch dtype (docs/design/offline-resources.md).

Reads the header itself (the ``gguf`` package's reader parses every metadata array element by element:
most of a minute for Gemma's 262,144-entry vocabulary on a busy 2-core machine) and memory-maps the data;
each tensor is de-quantised with ``gguf.quants`` in row chunks straight into the target dtype, so the
largest transient float32 array is one chunk, never the model.
"""

import mmap
import struct
from pathlib import Path

import numpy as np
import torch

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
CHUNK_ELEMENTS = 1 << 22  # elements de-quantised per step (16 MB of float32)


class GGUFWeights:
    """Metadata (scalars, short arrays, and the long arrays named in ``arrays``; other long arrays are
    skipped) and tensor infos of a GGUF file.

    ``tensor(name, dtype)`` returns the de-quantised tensor in PyTorch's (rows, columns) order.
    """

    def __init__(self, path, arrays=()):
        self.path = Path(path)
        self._arrays = set(arrays)
        with open(self.path, "rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        self.metadata, self.tensors = {}, {}
        self._pos = 0
        if self._read(4) != b"GGUF":
            raise ValueError(f"{self.path} is not a GGUF file")
        version = self._unpack("<I")
        if version < 2:
            raise ValueError(f"{self.path}: GGUF version {version} is not supported")
        n_tensors, n_kv = self._unpack("<Q"), self._unpack("<Q")
        for _ in range(n_kv):
            key = self._string()
            self.metadata[key] = self._value(self._unpack("<I"), keep_arrays=None if key in self._arrays else 64)
        infos = []
        for _ in range(n_tensors):
            name = self._string()
            dims = [self._unpack("<Q") for _ in range(self._unpack("<I"))]
            infos.append((name, dims, self._unpack("<I"), self._unpack("<Q")))
        align = int(self.metadata.get("general.alignment", 32))
        start = (self._pos + align - 1) // align * align
        for name, dims, qtype, offset in infos:
            self.tensors[name] = (tuple(reversed(dims)), qtype, start + offset)

    def _read(self, n):
        b = self._map[self._pos : self._pos + n]
        self._pos += n
        return b

    def _unpack(self, fmt):
        (v,) = struct.unpack_from(fmt, self._map, self._pos)
        self._pos += struct.calcsize(fmt)
        return v

    def _string(self):
        return self._read(self._unpack("<Q")).decode("utf-8", errors="replace")

    def _value(self, vtype, keep_arrays=64):
        """The value at the current position; an array longer than ``keep_arrays`` (None: no limit) is skipped
        (None); a kept numeric array is read in one step (a numpy array)."""
        if vtype in _SCALARS:
            return self._unpack(_SCALARS[vtype])
        if vtype == _STRING:
            return self._string()
        if vtype != _ARRAY:
            raise ValueError(f"{self.path}: unknown GGUF value type {vtype}")
        etype, count = self._unpack("<I"), self._unpack("<Q")
        skip = keep_arrays is not None and count > keep_arrays
        if etype in _SCALARS and etype != 7 and (skip or keep_arrays is None):
            fmt = _SCALARS[etype]
            values = None if skip else np.frombuffer(self._map, dtype=np.dtype(fmt), count=count, offset=self._pos)
            self._pos += count * struct.calcsize(fmt)
            return None if skip else values.copy()
        if etype == _STRING and skip:  # skipped string by string (lengths only)
            for _ in range(count):
                n = self._unpack("<Q")  # read first: it moves the position past the length
                self._pos += n
            return None
        return [self._value(etype) for _ in range(count)]

    def tensor(self, name, dtype):
        """Tensor ``name`` de-quantised into torch ``dtype``, shape (rows, columns) as PyTorch stores it."""
        # optional: the [offline] extra
        from gguf import GGML_QUANT_SIZES, GGMLQuantizationType
        from gguf.quants import dequantize

        shape, qtype, offset = self.tensors[name]
        qtype = GGMLQuantizationType(qtype)
        block, block_bytes = GGML_QUANT_SIZES[qtype]
        cols = shape[-1]
        rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
        row_bytes = cols // block * block_bytes
        raw = np.frombuffer(self._map, dtype=np.uint8, count=rows * row_bytes, offset=offset).reshape(rows, row_bytes)
        out = torch.empty((rows, cols), dtype=dtype)
        step = max(1, CHUNK_ELEMENTS // cols)
        for r in range(0, rows, step):
            part = dequantize(raw[r : r + step], qtype).reshape(-1, cols)
            out[r : r + step] = torch.from_numpy(np.array(part, dtype=np.float32))  # a copy: the map is read-only
        del raw
        self._release(offset, rows * row_bytes)
        return out.reshape(shape)

    def _release(self, offset, length):
        """Drop the file's pages just read from this process's memory (they stay in the page cache): without it
        the whole 242 MB file counts in the set-up's peak RSS beside the de-quantised weights."""
        start = offset // mmap.PAGESIZE * mmap.PAGESIZE
        if hasattr(self._map, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
            self._map.madvise(mmap.MADV_DONTNEED, start, offset + length - start)

    def close(self):
        self._map.close()
