"""``python -m experiments <command> [options]``: see ``experiments.cli``."""

import sys

from experiments.cli import main

if __name__ == "__main__":
  sys.exit(main(prog="python -m experiments"))
