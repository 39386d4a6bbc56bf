"""The batches each defense trains on: the one place that decides a defense's batch source.

:func:`defense_batches` gives :func:`~.training.train_defense` the source of the defense it was given, a
callable that returns the next ``(input_ids, attention_mask, labels)`` on the classifier's device:

* ``sp-defense``, ``rand``, ``continue`` — :class:`~..augmentation.augmented_batches.AugmentedBatches`, the
  one-word augmentation mixes (their vocabulary, special words and gradient candidates);
* ``a2t`` — :class:`~.a2t.A2TBatches`, A2T's adversarial sets made from the model being trained (its attack,
  the ``a2t-offline`` recipe unless one is given, and its schedule of sets over the steps).
"""

from ..augmentation.augmented_batches import MIXES, AugmentedBatches
from .a2t import ROUNDS, A2TBatches

DEFENSES = ("sp-defense", "rand", "a2t")
#: the defenses :func:`defense_batches` has a batch source for; "continue": the same fine-tuning on the
#: original examples only (the vanilla-continued control)
TRAINING_MIXES = DEFENSES + ("continue",)


def defense_batches(
    defense,
    clf,
    model_wrapper,
    examples,
    steps,
    batch_size,
    seed=0,
    vocabulary=None,
    special_words=None,
    gradient_candidates=None,
    attack=None,
    a2t_log=None,
    a2t_rounds=None,
):
    """The batch source of ``defense`` (one of :data:`TRAINING_MIXES`) over the labelled ``examples``.

    ``clf``: the ``TokenClassifier`` being trained, ``model_wrapper`` its TextAttack wrapper (A2T's victim).
    ``vocabulary``, ``special_words``, ``gradient_candidates``: the augmentation mixes' (None = their defaults);
    ``attack``, ``a2t_log``, ``a2t_rounds``: A2T's attack, its log of adversarial sets and how many are made
    (None = :data:`.a2t.ROUNDS`).
    """
    if defense == "a2t":
        return A2TBatches(
            clf,
            model_wrapper,
            examples,
            steps,
            batch_size,
            seed=seed,
            attack=attack,
            rounds=a2t_rounds or ROUNDS,
            log=a2t_log,
        )
    if defense in MIXES:
        return AugmentedBatches(
            clf, examples, defense, batch_size, seed, vocabulary, special_words, gradient_candidates
        )
    raise ValueError(f"defense must be one of {TRAINING_MIXES}")
