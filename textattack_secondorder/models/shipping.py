"""A model that travels with a Ray task to machines without the driver's disk (docs/design/sharding.md).

The driver packs the files behind the model spec (a user's folder, a ``.py`` file, a demo victim's folder) into a
:class:`~..shared.file_bundle.FileBundle`; a worker loads the spec itself when its own files are the same
(:func:`~.fingerprint.spec_fingerprint`: a shared disk, a copy, the same demo victim) and otherwise the driver's
copy, unpacked once on its machine. A demo victim trained on another machine is another model (another CPU's
float arithmetic), so a worker never trains or uses its own in place of the driver's. A hub id travels as a name.
"""

from ..shared.file_bundle import FileBundle
from .fingerprint import spec_fingerprint, spec_path


class ShippedModel:
    """``spec`` with its files, picklable; :meth:`local_spec` is what a worker loads."""

    def __init__(self, spec):
        self.spec = str(spec)
        path = spec_path(self.spec)
        self.fingerprint = spec_fingerprint(self.spec)
        self.bundle = FileBundle.pack(path) if path is not None else None

    def local_spec(self):
        """The spec to load on this machine: ``spec`` when it names the same files here (or a hub model), else the
        driver's files unpacked here (a ``.py`` spec keeps its ``^variable``)."""
        if self.bundle is None or spec_fingerprint(self.spec) == self.fingerprint:
            return self.spec
        path = self.bundle.materialize()
        variable = self.spec.partition("^")[2]
        return f"{path}^{variable}" if variable else str(path)
