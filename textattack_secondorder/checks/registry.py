"""The kinds of check the gate knows: ``CHECKS`` maps the ``kind`` of a ``[[check]]`` table to its class."""

from .attack import AttackCheck
from .bias import BiasCheck
from .meaning import MeaningCheck
from .perturbed_sets import PerturbedSetsCheck
from .second_order import SecondOrderCheck
from .single_word import SingleWordCheck

CHECKS = {
    c.kind: c for c in (SecondOrderCheck, AttackCheck, BiasCheck, SingleWordCheck, PerturbedSetsCheck, MeaningCheck)
}
