"""Command-line argument types and options shared by every experiment.

Each type is an argparse ``type=`` callable that turns text into a value or raises
``argparse.ArgumentTypeError`` with a one-line message naming the problem and the allowed values;
argparse prints it as ``error: argument --x: ...`` and exits with status 2 before any work.

``Budget`` is the one place where an option's default and its ``--quick`` default are resolved.
"""

import argparse
import dataclasses
import pathlib
import sys
from typing import Any, Callable, NoReturn, Optional

from experiments.harness import executors
from experiments.harness import game_loader
from experiments.harness import solver_registry

DEFAULT_OUT = "results"
# An experiment whose sweep is estimated to take longer than this is refused before any work.
DEFAULT_MAX_MINUTES = 60.0


class ArgumentParser(argparse.ArgumentParser):
  """argparse's parser whose errors are one line, ``PROG: error: MESSAGE`` on stderr, exit status
  2, without the usage block argparse prints first (``--help`` shows it). Its subcommands' parsers
  are of the same class (``add_subparsers`` makes them of the parser's class)."""

  def error(self, message: str) -> NoReturn:
    print(f"{self.prog}: error: {message}", file=sys.stderr)
    sys.exit(2)


def number_type(convert: Callable[[str], Any], allowed: Callable[[Any], bool],
                description: str) -> Callable[[str], Any]:
  """An argparse type: ``convert(text)``, rejected unless ``allowed``, with a one-line message."""

  def parse(text: str):
    try:
      value = convert(text)
    except ValueError:
      raise argparse.ArgumentTypeError(f"expected {description}, got {text!r}") from None
    if not allowed(value):
      raise argparse.ArgumentTypeError(f"expected {description}, got {text}")
    return value

  parse.__name__ = description  # argparse names the type in its own messages.
  return parse


positive_int = number_type(int, lambda v: v > 0, "a positive integer")
positive_float = number_type(float, lambda v: 0 < v < float("inf"), "a finite positive number")
nonnegative_int = number_type(int, lambda v: v >= 0, "an integer >= 0")
# --workers: at most ``executors.MAX_WORKERS`` processes, whatever the override.
workers_count = number_type(int, lambda v: 1 <= v <= executors.MAX_WORKERS,
                            f"an integer from 1 to {executors.MAX_WORKERS}")


def deck_type(smallest: int, largest: Optional[int] = None, why: str = "") -> Callable[[str], int]:
  """An argparse type: the cards of a Kuhn poker deck (``kuhn_poker_ante``'s deck_size), an
  integer from ``smallest`` to ``largest`` (no limit if None); its one-line message names the
  range and ``why`` it is bounded, if given."""
  if largest is None:
    return number_type(int, lambda v: v >= smallest,
                       f"a deck of at least {smallest:,} cards (an integer >= {smallest:,})")
  return number_type(int, lambda v: smallest <= v <= largest,
                     f"an integer from {smallest:,} to {largest:,}" + (f" ({why})" if why else ""))


# Cards in a two-player Kuhn poker deck.
deck_size = deck_type(2)


def checked_text(check: Callable[[str], Any], description: str) -> Callable[[str], str]:
  """An argparse type: ``text`` itself once ``check(text)`` accepts it; its ValueError becomes
  argparse's one-line message."""

  def parse(text: str) -> str:
    try:
      check(text)
    except ValueError as e:
      raise argparse.ArgumentTypeError(str(e)) from None
    return text

  parse.__name__ = description
  return parse


def out_folder(text: str) -> pathlib.Path:
  """An argparse type: the results folder, refused when empty (it would be the current folder)."""
  if not text.strip():
    raise argparse.ArgumentTypeError(
        f"expected a folder path, e.g. {DEFAULT_OUT} or . for the current folder, got "
        f"{text!r}")
  return pathlib.Path(text)


# An OpenSpiel game string of a two-player zero-sum sequential game (checked by loading it).
game_string = checked_text(game_loader.load_game, "game string")
# An OpenSpiel game string of any sequential game (any number of players, any utility type).
any_game_string = checked_text(lambda text: game_loader.load_game(text, two_player_zero_sum=False),
                               "game string")
# The name of a registered solver.
solver_name = checked_text(solver_registry.get_solver, "solver name")


@dataclasses.dataclass(frozen=True)
class Budget:
  """A count with a default and a smaller default for ``--quick``.

  Attributes:
    default: the value at the default budget.
    quick: the value with ``--quick``.
  """

  default: int
  quick: int

  def resolve(self, explicit: Optional[int], quick: bool) -> int:
    """``explicit`` if given, else the default of the budget (``quick`` or not)."""
    if explicit is not None:
      return explicit
    return self.quick if quick else self.default

  def help(self, what: str) -> str:
    """Help text: ``what (default D, Q with --quick)``."""
    return f"{what} (default {self.default}, {self.quick} with --quick)"


def add_game_and_solver_lists(parser: argparse.ArgumentParser, game_help: str,
                              solver_help: str) -> None:
  """Repeatable ``--game GAME_STRING`` (any sequential game, ``any_game_string``) and
  ``--solver NAME`` (a registered solver, ``solver_name``): each collects a list, None when not
  given (the command then uses its own defaults, which the help texts name)."""
  parser.add_argument("--game", action="append", type=any_game_string, metavar="GAME_STRING",
                      help=game_help)
  parser.add_argument("--solver", action="append", type=solver_name, metavar="NAME",
                      help=solver_help)


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
  """The options every command takes."""
  parser.add_argument("--quick", action="store_true",
                      help="small budget (about a minute for the whole suite)")
  parser.add_argument("--out", type=out_folder, default=pathlib.Path(DEFAULT_OUT),
                      metavar="DIR", help=f"results folder (default: {DEFAULT_OUT})")
  parser.add_argument("--seed", type=nonnegative_int, default=0, metavar="N",
                      help="base random seed (default: 0)")
  parser.add_argument("--quiet", action="store_true",
                      help="one line per experiment, no progress bars")
  parser.add_argument("--fresh", action="store_true",
                      help="recompute every job, even those already saved for the same code")
  workers = executors.default_workers()
  parser.add_argument("--workers", type=workers_count, default=workers, metavar="N",
                      help="process-pool size for sweeps; 1 runs them in this process; more than "
                      "the CPUs only with --oversubscribe, never more than a sweep's jobs, each "
                      "started when needed (default: the CPUs, capped at one worker per "
                      f"{executors.WORKER_BYTES / 2**30:.1f} GiB of available memory: {workers} "
                      "here)")
  parser.add_argument("--oversubscribe", action="store_true",
                      help="allow --workers above the CPU count (default: capped at the CPUs)")
  parser.add_argument("--dask", metavar="ADDRESS", default=None,
                      help="run sweeps on the Dask scheduler at ADDRESS, e.g. tcp://host:8786 "
                      "(needs pip install '.[dask]'; --workers is then ignored; default: off)")
  parser.add_argument("--dask-timeout", type=positive_float, default=executors.DASK_TIMEOUT,
                      metavar="S", help="give up connecting to the Dask scheduler after S "
                      f"seconds (default: {executors.DASK_TIMEOUT:g})")
  parser.add_argument("--allow-no-checks", action="store_true",
                      help="accept an experiment that makes no reference check (by default it "
                      "is reported as NO CHECKS and the exit status is 1)")
  parser.add_argument("--max-minutes", type=positive_float, default=DEFAULT_MAX_MINUTES,
                      metavar="M", help="refuse an experiment whose jobs are estimated to take "
                      f"longer than M minutes (default: {DEFAULT_MAX_MINUTES:g})")
