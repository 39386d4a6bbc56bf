"""Stand-in for botocore (offline bundle): flair imports ``UNSIGNED`` and ``config.Config`` at start-up."""

UNSIGNED = object()
