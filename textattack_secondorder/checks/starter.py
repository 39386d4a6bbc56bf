"""The commented starter config of ``textattack-so check --init`` (the demo victim, offline), and
its measured form (``--init --model X``): thresholds at the values measured on X plus each metric's
default tolerance, each with a comment saying where it came from (docs/design/gate.md)."""

import datetime
import json
import math
import os
import re

from .._version import __version__
from ..shared.files import atomic_write_text
from .base import AT_MOST
from .config import parse_config_text
from .registry import CHECKS
from .verdict import fmt

DEFAULT_PATH = "robustness.toml"

STARTER = """\
# Robustness gate for `textattack-so check robustness.toml` (docs/design/gate.md).
# Exit code: 0 all checks pass, 1 a check fails, 2 the config or baseline is wrong,
# 3 a check is not comparable with the baseline (its settings differ).
# Each check names one metric and a threshold; the direction is the metric's own
# (rates of successful attacks: at most; accuracy, rho, chrF: at least).
# With --baseline PATH (an earlier run's results.json) each check is also judged against
# the baseline's value: it may be worse by at most `tolerance = ...` (in the metric's
# unit; default: the metric's own, above its run-to-run spread). Write a baseline with
# --update-baseline PATH, and accept a run as the new one with --accept.
# Results are stored under a content key: a re-run with the same settings reuses them,
# and editing a threshold or a tolerance re-judges without recomputing anything.

model = "mr-cnn"        # any --model form: demo victim, model folder, file.py^variable, hub id
dataset = "mr"          # mr, a CSV with text,label columns, or a text file
split = "test"
num_examples = 30       # a check's [check.settings] may override dataset, split, num_examples

[run]
model_batch_size = 64
# ray = "local"         # run the shards on Ray ("local", "auto" or "HOST:PORT"), like --ray
# shards = 4            # cut the work into shards that are saved as they finish, like --shards
threads_per_worker = 1

# Second-order attack (Zhang et al. 2021): share of test sentences with a vulnerable example nearby.
[[check]]
kind = "second_order"
name = "so-beam"
metric = "vulnerable_per_100"     # found / all sentences; or vulnerable_rate (over attacked), avg_perturbed_words
threshold = 50.0                  # per 100 sentences, at most
[check.settings]
recipe = "so-beam^beam_width=5,max_depth=3"

# Single-word attack (Xu et al.) with flip capability computed on a small training sample.
[[check]]
kind = "attack"
name = "sp-attack"
metric = "success_rate"           # or asr1 (at most), accuracy_under_attack (at least)
threshold = 60.0                  # percent, at most
[check.settings]
recipe = "sp-attack^kappa_examples=100,kappa_m=128,top_m=20,max_successes=10"

# Meaning preservation (chrF) of the sp-attack check's successful adversarial examples.
[[check]]
kind = "meaning"
name = "sp-attack-meaning"
metric = "mean_chrf"              # or success_pct (at least)
threshold = 0.7                   # chrF in 0..1, at least
[check.settings]
attack = "sp-attack"

# Counterfactual token bias B_{p,k} at k = 1 (he/she, ...): |B| at most the threshold.
[[check]]
kind = "bias"
name = "gender-bias"
metric = "max_abs_b"              # or ci_excess: how far an interval excludes zero (at most)
threshold = 0.05
[check.settings]
pairs = "he/she,his/her,man/woman,actor/actress"   # or a group: gender (27 pairs), nationality, ...
k = 1
num_examples = 300

# Single-word robustness rho* on test sentences by EUBA (Xu et al.).
[[check]]
kind = "single_word"
name = "rho-star"
metric = "rho"                    # at least
threshold = 0.9
[check.settings]
split = "test"
num_examples = 50
vocab_limit = 2000
# vocab_from = "train.csv"        # only the words of your training CSV (on a transformer: its first entries are
                                  # single characters and other scripts), as flip-capability --vocab-from
m = 512

# Perturbed evaluation sets (FlagEval): typos and synonym swaps; RB at most the threshold.
[[check]]
kind = "perturbed_sets"
name = "typos-and-synonyms"
metric = "rb_index"               # or min_accuracy (percent, at least)
threshold = 0.15
[check.settings]
levels = ["char", "word"]
num_examples = 200                # cheap (seconds); 30 sentences would make RB vary by 0.17 between seeds
"""


DECIMALS = {"%": 1, "words": 2}  # a measured threshold's decimals by unit (others: 3)


def starter_text(model="mr-cnn"):
    """The starter config on ``model``."""
    return re.sub(r'^model = "mr-cnn"', lambda _: f"model = {json.dumps(model)}", STARTER, count=1, flags=re.M)


def starter_config(model, path="robustness.toml"):
    """The starter config on ``model``, parsed and checked (a :class:`~.base.ConfigError` names a bad model)."""
    return parse_config_text(starter_text(model), path)


def measured_threshold(verdict):
    """The value measured, moved by the metric's default tolerance towards worse, rounded outwards and
    kept inside the metric's bounds; ``None`` when nothing was measured."""
    metric = CHECKS[verdict.kind].METRICS[verdict.metric]
    if verdict.value is None or verdict.value != verdict.value:
        return None
    scale = 10 ** DECIMALS.get(metric.unit, 3)
    lo, hi = metric.bounds
    if metric.direction == AT_MOST:
        t = math.ceil(round((verdict.value + metric.tolerance) * scale, 6)) / scale
        return min(t, hi) if hi is not None else t
    t = math.floor(round((verdict.value - metric.tolerance) * scale, 6)) / scale
    return max(t, lo) if lo is not None else t


def measured_starter(model, verdicts):
    """The starter text on ``model`` with every threshold set from ``verdicts`` (a run of the starter's
    checks on ``model``), each with a comment: value, model, date, fingerprint, tolerance."""
    by_name = {v.name: v for v in verdicts}
    fingerprint = next((v.model_fingerprint for v in verdicts if v.model_fingerprint), "")
    day = datetime.date.today().isoformat()
    lines, name = [], None
    for line in starter_text(model).splitlines():
        m = re.match(r'name = "([^"]+)"', line)
        if line.startswith("[[check]]"):
            name = None
        elif m:
            name = m.group(1)
        elif line.startswith("threshold = ") and name in by_name:
            v = by_name[name]
            metric = CHECKS[v.kind].METRICS[v.metric]
            t = measured_threshold(v)
            if t is None:
                line = f"{line.split('#')[0].rstrip()}  # not measured on this model (n/a): the starter's value"
            else:
                sign = "+" if metric.direction == AT_MOST else "-"
                bound = t in metric.bounds and abs(t - v.value) < metric.tolerance
                line = (
                    f"threshold = {t:.{DECIMALS.get(metric.unit, 3)}f}  # measured {fmt(v.value)} {sign} default "
                    f"tolerance {metric.tolerance:g} ({'at most' if metric.direction == AT_MOST else 'at least'}"
                    f"{f'; kept at the bound {t:g}' if bound else ''})"
                )
        lines.append(line)
    header = [
        f"# Thresholds measured on {model} by `textattack-so check --init --model` ({day}, model fingerprint",
        f"# {fingerprint[:16] or 'unknown'}, textattack-secondorder {__version__}): each is the value measured then,",
        "# moved by the metric's default tolerance towards worse, so this gate passes on that model",
        "# and fails when a check gets worse by more than the tolerance.",
    ]
    return "\n".join(lines[:1] + header + lines[1:]) + "\n"


def write_starter(path=DEFAULT_PATH, text=STARTER):
    """Write the starter config (or ``text``) to ``path``; refuses to overwrite (``FileExistsError``)."""
    if os.path.exists(path):
        raise FileExistsError(f"{path} exists; not overwriting it (remove it or give another path: --init PATH)")
    atomic_write_text(path, text)
    return path
