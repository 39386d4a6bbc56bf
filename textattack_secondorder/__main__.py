"""``python -m textattack_secondorder`` and the ``textattack-so`` console script."""

import sys


def main(argv=None):
    from .cli import main as _main

    return _main(argv)


if __name__ == "__main__":
    sys.exit(main())
