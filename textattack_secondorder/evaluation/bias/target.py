"""The class whose probability ``B_{p,k}`` compares: a class number or one of the model's label names.

``textattack-so bias --target-class`` takes either; on a three-class model (negative / neutral /
positive) the default class 1 is "neutral", so the command names the class it measured.
"""

from ...models.probe import model_label_names, probe_model
from ...shared.errors import UsageError
from ...shared.inputs import label_reason
from ...shared.label_names import readable_names


def resolve_target_class(value, model_wrapper, what="--target-class"):
    """``(class number, the model's label names or None)`` for ``value``, a class number or one of the
    model's label names (any case), checked against the classes the model returns.

    Anything else is a :class:`~...shared.errors.UsageError` naming the model's labels (one line, exit 2).
    """
    num_classes = probe_model(model_wrapper)
    names = model_label_names(model_wrapper, num_classes)
    index, reason = label_reason(value, num_classes, names)
    if reason is None:
        return index, readable_names(names)
    shown = value if isinstance(value, int) or str(value).strip().lstrip("+-").isdigit() else repr(value)
    numbers = f"a class number 0..{num_classes - 1}"
    if readable_names(names):
        raise UsageError(f"{what} {shown} is neither one of the model's labels ({', '.join(names)}) nor {numbers}")
    raise UsageError(f"{what} {shown} is not {numbers} (the model has {num_classes} classes and no label names)")
