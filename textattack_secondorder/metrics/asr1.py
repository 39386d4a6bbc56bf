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

from ..shared.errors import UsageError

ROW = "ASR1 (one-word success rate %):"  # the summary-table row name our commands give it


class LabelRuleForModel:
    """A label rule whose training data is known only once the victim is: ``--asr1-label-rule`` without
    ``--asr1-label-data`` (docs/design/single-word.md). ``data`` (with why, ``origin``) when the command line said it
    (the flag, the recipe's ``label_data`` or its κ's data); else :meth:`bind_model` reads the data set the model's
    folder records when the attack starts, and without one says in a line what to pass (never the movie reviews
    unasked). Once bound it is the rule: ``kept`` and ``describe`` are the built rule's."""

    def __init__(self, name, data=None, origin=None):
        self.name, self.data, self.origin = name, data, origin
        self.rule = None

    def bind_model(self, model_wrapper):
        if self.rule is not None:
            return self
        from ..constraints.label_rules import label_rule_for_data
        from ..models.probe import model_label_names, probe_model
        from ..models.provenance import recorded_training_data

        data, origin = self.data, self.origin
        if data is None:
            data, origin = recorded_training_data(model_wrapper), "the data the model's folder records"
        if data is None:
            raise UsageError(
                f"--asr1-label-rule {self.name} reads each word's label lean in the victim's training data, and "
                "neither the recipe's κ nor the model's folder says which: pass --asr1-label-data YOUR_TRAIN.csv "
                "(columns text,label; or mr for the movie reviews)"
            )
        outputs = probe_model(model_wrapper)
        try:
            self.rule = label_rule_for_data(
                self.name,
                data,
                origin=origin,
                num_classes=outputs,
                label_names=model_label_names(model_wrapper, outputs),
            )
        except ValueError as e:
            raise UsageError(f"--asr1-label-rule: {e}") from None
        return self

    def kept(self, *args, **kwargs):
        return self.rule.kept(*args, **kwargs)

    def describe(self):
        return self.rule.describe() if self.rule is not None else f"{self.name} (label data not read yet)"


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

    def bind_model(self, model_wrapper):
        """Called with the victim when the attack starts (``plugin/extensions.py``): a
        :class:`LabelRuleForModel` reads its training data then."""
        if hasattr(self.label_rule, "bind_model"):
            self.label_rule.bind_model(model_wrapper)

    def calculate(self, results):
        attacked = [r for r in results if isinstance(r, (SuccessfulAttackResult, FailedAttackResult))]
        if not attacked:
            return 0.0
        one = [r for r in attacked if isinstance(r, SuccessfulAttackResult) and words_changed(r) == 1]
        if self.label_rule is not None:
            one = [r for r in one if label_kept(self.label_rule, r)]
        return round(100.0 * len(one) / len(attacked), 2)
