r"""Runs any module, e.g. one of OpenSpiel's example scripts, with the project's games registered.

OpenSpiel's scripts load games by name (``pyspiel.load_game(FLAGS.game)``), and a Python game
exists by name only once its module has been imported. This command imports ``spiel_games``
(which registers ``kuhn_poker_ante`` and ``kuhn_poker_referee``) and then runs MODULE as
``__main__``, as ``python -m MODULE ARGS...`` would, with ARGS as its ``sys.argv[1:]`` (absl
flags included)::

  python -m spiel_games.run open_spiel.python.examples.playthrough --game kuhn_poker_ante
  python -m spiel_games.run open_spiel.python.examples.uniform_policy_exploitability \
      --game="kuhn_poker_ante(ante=2.0)"

The module's own exit status is the command's. A module that cannot be found gives one
``error:`` line on stderr and exit status 2.
"""

import importlib.util
import runpy
import sys
from typing import Optional, Sequence

import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

USAGE = "usage: python -m spiel_games.run MODULE [ARGS...]"


def find_module(name: str) -> str:
  """The file that ``python -m name`` would run.

  Raises:
    ValueError: one line naming the module, if it cannot be found or run.
  """
  try:
    spec = importlib.util.find_spec(name)
  except (ImportError, ValueError) as e:  # A missing parent package, or a malformed name.
    raise ValueError(f"cannot find module {name!r}: {e}") from None
  if spec is None:
    raise ValueError(f"no module named {name!r}")
  if spec.submodule_search_locations is not None:  # A package: python -m runs its __main__.
    try:
      main_spec = importlib.util.find_spec(f"{name}.__main__")
    except ImportError:
      main_spec = None
    if main_spec is None:
      raise ValueError(f"{name!r} is a package without a __main__ module; name a module in it")
    spec = main_spec
  return spec.origin or name


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs ``argv[0]`` as ``__main__`` with ``argv[1:]`` as its arguments; returns the status."""
  argv = list(sys.argv[1:] if argv is None else argv)
  if not argv or argv[0] in ("-h", "--help"):
    print(USAGE)
    print(__doc__.split("\n\n")[1])
    return 0 if argv else 2
  module = argv[0]
  try:
    path = find_module(module)
  except ValueError as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  saved_argv = sys.argv
  sys.argv = [path] + argv[1:]
  try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
  except SystemExit as e:  # absl's app.run always ends this way.
    code = e.code
    if code is None:
      return 0
    if isinstance(code, int):
      return code
    print(code, file=sys.stderr)
    return 1
  finally:
    sys.argv = saved_argv
  return 0


if __name__ == "__main__":
  sys.exit(main())
