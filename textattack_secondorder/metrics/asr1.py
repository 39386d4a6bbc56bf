"""ASR1: attack success rate counting only adversarial examples that changed exactly one word (Xu et al., §6.3).

Add it to any TextAttack run — ``textattack.AttackArgs(metrics={"ASR1 (%):": ASR1()})`` from Python,
``textattack-so attack --asr1 ...`` from the command line — to compare multi-word attacks
(``textfooler``, ``bae``) with ``sp-attack`` as the paper's Figure 4 does. With a label rule
(``ASR1(label_rule=...)``, ``--asr1-label-rule lean``; docs/design/single-word.md) a one-word success counts only when
the rule keeps its swap, as SP-Attack's own successes do.
"""

from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult
from textattack.metrics import Metric
from textattack.shared import AttackedText

ROW = "ASR1 (one-word success rate %):"  # the summary-table row name our commands give it


def words_changed(result):
    return len(result.original_result.attacked_text.all_words_diff(result.perturbed_result.attacked_text))


def label_kept(rule, result):
    """Whether ``rule`` (a :class:`~..constraints.label_rules.LabelRule`) keeps the swap of a one-word success.

    The swap is read afresh from the two texts (a multi-step attack's last step need not be the one change); the
    rule's success checks (the label probe) are told the sentence's ground-truth label."""
    original = result.original_result.attacked_text
    changed = AttackedText(result.perturbed_result.attacked_text.text)
    changed.attack_attrs["newly_modified_indices"] = original.all_words_diff(changed)
    return bool(rule.kept(original, [changed], result.original_result.ground_truth_output))


class ASR1(Metric):
    """Percentage of attacked (not skipped) examples whose successful adversarial example changed one word
    (and, with ``label_rule``, whose swap the rule keeps)."""

    def __init__(self, label_rule=None):
        self.label_rule = label_rule

    def calculate(self, results):
        attacked = [r for r in results if isinstance(r, (SuccessfulAttackResult, FailedAttackResult))]
        if not attacked:
            return 0.0
        one = [r for r in attacked if isinstance(r, SuccessfulAttackResult) and words_changed(r) == 1]
        if self.label_rule is not None:
            one = [r for r in one if label_kept(self.label_rule, r)]
        return round(100.0 * len(one) / len(attacked), 2)
