"""Certified (IBP) word victims: interval bounds over every combination of synonym swaps (docs/design/certified.md).

* :mod:`.substitutions`: :class:`~.substitutions.SubstitutionSets`, each position's choices (token ids).
* :mod:`.bounds`: interval bound propagation through the word CNN, BoW and LSTM; the margin bounds.
* :mod:`.objective`: :class:`~.objective.IBPObjective`, the certified-training loss and its schedule.
* :mod:`.certification`: :func:`~.certification.certify`, certified accuracy (``textattack-so certify``).

This file imports nothing.
"""
