"""``python -m textattack_secondorder`` and the ``textattack-so`` console script."""

import sys

from . import cli


def main(argv=None):
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
