"""The commented starter config of ``textattack-so check --init`` (the demo victim, offline)."""

import os

from ..shared.files import atomic_write_text

DEFAULT_PATH = "robustness.toml"

STARTER = """\
# Robustness gate for `textattack-so check robustness.toml` (docs/methods.md §8).
# Exit code: 0 all checks pass, 1 a check fails, 2 the config is wrong.
# Each check names one metric and a threshold; the direction is the metric's own
# (rates of successful attacks: at most; accuracy, rho, chrF: at least).
# Results are stored under a content key: a re-run with the same settings reuses them,
# and editing a threshold re-judges without recomputing anything.

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
metric = "vulnerable_rate"        # or avg_perturbed_words (at least)
threshold = 50.0                  # percent, at most
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
m = 512

# Perturbed evaluation sets (FlagEval): typos and synonym swaps; RB at most the threshold.
[[check]]
kind = "perturbed_sets"
name = "typos-and-synonyms"
metric = "rb_index"               # or min_accuracy (percent, at least)
threshold = 0.15
[check.settings]
levels = ["char", "word"]
"""


def write_starter(path=DEFAULT_PATH):
    """Write the starter config to ``path``; refuses to overwrite (``FileExistsError``)."""
    if os.path.exists(path):
        raise FileExistsError(f"{path} exists; not overwriting it (remove it or give another path: --init PATH)")
    atomic_write_text(path, STARTER)
    return path
