"""Mean source-side chrF of successful attacks as a TextAttack ``Metric``
(Michel et al., NAACL 2019; docs/design/meaning.md).

``textattack.AttackArgs(metrics={"Mean chrF:": MeanChrF()})`` adds a row to
TextAttack's summary table; the chrF itself is
:func:`textattack_secondorder.shared.chrf.chrf`.
"""

from textattack.attack_results import SuccessfulAttackResult
from textattack.metrics import Metric

from ..shared.chrf import BETA, CHAR_ORDER, chrf


class MeanChrF(Metric):
    """Mean source-side chrF ``s_src(x, x̂)`` (× 100) over successful attacks: a TextAttack ``Metric``.

    ``textattack.AttackArgs(metrics={"Mean chrF (successful):": MeanChrF()})`` adds a row to
    TextAttack's summary table. Accumulate-then-compute also works: :meth:`update` with results
    (from several runs or shards), then :meth:`compute`.
    """

    def __init__(self, char_order=CHAR_ORDER, beta=BETA):
        self.char_order = char_order
        self.beta = beta
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, results):

        for r in results:
            if isinstance(r, SuccessfulAttackResult):
                self.total += chrf(
                    r.perturbed_result.attacked_text.text,
                    r.original_result.attacked_text.text,
                    self.char_order,
                    self.beta,
                )
                self.count += 1
        return self

    def compute(self):
        """Mean chrF × 100, rounded to 2 decimals; 0.0 when no attack succeeded."""
        return round(100.0 * self.total / self.count, 2) if self.count else 0.0

    def calculate(self, results):
        """TextAttack's entry point: the metric of ``results`` alone (state is reset)."""
        self.reset()
        return self.update(results).compute()
