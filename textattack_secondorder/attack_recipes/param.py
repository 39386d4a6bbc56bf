"""One recipe parameter, said once: its default, help, bounds, choices and whether None is allowed
(docs/design/hostile-input.md).

A recipe's ``PARAMS`` maps each parameter's name to a :class:`Param`; validation
(:meth:`~.recipe.SORecipe.check_params`), ``textattack-so recipes`` and ``textattack-so attack --help``
read these records and nothing else::

    PARAMS = {"beam_width": Param(20, "Algorithm 2: beam size beta = 20", low=1)}
"""

from dataclasses import dataclass, replace

from ..resources.proposers.base import MASKED_LM_DTYPES
from ..shared.recipe_params import RecipeParameterError


@dataclass(frozen=True)
class Param:
    """A recipe parameter.

    Args:
        default: the value when the parameter is not given (its type is the type a given value must have:
            a bool, an int, a float — which also takes an int — or a string; None: any value, or a number
            when the parameter has bounds).
        help: one sentence for ``--help``, citing where the default comes from.
        low, high: inclusive bounds of a number (None: unbounded).
        choices: the allowed values (strings, or None/True/False) when the parameter is one of a few.
        none_ok: None is allowed besides a value of the default's type.
        objects_ok: an object that is not a string passes besides the choices (a ``PatchRule``, a torch dtype).
    """

    default: object
    help: str
    low: object = None
    high: object = None
    choices: tuple = None
    none_ok: bool = False
    objects_ok: bool = False

    def but(self, **changes):
        """This record with ``changes`` (e.g. another default or help in one recipe)."""
        return replace(self, **changes)

    def allowed(self):
        """What the parameter allows, in words (the end of an error message and of the help)."""
        if self.choices is not None:
            return "choose one of " + ", ".join(map(repr, self.choices))
        words = self._kind()[1]
        if words is None:
            return "any value"
        if self.low is not None and self.high is not None:
            words += f" between {self.low} and {self.high}"
        elif self.low is not None or self.high is not None:
            words += f" >= {self.low}" if self.high is None else f" <= {self.high}"
        return "must be " + words + (" or None" if self.none_ok else "")

    def check(self, recipe, name, value):
        """Raise :class:`RecipeParameterError` (recipe, parameter, value, what is allowed) when ``value`` is not
        allowed."""
        if self.accepts(value):
            return
        raise RecipeParameterError(f"recipe '{recipe}': {name}={value!r} is not allowed: {self.allowed()}")

    def _kind(self):
        """The kind of value of the default's type; a None default with bounds stands for a number."""
        bounded = self.low is not None or self.high is not None
        return _kind(0.0 if self.default is None and bounded else self.default)

    def accepts(self, value):
        if value is None and (self.default is None or self.none_ok or None in (self.choices or ())):
            return True
        if self.choices is not None:
            return (self.objects_ok and not isinstance(value, str)) or value in self.choices
        types = self._kind()[0]
        if types is None:
            return True
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return False
        if isinstance(value, bool):
            return True
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def _kind(default):
    """``(types, words)`` a value of a parameter with this default must be (``(None, None)``: anything)."""
    if isinstance(default, bool):
        return (bool,), "true or false"
    if isinstance(default, int):
        return (int,), "an integer"
    if isinstance(default, float):
        return (int, float), "a number"
    if isinstance(default, str):
        return (str,), "a string"
    return None, None


#: ``masked_lm_dtype`` of the recipes that load a masked LM (SO-*, BAE): resolved by ``resolve_dtype``
MASKED_LM_DTYPE = Param(
    None,
    "weights dtype of the masked LM when loaded here: None = float32 (exact), 'bfloat16' (faster on a CPU with "
    "native bf16, nearly the same neighbours: docs/design/offline-resources.md), 'float16' (CUDA), 'auto'",
    choices=MASKED_LM_DTYPES,
    objects_ok=True,
)
