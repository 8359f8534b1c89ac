"""``python -m relay serve ...`` — same as the ``lexio`` console script."""

import sys

from relay.cli import main

if __name__ == "__main__":
    sys.exit(main())
