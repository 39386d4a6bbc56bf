"""The gate's TOML configuration: loading and validation before anything heavy is loaded (docs/design/gate.md).

Every mistake is one :class:`ConfigError` line naming the key and the valid choices; the command
turns it into exit code 2.
"""

import os
import re
import sys
from dataclasses import dataclass, field

from ..models.catalogue import VICTIMS, unknown_victim
from .base import COUNT, NON_NEGATIVE, Allowed, ConfigError
from .registry import CHECKS

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None  # _read_toml says what to install

TOP_KEYS = {
    "model": (str, "the victim, in any --model form (mr-cnn, a model folder, file.py^variable, a hub id)"),
    "dataset": (str, "mr, a CSV with text,label columns, or a text file"),
    "split": (str, "split of a named dataset (train/test)"),
    "num_examples": (int, "first N examples (a check's settings may override it)", COUNT),
    "text_column": (str, "CSV text column"),
    "label_column": (str, "CSV label column"),
    "run": (dict, "how to run: device, model_batch_size, ray, shards, workers, threads_per_worker, gpus_per_worker"),
    "check": (list, "the checks, as [[check]] tables"),
}
# run key -> (type, allowed values), as the command-line flags of the same name check them
RUN_KEYS = {
    "device": (str, None),
    "model_batch_size": (int, COUNT),
    "ray": (str, None),
    "shards": (int, COUNT),
    "workers": (int, COUNT),
    "threads_per_worker": (int, COUNT),
    "gpus_per_worker": ((int, float), NON_NEGATIVE),
}
CHECK_KEYS = ("kind", "name", "metric", "threshold", "tolerance", "settings")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # a check's name is a folder name and a JUnit test name


@dataclass
class GateConfig:
    path: str
    model: str
    dataset: str = "mr"
    split: str = "test"
    num_examples: int = None
    text_column: str = "text"
    label_column: str = "label"
    run: dict = field(default_factory=dict)
    checks: list = field(default_factory=list)  # Check instances, in config order


def _read_toml(path):
    if tomllib is None:
        raise ConfigError(
            f"reading TOML needs Python >= 3.11 (tomllib) or the 'tomli' package; this is "
            f"Python {sys.version.split()[0]}: pip install tomli"
        )
    if not os.path.exists(path):
        raise ConfigError(f"config {path!r} not found (write a starter with: textattack-so check --init {path})")
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config {path}: not valid TOML ({e})") from None


def _type_name(t):
    names = {
        str: "a string",
        int: "a whole number",
        float: "a number",
        bool: "true/false",
        dict: "a table",
        list: "a list",
    }
    return " or ".join(names.get(x, x.__name__) for x in (t if isinstance(t, tuple) else (t,)))


def _check_type(key, value, expected):
    types = expected if isinstance(expected, tuple) else (expected,)
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if float in types and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise ConfigError(f"{key} = {value!r} has the wrong type: must be {_type_name(expected)}")


def _check_allowed(key, value, allowed):
    """One line naming ``key``, its value and the rule, when ``value`` breaks ``allowed``."""
    why = allowed.why_not(value) if allowed is not None and value is not None else None
    if why:
        raise ConfigError(f"{key} = {value!r} is not allowed: {why}")


def _unknown(key, value, valid):
    return ConfigError(f"{key}: unknown {value!r}; valid: {', '.join(sorted(valid))}")


def parse_config(data, path="<config>"):
    """A validated :class:`GateConfig` from the TOML mapping ``data``."""
    for key, value in data.items():
        if key not in TOP_KEYS:
            raise _unknown("top-level key", key, TOP_KEYS)
        _check_type(key, value, TOP_KEYS[key][0])
        _check_allowed(key, value, TOP_KEYS[key][2] if len(TOP_KEYS[key]) > 2 else None)
    if "model" not in data:
        raise ConfigError('model: missing; give the victim in any --model form (e.g. model = "mr-cnn")')
    run = data.get("run", {})
    for key, value in run.items():
        if key not in RUN_KEYS:
            raise _unknown("run key", key, RUN_KEYS)
        _check_type(f"run.{key}", value, RUN_KEYS[key][0])
        _check_allowed(f"run.{key}", value, RUN_KEYS[key][1])
    checks_data = data.get("check", [])
    if not checks_data:
        raise ConfigError("check: no [[check]] table; add at least one (kinds: " + ", ".join(CHECKS) + ")")
    checks, names = [], set()
    for i, c in enumerate(checks_data):
        where = f"check[{i}]"
        if not isinstance(c, dict):
            raise ConfigError(f"{where}: must be a [[check]] table")
        for key in c:
            if key not in CHECK_KEYS:
                raise _unknown(f"{where} key", key, CHECK_KEYS)
        kind = c.get("kind")
        if kind is None:
            raise ConfigError(f"{where}.kind: missing; valid: {', '.join(CHECKS)}")
        if kind not in CHECKS:
            raise _unknown(f"{where}.kind", kind, CHECKS)
        cls = CHECKS[kind]
        name = c.get("name", kind)
        _check_type(f"{where}.name", name, str)
        if not NAME.fullmatch(name):
            raise ConfigError(
                f"{where}.name = {name!r} is not allowed: letters, digits, '.', '_' and '-', starting with a "
                "letter or digit (it names the check's folder)"
            )
        where = f"check {name!r}"
        if name in names:
            raise ConfigError(f'{where}: the name is used twice; give each check its own name = "..."')
        names.add(name)
        metric = c.get("metric")
        if metric is None:
            raise ConfigError(f"{where}.metric: missing; valid: {', '.join(cls.METRICS)}")
        if metric not in cls.METRICS:
            raise _unknown(f"{where}.metric", metric, cls.METRICS)
        metric_def = cls.METRICS[metric]
        for key in ("threshold", "tolerance"):
            if key in c:
                _check_type(f"{where}.{key}", c[key], float)
        if "threshold" in c:
            _check_allowed(f"{where}.threshold", c["threshold"], Allowed(*metric_def.bounds))
        if "tolerance" in c:
            _check_allowed(f"{where}.tolerance", c["tolerance"], NON_NEGATIVE)
        settings = dict(c.get("settings", {}))
        _check_type(f"{where}.settings", settings, dict)
        resolved = {}
        for key, value in settings.items():
            if key not in cls.SETTINGS:
                raise _unknown(f"{where}.settings key", key, cls.SETTINGS)
            _, expected, _, *allowed = cls.SETTINGS[key]
            _check_type(f"{where}.settings.{key}", value, expected)
            _check_allowed(f"{where}.settings.{key}", value, allowed[0] if allowed else None)
            resolved[key] = value
        for key, (default, *_) in cls.SETTINGS.items():
            resolved.setdefault(key, default)
        for key in cls.DATA_SETTINGS:
            if resolved.get(key) is None:
                resolved[key] = data.get(key, {"dataset": "mr", "split": "test"}.get(key))
        _check_related(where, resolved)
        checks.append(cls(name, metric, c.get("threshold"), resolved, c.get("tolerance")))
    by_name = {c.name: c for c in checks}
    for c in checks:
        for dep in c.depends_on():
            if dep not in by_name or by_name[dep].kind not in ("attack", "second_order"):
                valid = [d.name for d in checks if d.kind in ("attack", "second_order")]
                raise ConfigError(
                    f"check {c.name!r}.settings.attack: {dep!r} is not an attack or second_order "
                    f"check of this config; valid: {', '.join(valid) or '(none: add one)'}"
                )
    _check_model(data["model"])
    return GateConfig(
        path=str(path),
        model=data["model"],
        dataset=data.get("dataset", "mr"),
        split=data.get("split", "test"),
        num_examples=data.get("num_examples"),
        text_column=data.get("text_column", "text"),
        label_column=data.get("label_column", "label"),
        run=run,
        checks=checks,
    )


def _check_related(where, settings):
    """Rules between two settings of a check."""
    lo, hi = settings.get("char_min"), settings.get("char_max")
    if lo is not None and hi is not None and lo > hi:
        raise ConfigError(f"{where}.settings.char_max = {hi} is not allowed: must be >= char_min ({lo})")


def _check_model(spec):
    """Refuse a model that certainly cannot be loaded, without loading it (a hub id is tried later)."""
    path = spec.split("^")[0]
    if path.endswith(".py"):
        if not os.path.exists(path):
            raise ConfigError(
                f"model: file {path!r} not found; valid: a demo victim ({', '.join(VICTIMS)}), a model "
                "folder, file.py[^variable] or a hub id"
            )
    elif unknown_victim(spec):
        raise ConfigError(f"model: {unknown_victim(spec)}")


def load_config(path):
    return parse_config(_read_toml(path), path)


def parse_config_text(text, path="<config>"):
    """A validated :class:`GateConfig` from TOML ``text`` (the starter's, measured by ``--init --model``)."""
    if tomllib is None:
        _read_toml(path)  # says what to install
    return parse_config(tomllib.loads(text), path)
