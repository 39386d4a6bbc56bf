"""Test set-up: no network, caches in a temporary folder.

Set before anything imports TextAttack/transformers, so every test (and every
subprocess started with ``offline_env()``) runs offline.
"""
import os
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

_CACHE = tempfile.mkdtemp(prefix="ta-so-tests-")
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TA_SO_OFFLINE": "1",
    "TA_CACHE_DIR": os.path.join(_CACHE, "textattack"),
    "TA_SO_CACHE_DIR": os.path.join(_CACHE, "secondorder"),
    "TOKENIZERS_PARALLELISM": "false",
    "WANDB_DISABLED": "true",
}
os.environ.update(OFFLINE)


def offline_env(**extra):
    """Environment for subprocesses: the current one, offline, plus ``extra``."""
    env = dict(os.environ)
    env.update(OFFLINE)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def console_script(name):
    """Path of a console script installed beside the running interpreter."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        pytest.skip(f"console script {name!r} not installed next to {sys.executable}")
    return str(path)


@pytest.fixture
def repo():
    return REPO
