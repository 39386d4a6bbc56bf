"""The robustness gate (``textattack-so check CONFIG``): checks named in a TOML config, run by reusing the
commands' own code paths, judged against thresholds, reported as HTML, JSON and JUnit XML (docs/methods.md §8).

One floor above :mod:`..evaluation` and :mod:`..sweeps`, below :mod:`..cli`:

* :mod:`.base` — metrics, settings, the :class:`~.base.Evaluation` a check stores, the verdict and
  :class:`~.base.ConfigError` (one line, exit code 2);
* one module per kind of check: :mod:`.second_order`, :mod:`.attack`, :mod:`.bias`, :mod:`.single_word`,
  :mod:`.perturbed_sets`, :mod:`.meaning`;
* :mod:`.registry` — ``CHECKS``: the check class of each ``kind``;
* :mod:`.config` — TOML loading and validation;
* :mod:`.runner` — runs the checks, reusing every stored evaluation whose content key has not changed;
* :mod:`.report` — ``report.html``, ``results.json``, ``junit.xml`` and the console table;
* :mod:`.starter` — the commented starter config of ``check --init``.
"""

from .attack import AttackCheck
from .bias import BiasCheck
from .meaning import MeaningCheck
from .perturbed_sets import PerturbedSetsCheck
from .registry import CHECKS
from .second_order import SecondOrderCheck
from .single_word import SingleWordCheck

__all__ = [
    "CHECKS",
    "AttackCheck",
    "BiasCheck",
    "MeaningCheck",
    "PerturbedSetsCheck",
    "SecondOrderCheck",
    "SingleWordCheck",
]
