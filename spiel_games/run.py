r"""Runs any module, e.g. one of OpenSpiel's example scripts, with the project's games registered.

OpenSpiel's scripts load games by name (``pyspiel.load_game(FLAGS.game)``), and a Python game
exists by name only once its module has been imported. This command imports ``spiel_games``
(which registers ``kuhn_poker_ante`` and ``kuhn_poker_referee``) and then runs MODULE as
``__main__``, as ``python -m MODULE ARGS...`` would, with ARGS as its ``sys.argv[1:]`` (absl
flags included)::

  python -m spiel_games.run open_spiel.python.examples.playthrough --game kuhn_poker_ante
  python -m spiel_games.run open_spiel.python.examples.mccfr_example \
      --game="kuhn_poker_ante(players=3)"

While MODULE runs, ``pyspiel.load_game`` and ``pyspiel.load_game_as_turn_based`` accept a game
string with parameters together with a parameter dictionary, as several of OpenSpiel's scripts
call them (``cfr_example``, ``mccfr_example``: ``load_game(FLAGS.game, {"players":
FLAGS.players})``); OpenSpiel alone answers "Unknown game" to any string with parentheses there.
The two are merged: a parameter in only one of them is used, an equal value in both is fine, the
string's value replaces one the script took from a flag left at its default (``--players``
defaults to 2), and any other disagreement is one ``error:`` line and exit status 2.

When the ``--game`` flag (or ``--game_name``, ``--game_string``) names a game with more than
``LARGE_GAME_STATES`` states, one ``note:`` line on stderr first says how many, and the time of
one walk over them and the memory of holding them, the least that scripts that walk the whole
tree need. MODULE's own exit status is the command's. A module that
cannot be found gives one ``error:`` line on stderr and exit status 2. OpenSpiel's
``mccfr_cpp_example``, which writes its solver as a ``.pickle`` file into the working directory,
runs in a temporary directory that is removed afterwards.
"""

import contextlib
import functools
import importlib.util
import os
import runpy
import sys
import tempfile
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Sequence, Tuple

from absl import flags
import pyspiel

import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games import game_size

USAGE = "usage: python -m spiel_games.run MODULE [ARGS...]"

# Above this many states a game gets the size note: OpenSpiel's Python CFR visits every state
# several times per iteration, at some 10 (kuhn_poker_ante) to 150 (kuhn_poker_referee)
# microseconds a visit, so 100 iterations of cfr_example take minutes. leduc_poker has 9,457.
LARGE_GAME_STATES = 10_000
# What the note says one walk over the states costs: at least 10 microseconds a state (the
# fastest visit above; one CFR iteration of OpenSpiel's Python CFR on kuhn_poker_ante(deck_size=20)
# measured 500 per state, get_all_states 220, on a loaded 2-core machine), and, for the scripts
# that hold every state (get_all_states, TabularPolicy), about 700 bytes a state (tracemalloc's
# peak over get_all_states on that game).
WALK_SECONDS_PER_STATE = 10e-6
HELD_BYTES_PER_STATE = 700
# Flags by which OpenSpiel's example scripts name their game.
GAME_FLAGS = ("game", "game_name", "game_string")
# Modules that write scratch files into the working directory: they run in a temporary one.
WRITES_TO_CWD = frozenset(["open_spiel.python.examples.mccfr_cpp_example"])


class ParameterConflict(ValueError):
  """A game string and a parameter dictionary give one parameter different values."""


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


# Game strings together with parameter dictionaries.


def _value_string(value: Any) -> str:
  """A parameter value as pyspiel writes it in a game string."""
  if isinstance(value, Mapping):
    return pyspiel.game_parameters_to_string(dict(value))
  return str(value)


def _flag_at_default(key: str, value: Any) -> bool:
  """True if ``value`` is that of an absl flag named ``key`` not given on the command line."""
  try:
    flag = flags.FLAGS[key]
  except KeyError:
    return False
  return not flag.present and flag.value == value


def merge_parameters(game_string: str, params: Mapping[str, Any],
                     overridable: Callable[[str, Any], bool] = lambda key, value: False
                     ) -> Tuple[str, Dict[str, Any]]:
  """The short name and the parameters of ``game_string`` merged with ``params``.

  Args:
    game_string: e.g. ``"kuhn_poker_ante(players=3)"`` (parsed by pyspiel's own parser).
    params: a parameter dictionary given with it, e.g. ``{"players": 3}``.
    overridable: ``overridable(key, value)`` is true when ``params[key] = value`` is only a
      default (a script's flag left at its default value), which the string's value replaces.

  Returns:
    (short name, parameters): the string's parameters and the dictionary's other ones.

  Raises:
    ParameterConflict: one line naming the parameter and both values, if they differ.
  """
  parsed = dict(pyspiel.game_parameters_from_string(game_string))
  name = parsed.pop("name")
  merged = dict(parsed)
  for key, value in params.items():
    if key not in parsed:
      merged[key] = value
    elif parsed[key] != value and not overridable(key, value):
      given = (f"--{key}={_value_string(value)}" if key in flags.FLAGS
               else f"{key}={_value_string(value)}")
      ours = _value_string(parsed[key])
      raise ParameterConflict(
          f"game {game_string!r} sets {key}={ours}, but the script also loads it with {given}; "
          f"give {key} once, or the same value ({ours}) in both")
  return name, merged


def _merging(load: Callable[..., pyspiel.Game]) -> Callable[..., pyspiel.Game]:
  """``load`` (``pyspiel.load_game`` or ``load_game_as_turn_based``), merging (string, dict)."""

  @functools.wraps(load)
  def merged_load(*args, **kwargs):
    if (len(args) == 2 and not kwargs and isinstance(args[0], str) and "(" in args[0]
        and isinstance(args[1], Mapping)):
      name, params = merge_parameters(args[0], args[1], _flag_at_default)
      return load(name, params)
    return load(*args, **kwargs)

  return merged_load


@contextlib.contextmanager
def merged_game_parameters() -> Iterator[None]:
  """Within the block, pyspiel's loaders merge a game string's parameters with a dictionary."""
  saved = pyspiel.load_game, pyspiel.load_game_as_turn_based
  pyspiel.load_game, pyspiel.load_game_as_turn_based = (_merging(saved[0]), _merging(saved[1]))
  try:
    yield
  finally:
    pyspiel.load_game, pyspiel.load_game_as_turn_based = saved


# Game sizes.


def _flag_value(argv: Sequence[str], name: str) -> Optional[str]:
  """The last value of ``--name=value`` or ``--name value`` in ``argv``, if any."""
  value = None
  for i, arg in enumerate(argv):
    if arg.startswith(f"--{name}="):
      value = arg.split("=", 1)[1]
    elif arg == f"--{name}" and i + 1 < len(argv):
      value = argv[i + 1]
  return value


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
  """Silences file descriptor 2 (pyspiel prints its exceptions there from C++)."""
  sys.stderr.flush()
  saved = os.dup(2)
  try:
    with open(os.devnull, "w", encoding="utf-8") as null:
      os.dup2(null.fileno(), 2)
      yield
  finally:
    os.dup2(saved, 2)
    os.close(saved)


def size_note(args: Sequence[str]) -> Optional[str]:
  """The note for a game of more than ``LARGE_GAME_STATES`` states named in the flags ``args``.

  The game is the first of ``--game``, ``--game_name``, ``--game_string`` given, with
  ``--players`` as the scripts pass it; None when no flag names a game, the game does not load
  (the script then reports it), or it is small.
  """
  game_string = next((value for value in (_flag_value(args, name) for name in GAME_FLAGS)
                      if value is not None), None)
  if not game_string:
    return None
  players = _flag_value(args, "players")
  try:
    with _quiet_stderr():
      name = pyspiel.game_parameters_from_string(game_string)["name"]
      if name not in pyspiel.registered_names():
        return None
      params = {"players": int(players)} if players is not None else {}
      game = (pyspiel.load_game(game_string) if not params else
              pyspiel.load_game(*merge_parameters(game_string, params)))
  except Exception:  # pylint: disable=broad-except  (the script reports a bad game itself)
    return None
  exact = game_size.exact_histories(game)
  count = exact if exact is not None else game_size.count_histories(game, LARGE_GAME_STATES)
  if count <= LARGE_GAME_STATES:
    return None
  label = game_string + (f" with --players={players}" if players is not None else "")
  size = f"{count:,} states" if exact is not None else f"more than {LARGE_GAME_STATES:,} states"
  hint = getattr(game, "size_hint", lambda: None)()  # The game's own advice, if it has some.
  smaller = f"; {hint}" if hint else ""
  return (f"note: {label} has {size}; scripts that walk the whole game tree at every iteration "
          f"(cfr_example, mccfr_example, uniform_policy_exploitability) need "
          f"{_walk_cost(count)}{smaller}")


def _walk_cost(states: int) -> str:
  """The time of one walk over ``states`` states and the memory of holding them
  (``WALK_SECONDS_PER_STATE``, ``HELD_BYTES_PER_STATE``), e.g. "at least 10.4 days a walk ...
  at least 63.0 TB of memory"."""
  seconds = states * WALK_SECONDS_PER_STATE
  units = [(86400, "days"), (3600, "hours"), (60, "minutes"), (1, "seconds")]
  scale, unit = next((s, u) for s, u in units if seconds >= s or s == 1)
  memory = states * HELD_BYTES_PER_STATE
  sizes = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
  size, suffix = next(((b, name) for b, name in sizes if memory >= b), (1, "bytes"))
  return (f"at least {seconds / scale:,.1f} {unit} a walk (10 microseconds a state; OpenSpiel's "
          f"Python CFR spends more, and walks several times an iteration) and, where a script "
          f"holds every state, at least {memory / size:,.1f} {suffix} of memory")


def run_module(module: str, path: str, args: Sequence[str]) -> int:
  """Runs ``module`` (file ``path``) as ``__main__`` with ``args``; returns its exit status."""
  saved_argv = sys.argv
  sys.argv = [path, *args]
  try:
    with merged_game_parameters():
      runpy.run_module(module, run_name="__main__", alter_sys=True)
  except SystemExit as e:  # absl's app.run always ends this way.
    code = e.code
    if code is None:
      return 0
    if isinstance(code, int):
      return code
    print(code, file=sys.stderr)
    return 1
  except ParameterConflict as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  finally:
    sys.argv = saved_argv
  return 0


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
  note = size_note(argv[1:])
  if note:
    print(note, file=sys.stderr, flush=True)
  if module not in WRITES_TO_CWD:
    return run_module(module, path, argv[1:])
  cwd = os.getcwd()
  with tempfile.TemporaryDirectory(prefix="spiel_games_run_") as scratch:
    os.chdir(scratch)
    try:
      return run_module(module, path, argv[1:])
    finally:
      os.chdir(cwd)


if __name__ == "__main__":
  sys.exit(main())
