"""Games for the tests that OpenSpiel does not register.

OpenSpiel registers no constant-sum game (every registered game is zero-sum, general-sum or
identical-interest), so ``constant_sum_kuhn`` builds one: ``kuhn_poker(players=n)`` exported by
OpenSpiel's Gambit writer (``algorithms.gambit.export_gambit``) with every payoff raised by the
same constant, loaded back with ``pyspiel.load_efg_game``, which types it CONSTANT_SUM.
"""

import re

from open_spiel.python.algorithms import gambit
import pyspiel

_PAYOFFS = re.compile(r"\{ ([-0-9. e]+) \}")


def constant_sum_kuhn(players: int = 3, shift: float = 2.0) -> pyspiel.Game:
  """``kuhn_poker(players=players)`` with u_p(z) + ``shift`` for every player and terminal."""
  text = gambit.export_gambit(pyspiel.load_game(f"kuhn_poker(players={players})"))

  def shifted(match):
    return "{ " + " ".join(repr(float(v) + shift) for v in match.group(1).split()) + " }"

  lines = [_PAYOFFS.sub(shifted, line) if line.lstrip().startswith("t ") else line
           for line in text.splitlines()]
  return pyspiel.load_efg_game("\n".join(lines))


# Games built here, by the name the tests use in place of a game string.
BUILT = {"constant_sum_kuhn": constant_sum_kuhn}


def load(spec: str) -> pyspiel.Game:
  """A game of ``BUILT`` by name, else ``pyspiel.load_game(spec)``."""
  return BUILT[spec]() if spec in BUILT else pyspiel.load_game(spec)
