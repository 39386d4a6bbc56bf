"""The error of the resources layer (its own module so that every resources module, the word proposers
included, can raise it without importing the resolution rules)."""

from ..shared.errors import UserError


class ResourceError(RuntimeError, UserError):
    """A slot cannot be filled, or what it resolves to cannot be loaded."""
