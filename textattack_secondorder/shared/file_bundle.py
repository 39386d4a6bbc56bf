"""Files that travel inside a task: a file or a folder as bytes, unpacked on another machine (docs/design/sharding.md).

A Ray worker need not share a disk with the driver: the driver packs what a task reads (a user's model folder,
a ``.py`` model file) into a :class:`FileBundle`, which travels pickled with the task; the worker unpacks it once
under its temporary folder, in a folder named by the bundle's digest. A worker's outputs (a trained model, its
measurements) come back the same way and the driver writes them where a run in one process would have.
"""

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .digest import Digest
from .files import atomic_write_bytes, atomic_write_text

COMPLETE = ".complete"  # written last into an unpacked copy: a copy without it is unpacked again


@dataclass
class FileBundle:
    """The files of one file or folder: ``files`` maps each path relative to the folder (a file: its name) to its
    bytes; ``is_file``: the bundle is one file, ``name`` its name (a folder's: the folder's name)."""

    name: str
    files: dict = field(default_factory=dict)
    is_file: bool = False

    @classmethod
    def pack(cls, path, skip=()):
        """The bundle of the file or folder at ``path`` (every file under a folder, except the relative paths in
        ``skip`` and the files this module writes)."""
        path = Path(path)
        if path.is_file():
            return cls(path.name, {path.name: path.read_bytes()}, is_file=True)
        files = {}
        for p in sorted(path.rglob("*")):
            rel = p.relative_to(path).as_posix()
            if p.is_file() and rel not in skip and p.name != COMPLETE:
                files[rel] = p.read_bytes()
        return cls(path.name, files)

    @property
    def digest(self):
        """Content digest of the names and bytes (the same files give the same digest wherever they were packed)."""
        h = Digest(self.name, self.is_file)
        for rel in sorted(self.files):
            h.update(rel).update(self.files[rel])
        return h.hexdigest(20)

    @property
    def size(self):
        return sum(len(b) for b in self.files.values())

    def unpack(self, folder):
        """Write the files under ``folder`` (each atomically); returns the path of the file or of ``folder``."""
        folder = Path(folder)
        for rel, data in self.files.items():
            atomic_write_bytes(folder / rel, data)
        return folder / self.name if self.is_file else folder

    def install(self, folder):
        """Put a folder bundle at ``folder`` as a whole: unpacked beside it, then renamed into place (a reader, or a
        run killed meanwhile, sees the old folder or the new one, never half of it)."""
        folder = Path(folder)
        tmp = folder.with_name(f".{folder.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            self.unpack(tmp)
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return folder

    def materialize(self, root=None):
        """This bundle unpacked once on this machine, under ``root`` (default: the temporary folder), in a folder
        named by its digest; an earlier whole copy is reused. Returns the path of the file or folder."""
        base = Path(root or tempfile.gettempdir()) / f"textattack-so-files-{os.getuid()}" / self.digest
        folder = base if self.is_file else base / self.name
        if not (base / COMPLETE).exists():
            self.unpack(folder)
            atomic_write_text(base / COMPLETE, "")
        return folder / self.name if self.is_file else folder
