"""The one mark of a user error, for both command lines (``textattack-so`` and the stock ``textattack``)."""


class UserError(Exception):
    """Base of the exceptions that mean a bad parameter, resource, victim, configuration or cluster.

    Both command lines print such an error as one line and exit with code 2, without a traceback
    (``cli.main`` for ``textattack-so``, ``plugin/extensions.py`` for ``textattack attack`` / ``augment`` /
    ``attack-resume``). An exception class becomes one by naming this class among its bases, next to
    the built-in exception it already extends.
    """


class UsageError(ValueError, UserError):
    """A command-line value that is not allowed (one line, exit code 2)."""
