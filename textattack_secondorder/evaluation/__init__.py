"""Evaluations that are not TextAttack Metric subclasses: meaning preservation, flip capability,
counterfactual bias, robustness index."""
