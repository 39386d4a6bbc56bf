"""The random draws of SP-Defense's random and special-word augmentations (docs/design/defenses.md).

Each augmentation is decided first — which word, which replacement, with the same random draws whatever
the output — and then applied: to a text (:mod:`.sp_defense`) or to token ids (:mod:`.token_augmenter`).
A seeded run therefore makes the same choices on both paths.
"""


def random_choice(words, vocabulary, rng):
    """``(word index, vocabulary index)`` of a random substitution of one of ``words``, or None."""
    if not words:
        return None
    i = rng.randrange(len(words))
    for _ in range(20):
        k = rng.randrange(len(vocabulary))  # the draw of rng.choice(vocabulary)
        if vocabulary[k].lower() != words[i].lower():
            return i, k
    return None


def special_choice(words, special, rng):
    """``(word index, index into special)`` of a special-word substitution of one of ``words``, or None."""
    if not words or not special:
        return None
    i = rng.randrange(len(words))
    current = words[i].lower()
    keep = [k for k, w in enumerate(special) if w != current] if current in special else None
    n = len(special) if keep is None else len(keep)
    if not n:
        return None
    j = rng.randrange(n)  # the draw of rng.choice(candidates)
    return i, (j if keep is None else keep[j])
