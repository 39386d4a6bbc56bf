"""The robustness gate (``textattack-so check CONFIG``): checks named in a TOML config, run by reusing the
commands' own code paths, judged against thresholds and against a baseline run, reported as HTML,
JSON, JUnit XML and a Markdown summary (docs/design/gate.md).

One floor above :mod:`..evaluation` and :mod:`..sweeps`, below :mod:`..cli`:

* :mod:`.base` — metrics (direction, bounds, default tolerance), settings and their allowed values,
  the :class:`~.base.Evaluation` a check stores and :class:`~.base.ConfigError` (one line, exit code 2);
* one module per kind of check: :mod:`.second_order`, :mod:`.attack`, :mod:`.bias`, :mod:`.single_word`,
  :mod:`.perturbed_sets`, :mod:`.meaning`;
* :mod:`.registry` — ``CHECKS``: the check class of each ``kind``;
* :mod:`.config` — TOML loading and validation;
* :mod:`.runner` — runs the checks, reusing every stored evaluation whose content key has not changed;
* :mod:`.verdict` — the threshold rule and the baseline rule of one check;
* :mod:`.baseline` — reading a baseline back, comparing like with like, writing one;
* :mod:`.results` — ``results.json``; :mod:`.junit` — ``junit.xml``; :mod:`.summary` — the console table
  and ``summary.md``; :mod:`.report` — ``report.html`` and writing every output;
* :mod:`.starter` — the commented starter config of ``check --init``, and its measured form (``--model``).

Like the command line (:mod:`..cli`), the config side stays light: :mod:`.config`, :mod:`.starter` and the
check classes (their settings and metrics) import only :mod:`..shared` and :mod:`..models.catalogue` at their
top, so reading and checking a config and ``check --init`` import neither torch nor TextAttack. The rest of the
library is imported at the start of the function that uses it (a check's ``evaluate``, a recipe's validation)
and at the top of :mod:`.runner`, which only running the checks imports.
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
