"""Class numbers shown as the model's label names where it has them ("neutral → positive", not "1 → 2").

The names are the model's ``config.id2label`` in class order
(:func:`~textattack_secondorder.models.probe.model_label_names`); a model saved without names has
``LABEL_0``, ``LABEL_1`` ..., which say no more than the numbers, so those are shown as numbers.
Nothing here imports torch or TextAttack.
"""

import numbers


def readable_names(names):
    """``names`` as a list when they say more than the class numbers, else ``None`` (absent, or all ``LABEL_i``)."""
    if not names:
        return None
    names = [str(n) for n in names]
    if all(n == f"LABEL_{i}" for i, n in enumerate(names)):
        return None
    return names


def class_index(value):
    """``value`` (a class number as an int, a whole float or a digit string) as an int, or ``None``."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and float(value).is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def label_text(value, names=None):
    """The class ``value`` by its name (``"neutral"``) when ``names`` has one for it, else as given (``"1"``)."""
    names = readable_names(names)
    index = class_index(value)
    if names and index is not None and 0 <= index < len(names):
        return names[index]
    return str(value)


def outputs_text(before, after, names=None):
    """``"neutral → positive"`` (``"1 → 2"`` without names): the model's output before and after a change."""
    return f"{label_text(before, names)} → {label_text(after, names)}"


def target_text(index, names=None):
    """A class as a command names it on screen: ``"1 (neutral)"``, or ``"1"`` without names."""
    name = label_text(index, names)
    return f"{index} ({name})" if name != str(index) else str(index)
