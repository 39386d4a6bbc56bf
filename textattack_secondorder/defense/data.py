"""The rows a defense trains on and the rows it is measured on (docs/design/defenses.md).

A named data set with a test split (``mr``) trains on ``--split`` and is measured on its test split. A
user's CSV has no test split: unless ``--test-dataset`` names one, a seeded share of its rows
(:data:`HOLDOUT_SHARE`, the same rows whatever the training seed) is held out of this fine-tuning, so
``defend`` can say what the defense did to accuracy (whether the model as given saw them in its own
training, nothing here can know). :func:`defense_data` says which in words.
"""

import random

from ..datasets.examples import load_examples

#: share of a user's CSV held out for accuracy when no test set is given
HOLDOUT_SHARE = 0.1
#: the held-out rows do not depend on the training seed
HOLDOUT_SEED = 0
#: data sets known by name that have a test split
WITH_TEST_SPLIT = ("mr",)


def defense_data(
    dataset,
    split="train",
    text_column="text",
    label_column="label",
    limit=None,
    test_dataset=None,
    holdout_share=HOLDOUT_SHARE,
):
    """``(train, test, test_source)``: ``[(text, label)]`` to train on, ``[(text, label)]`` to measure on
    (empty: none) and where the test rows come from, in words (for the output and ``defense.json``).

    ``limit`` keeps the first ``limit`` training rows, after the held-out rows are taken out.
    """
    if test_dataset:
        train = load_examples(dataset, split, text_column, label_column, labelled=True)
        test = load_examples(test_dataset, "test", text_column, label_column, labelled=True)
        source = f"{test_dataset} ({len(test)} rows)"
    elif dataset in WITH_TEST_SPLIT:
        train = load_examples(dataset, split, text_column, label_column, labelled=True)
        test = load_examples(dataset, "test")
        source = f"{dataset} test split ({len(test)} rows)"
    else:
        rows = load_examples(dataset, split, text_column, label_column, labelled=True)
        k = int(round(holdout_share * len(rows))) if holdout_share else 0
        if holdout_share and len(rows) > 1:
            k = min(max(k, 1), len(rows) - 1)
        held = set(random.Random(HOLDOUT_SEED).sample(range(len(rows)), k)) if k else set()
        train = [r for i, r in enumerate(rows) if i not in held]
        test = [r for i, r in enumerate(rows) if i in held]
        source = (
            f"{len(test)} rows of {dataset} held out from this fine-tuning ({holdout_share:.0%}, seed "
            f"{HOLDOUT_SEED}; the model may have seen them before)"
            if test
            else "none (--holdout-share 0)"
        )
    return (train[:limit] if limit else train), test, source


def screen_defense_rows(train, test, model):
    """``(train, test, skipped)``: the rows ``model`` can use (docs/design/hostile-input.md), screened together so that
    a bad row is reported wherever the hold-out put it and "no usable row" counts all the user's rows. A training
    row that repeats an earlier one is skipped; a test row that repeats a training row is kept (a test set the
    user gave is measured as given)."""
    from ..models.probe import screen_rows
    from ..shared.inputs import duplicate_reason

    good, skipped = screen_rows(list(train) + list(test), model, indexed=True, duplicates=False)
    first, kept, held = {}, [], []
    for i, text, label in good:
        if i >= len(train):
            held.append((text, label))
        elif first.setdefault((text, label), i) != i:
            skipped.append((i, text, label, duplicate_reason(first[(text, label)])))
        else:
            kept.append((text, label))
    return kept, held, skipped
