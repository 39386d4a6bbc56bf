"""Counterfactual token bias ``B_{p,k}`` over natural neighbourhoods (docs/design/bias.md; Zhang et al. 2021, §4).

* :mod:`.pairs` — protected pairs, the gendered-word blacklist, pronoun neutralization;
* :mod:`.computation` — :class:`CounterfactualBias` (neighbourhoods, differences, resume, sharded
  over pairs here or on Ray through :class:`~.computation.BiasTask`) and :func:`counterfactual_bias`,
  the one-call Python API;
* :mod:`.result` — :class:`TokenBiasMetric` (per-source accumulator, mergeable), :func:`bootstrap_ci`,
  :class:`BiasReport` and its ``save``;
* :mod:`.report` — the PNG plots (``hist_k.png``, ``bias_vs_k.png``).
"""

from .computation import CounterfactualBias, counterfactual_bias, pair_sources
from .pairs import gendered_words, load_pair_groups, parse_pairs
from .result import BiasReport, TokenBiasMetric, bootstrap_ci

__all__ = [
    "BiasReport",
    "CounterfactualBias",
    "TokenBiasMetric",
    "bootstrap_ci",
    "counterfactual_bias",
    "gendered_words",
    "load_pair_groups",
    "pair_sources",
    "parse_pairs",
]
