"""Start-up hook of textattack-secondorder (imported by ``textattack_secondorder_hook.pth``).

It only installs a tiny ``sys.meta_path`` finder; nothing heavy is imported at
Python start-up. When ``textattack`` is imported later, the finder

* puts the NLTK stopwords this package ships on ``nltk.data.path`` just before
  ``textattack`` runs (TextAttack reads them at import time and has no offline
  copy), and on transformers 5 defines the one removed name flair (imported by
  TextAttack) still imports, ``transformers.LayoutLMv2FeatureExtractor``, and
* once ``textattack`` has finished importing, registers this package's recipes in
  TextAttack's recipe tables, so the stock ``textattack`` command knows them, and
  lets our results add their columns to TextAttack's CSV log and our recipes add
  rows to its summary table (``textattack_secondorder.plugin.hook``).

When it is one of our own modules that imports ``textattack`` (say
``from textattack_secondorder.transformations.neighborhood import ...`` before any
``import textattack``), that module is still half-initialised when TextAttack finishes,
and registering then would import it again and fail. The registration then waits until
none of our modules is mid-import; the finder also watches our own modules for that.

Set ``TEXTATTACK_SECONDORDER_NO_HOOK=1`` to switch it off; then call
``textattack_secondorder.register()`` yourself or use ``python -m textattack_secondorder``.
"""

import os
import sys

_OPT_OUT = "TEXTATTACK_SECONDORDER_NO_HOOK"
_WATCHED = ("textattack",)
_OWN = "textattack_secondorder"
_pending = False  # TextAttack finished importing while one of our modules was mid-import


def _own(name):
    return name == _OWN or name.startswith(_OWN + ".")


def _own_initializing(but=None):
    """Names of our modules that are being imported right now (``but`` excepted)."""
    return [
        n
        for n, m in list(sys.modules.items())
        if _own(n) and n != but and getattr(getattr(m, "__spec__", None), "_initializing", False)
    ]


def _after_textattack(finished=None):
    """Register now, or (while one of our modules is still mid-import) once it has finished."""
    global _pending
    if _own_initializing(but=finished):
        _pending = True
        return
    _pending = False
    _call("after_textattack_import")


class _Loader:
    """Delegates to the real loader and calls back after (or before) executing the module."""

    def __init__(self, loader, name):
        self._loader = loader
        self._name = name

    def __getattr__(self, attr):
        return getattr(self._loader, attr)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = self._loader
        if _own(self._name):
            self._loader.exec_module(module)
            if _pending:
                _after_textattack(finished=self._name)
            return
        _call("before_textattack_import")
        self._loader.exec_module(module)
        _after_textattack()


def _call(function, *args):
    try:
        from textattack_secondorder.plugin import hook
    except ImportError:  # package half-uninstalled: stay out of the way
        return
    getattr(hook, function)(*args)


class _Finder:
    """Meta-path finder that only answers for the watched TextAttack modules and our own."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _WATCHED and not _own(fullname):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader, fullname)
        return spec

    def invalidate_caches(self):
        pass


def install():
    if os.environ.get(_OPT_OUT, "").strip().lower() not in ("", "0", "false", "no"):
        return
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


install()
