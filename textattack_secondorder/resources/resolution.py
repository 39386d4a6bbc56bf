"""The one decision of what fills a slot, without loading anything (docs/design/offline-resources.md).

Order for every slot: the explicit argument, then the slot's environment variable, then
the default. The default is the papers' choice when it can be had (the Hugging Face hub
is reachable, or, for Hugging Face models, a copy is in the local cache), else the
packaged offline asset, else the slot's offline alternatives in order. The loaders
(:mod:`.loaders`) build exactly what :func:`resolve` returns, and
``textattack-so resources`` prints :func:`.loaders.describe`, so both always agree.
"""

import functools
import os
import socket
from dataclasses import dataclass

from huggingface_hub import try_to_load_from_cache

from .errors import ResourceError
from .slots import SLOTS, offline_missing

_TRUE = ("1", "true", "yes", "on")


def _env_true(name):
    return os.environ.get(name, "").strip().lower() in _TRUE


@functools.lru_cache(maxsize=1)
def hub_available(timeout=2.0):
    """True when the Hugging Face hub may be used.

    False when ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE``/``TA_SO_OFFLINE`` is set,
    otherwise a quick TCP connection test to the hub endpoint (once per process).
    """
    if any(_env_true(v) for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TA_SO_OFFLINE")):
        return False
    host = os.environ.get("HF_ENDPOINT", "https://huggingface.co").split("://")[-1].split("/")[0]
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


def in_hf_cache(model_id):
    """True when ``model_id`` is a local folder or its ``config.json`` is in the Hugging Face cache."""
    if os.path.isdir(model_id):
        return True
    try:
        return isinstance(try_to_load_from_cache(model_id, "config.json"), str)
    except Exception:  # noqa: BLE001 - no cache, bad id: not cached
        return False


@dataclass(frozen=True)
class Resolution:
    """What a slot resolves to: ``value``, where it came from, and whether it can be loaded here."""

    slot: str
    value: str
    origin: str  # "argument", "environment ($VAR)", "default (online ...)", "default (offline ...)"
    available: bool
    note: str = ""


def resolve(slot, value=None, online=None):
    """Decide what fills ``slot`` without loading anything. Returns a :class:`Resolution`.

    ``online`` forces the hub test's answer (``None``: ask :func:`hub_available`).
    """
    if slot not in SLOTS:
        raise KeyError(f"Unknown resource slot {slot!r}; slots: {', '.join(SLOTS)}")
    s = SLOTS[slot]
    if value:
        return Resolution(slot, str(value), "argument", True)
    if os.environ.get(s.env):
        return Resolution(slot, os.environ[s.env], f"environment (${s.env})", True)
    online = hub_available() if online is None else online
    if online:
        return Resolution(slot, s.online, "default (online: Hugging Face hub reachable)", True)
    if s.online_is_hf_model and in_hf_cache(s.online):
        return Resolution(slot, s.online, "default (online model found in the Hugging Face cache)", True)
    missing = []
    for n, candidate in enumerate((s.offline,) + tuple(s.alternatives)):
        why = offline_missing(slot, candidate)
        if not why:
            note = "" if n == 0 else f"the offline default {s.offline!r} is not available: {'; '.join(missing)}"
            origin = "default (offline)" if n == 0 else "default (offline alternative)"
            return Resolution(slot, candidate, origin, True, note)
        missing.append(f"{candidate}: {why}")
    return Resolution(
        slot, s.offline, "default (offline)", False, f"nothing available ({'; '.join(missing)}): {s.install_hint}"
    )


def require(slot, value=None, online=None):
    """Like :func:`resolve`, but raise one clear :class:`ResourceError` when nothing is available."""
    r = resolve(slot, value, online)
    if not r.available:
        s = SLOTS[slot]
        raise ResourceError(
            f"No {slot} available: the hub cannot be reached (or offline mode is set), {s.online!r} is not "
            f"cached, and {r.note}. Fix: {s.install_hint}, or set ${s.env} to a local path/name, or pass it "
            "explicitly."
        )
    return r
