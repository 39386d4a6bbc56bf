"""Single-word flip capability κ and robustness ρ (docs/design/single-word.md: EUBA).

* :mod:`.computation` — EUBA and brute-force flips for one sentence, :class:`KappaSetup`;
* :mod:`.sharded` — :func:`compute_flip_capability`, the one (sharded, resumable, optionally Ray) run;
* :mod:`.cache` — the SP-Attack κ cache, the same shard store shared by many runs;
* :mod:`.result` — :class:`FlipCapability` (counts, merge, state) and
  :class:`FlipCapabilityResult` (κ, ρ, save/load);
* :mod:`.report` — the κ histogram and the printed summary.

Importing this package does not import torch.
"""

from ...models.token_classifier import TokenClassifier
from .computation import DEFAULT_M, brute_force_flips, euba_flips
from .report import format_summary, plot_histogram
from .result import FlipCapability, FlipCapabilityResult
from .sharded import compute_flip_capability

__all__ = [
    "DEFAULT_M",
    "FlipCapability",
    "FlipCapabilityResult",
    "TokenClassifier",
    "brute_force_flips",
    "compute_flip_capability",
    "euba_flips",
    "format_summary",
    "plot_histogram",
]
