"""How the stand-alone scripts of ``experiments`` (benchmarks, diagnostics) end.

A script runs as ``python -m experiments.scripts.<name>``; its ``main()`` returns the exit status.
Ctrl-C ends it with one line on stderr and the shell's status for SIGINT, 128 + 2 = 130 (as the
CLI, ``experiments.cli``), not with a traceback.
"""

import sys
from typing import Callable, NoReturn

EXIT_INTERRUPTED = 130


def run(main: Callable[[], int]) -> NoReturn:
  """Exits with ``main()``'s status, or with ``EXIT_INTERRUPTED`` after Ctrl-C."""
  try:
    sys.exit(main())
  except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(EXIT_INTERRUPTED)
