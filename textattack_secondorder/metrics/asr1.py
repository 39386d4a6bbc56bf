"""ASR1: attack success rate counting only adversarial examples that changed exactly one word (Xu et al., §6.3).

Add it to any TextAttack run — ``textattack.AttackArgs(metrics={"ASR1 (%):": ASR1()})`` from Python,
``textattack-so attack --asr1 ...`` from the command line — to compare multi-word attacks
(``textfooler``, ``bae``) with ``sp-attack`` as the paper's Figure 4 does.
"""

from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult
from textattack.metrics import Metric

ROW = "ASR1 (one-word success rate %):"  # the summary-table row name our commands give it


def words_changed(result):
    return len(result.original_result.attacked_text.all_words_diff(result.perturbed_result.attacked_text))


class ASR1(Metric):
    """Percentage of attacked (not skipped) examples whose successful adversarial example changed one word."""

    def __init__(self):
        pass

    def calculate(self, results):
        attacked = [r for r in results if isinstance(r, (SuccessfulAttackResult, FailedAttackResult))]
        if not attacked:
            return 0.0
        one = sum(1 for r in attacked if isinstance(r, SuccessfulAttackResult) and words_changed(r) == 1)
        return round(100.0 * one / len(attacked), 2)
