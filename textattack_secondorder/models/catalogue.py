"""The demo victims by name: what each one is and how it is trained (names and settings only).

:mod:`.victims` trains, caches and loads them; the gate's config check (``checks.config``) reads the
names from here, before anything loads.
"""

import dataclasses

# GloVe's 30,000 most frequent words join the training vocabulary: the embedding is frozen, so
# words the attack swaps in (or test words) that training never saw keep their meaning instead of
# becoming [UNK] (what it gave on the MR test split: docs/methods.md §10.1).
EXTRA_GLOVE_WORDS = 30000


@dataclasses.dataclass(frozen=True)
class VictimSpec:
    name: str
    kind: str  # "word" or "minilm"
    description: str
    train_kwargs: dict = dataclasses.field(default_factory=dict)
    dataset: str = "mr"


VICTIMS = {
    spec.name: spec
    for spec in [
        VictimSpec(
            "mr-cnn",
            "word",
            "word CNN on frozen GloVe 50d (Zhang et al. 2021 base model)",
            {"arch": "cnn", "dropout": 0.3, "extra_glove_words": EXTRA_GLOVE_WORDS},
        ),
        VictimSpec(
            "mr-lstm",
            "word",
            "LSTM on frozen GloVe 50d (Zhang et al. 2021 base model)",
            {"arch": "lstm", "dropout": 0.5, "extra_glove_words": EXTRA_GLOVE_WORDS},
        ),
        VictimSpec(
            "mr-bow",
            "word",
            "bag of words on frozen GloVe 50d (Zhang et al. 2021 base model)",
            {"arch": "bow", "dropout": 0.2, "extra_glove_words": EXTRA_GLOVE_WORDS},
        ),
        VictimSpec("mr-minilm", "minilm", "all-MiniLM-L6-v2 fine-tuned on MR (2 epochs)", {}),
    ]
}
