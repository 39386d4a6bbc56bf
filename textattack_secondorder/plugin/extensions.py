"""Two small extensions of TextAttack's attack loop, installed when ``textattack`` is imported.

* ``CSVLogger``: a result whose ``perturbed_result`` has ``log_fields()`` (ours:
  patch pair, x̃0, x̃0 ⊕ p, both predictions, perturbed words, seconds) adds
  those columns to the row, so ``--log-to-csv`` files load into pandas with
  everything in them. Other results log exactly as before.
* ``Attacker.attack_dataset``: an attack with a ``summary_metrics`` dict (our
  recipes set it) adds those rows to the summary table, as ``AttackArgs(metrics=...)``
  would; TextAttack's command line has no flag for that.

Both are idempotent and leave TextAttack's behaviour unchanged for its own recipes.
"""
import functools
import json

# Summary rows added to every run of this process (``textattack-so attack --asr1`` fills it).
EXTRA_METRICS = {}


def _extend_csv_logger():
    from textattack.loggers import CSVLogger

    if getattr(CSVLogger.log_attack_result, "_secondorder", False):
        return
    original = CSVLogger.log_attack_result

    @functools.wraps(original)
    def log_attack_result(self, result):
        original(self, result)
        fields = getattr(result.perturbed_result, "log_fields", None)
        if fields is None:
            return
        import pandas as pd

        row = self.row_list[-1]
        for k, v in fields().items():
            row[k] = json.dumps(v) if isinstance(v, (list, dict)) else v
        self.df = pd.DataFrame.from_records(self.row_list)

    log_attack_result._secondorder = True
    CSVLogger.log_attack_result = log_attack_result


def _extend_attacker():
    from textattack import Attacker

    if getattr(Attacker.attack_dataset, "_secondorder", False):
        return
    original = Attacker.attack_dataset

    @functools.wraps(original)
    def attack_dataset(self):
        extra = dict(EXTRA_METRICS)
        extra.update(getattr(self.attack, "summary_metrics", None) or {})
        if extra:
            merged = dict(extra)
            merged.update(self.attack_args.metrics or {})
            self.attack_args.metrics = merged
            if self.attack_log_manager is not None:
                self.attack_log_manager.metrics = merged
        return original(self)

    attack_dataset._secondorder = True
    Attacker.attack_dataset = attack_dataset


def extend_textattack():
    _extend_csv_logger()
    _extend_attacker()
