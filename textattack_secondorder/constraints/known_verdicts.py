"""The verdicts a costly neighbour check has already given, at no cost (docs/design/neighbours.md).

SO-Beam's survivors of each step are held to the neighbour rule; a check that runs a model (the causal LM's
budget, the sentence encoder's word similarity) is by default not run again there: the beam only leaves out
the candidates the check has already refused as vulnerable candidates.
"""

from textattack.constraints import Constraint


class KnownVerdicts(Constraint):
    """Refuses the texts ``check`` has already refused against the same reference, keeps the rest.

    ``check``: a constraint with ``known_verdict(reference_text, transformed_text)`` (True, False, or None when
    it has not judged the text).
    """

    def __init__(self, check, compare_against_original=True):
        super().__init__(compare_against_original)
        self.check = check

    def _check_constraint(self, transformed_text, reference_text):
        return self.check.known_verdict(reference_text, transformed_text) is not False

    def _check_constraint_many(self, transformed_texts, reference_text):
        return [t for t in transformed_texts if self._check_constraint(t, reference_text)]
