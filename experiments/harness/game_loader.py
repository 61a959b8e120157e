"""Games for the experiments: a checked loader and the size of a game tree.

``load_game`` turns any text into a pyspiel game or a one-line ``ValueError`` (unknown name,
malformed string or parameters, a game the solvers cannot handle), with pyspiel's own C-level
error output kept off the terminal.

``count_histories`` (``spiel_games.game_size``) counts the histories (nodes) of a game tree,
exactly where the game knows its size, else by a depth-first walk that stops once it passes a
cap, so that a game too large for the engine is refused after at most ``cap``
steps and before any solver runs: the flat engine stores every history in flat arrays
(``algorithms.tree.game_tree``) and refuses trees above ``ENGINE_MAX_HISTORIES``. A run on range
vectors (two-player Kuhn poker with a large deck, ``algorithms.cfr.solver_backends``) holds
O(cards) numbers instead and is sized by its cards (``experiments.harness.context``).

``uniform_profile_ties`` finds the information states where two actions tie at CFR's first
iterate: there two correct implementations of one algorithm may round the zero regret to
opposite signs and then differ (e.g. ``kuhn_poker(players=4)`` at "0p").
"""

import os
import tempfile
import threading
from typing import Callable, Dict, List, Optional

import numpy as np
import pyspiel

import algorithms
from algorithms.tree import game_tree
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games.game_size import count_histories

# The engine's limit (``algorithms.tree.game_tree.DEFAULT_MAX_NODES``).
ENGINE_MAX_HISTORIES = game_tree.DEFAULT_MAX_NODES
# The exact sequence-form LP (the reference value of a game without a closed form) is skipped
# on larger trees: its sparse payoff matrix and HiGHS's time grow with the number of terminals.
LP_MAX_HISTORIES = 200_000
# OpenSpiel's exploitability walks every history through Python: 3.3 CPU s on
# kuhn_poker_ante(deck_size=50) (22,101 histories), 14 s on deck_size=100 (89,201), on this
# 2-core machine. On the range-vector games (``measures``) it is the independent reference up to
# this size (50 cards with standard rules, 70 simplified); the larger decks are measured by the
# range vectors alone.
OPENSPIEL_MAX_HISTORIES = 25_000

_HISTORIES: Dict[str, int] = {}  # Cache of ``histories``.
# Two counterfactual values closer than this, relative to the utility range, count as a tie.
TIE_TOLERANCE = 1e-12
# Guards the process-wide redirection of file descriptor 2 in ``load_game``.
_STDERR_REDIRECT = threading.Lock()


def is_two_player_zero_sum(game: pyspiel.Game) -> bool:
  """True for two-player zero-sum (or constant-sum) games, where exploitability is defined."""
  utility = game.get_type().utility
  return game.num_players() == 2 and utility in (pyspiel.GameType.Utility.ZERO_SUM,
                                                 pyspiel.GameType.Utility.CONSTANT_SUM)


def is_python_game(game: pyspiel.Game) -> bool:
  """True for a game implemented in Python (e.g. ``kuhn_poker_ante``), False for OpenSpiel's C++
  games: every state step of a Python game crosses from C++ into Python, so solvers written in
  C++ or walking states through pyspiel run far slower on it (OpenSpiel's Python and C++ CFR
  make about 20 iterations per second on ``kuhn_poker_ante(players=3)``, 140 and 2,000 on
  ``kuhn_poker(players=3)``)."""
  return type(game) is not pyspiel.Game


def load_game(text: str, two_player_zero_sum: bool = True) -> pyspiel.Game:
  """Loads an OpenSpiel game string after checking that the solvers apply to it.

  Args:
    text: e.g. "kuhn_poker" or "kuhn_poker_ante(ante=2.0,simplified=True)".
    two_player_zero_sum: also require two players and zero (or constant) sum, as CFR's
      exploitability and the exact references do.

  Returns:
    The game.

  Raises:
    ValueError: one line naming the problem: unknown game, malformed string or parameters, a
      game that is not sequential, or (if required) not two-player zero-sum.
  """
  if not isinstance(text, str):
    raise ValueError(f"a game string must be text, got {type(text).__name__}")
  name = text.split("(", 1)[0].strip()
  if name not in pyspiel.registered_names():
    poker = sorted(n for n in pyspiel.registered_names() if "poker" in n)
    raise ValueError(f"unknown game {name!r} in {text!r}; e.g. {', '.join(poker)} "
                     "(all names: pyspiel.registered_names())")
  repeated = repeated_parameters(text)
  if repeated:
    raise ValueError(f"bad game string {text!r}: parameter {repeated[0]!r} is given more than "
                     "once (pyspiel would keep one silently); give each parameter once")
  # pyspiel prints its own error to the C-level stderr before raising; keep it off the terminal.
  with _STDERR_REDIRECT, tempfile.TemporaryFile() as sink:
    saved = os.dup(2)
    os.dup2(sink.fileno(), 2)
    try:
      game = pyspiel.load_game(text)
    except Exception as e:  # noqa: BLE001  (pybind11 raises SpielError, ValueError, TypeError...)
      lines = str(e).strip().splitlines()
      raise ValueError(f"bad game string {text!r}: {lines[0] if lines else type(e).__name__}"
                       ) from None
    finally:
      os.dup2(saved, 2)
      os.close(saved)
  game_type = game.get_type()
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise ValueError(f"game {text!r} is not a sequential game, which CFR needs")
  if two_player_zero_sum and not is_two_player_zero_sum(game):
    raise ValueError(f"game {text!r} is not a two-player zero-sum sequential game, which CFR's "
                     "exploitability and the exact references need")
  return game


def repeated_parameters(text: str) -> List[str]:
  """The parameter names given more than once in one parenthesised list of a game string (at
  any depth: ``g(a=1,a=2)``, ``outer(game=inner(x=1,x=2))``), in order of their second
  appearance."""
  lists: List[List[str]] = []  # The names of each open list, innermost last.
  repeated, item = [], ""
  for char in text:
    if char in "(,)":
      if lists and item:
        name = item.split("=", 1)[0].strip()
        if name in lists[-1]:
          repeated.append(name)
        lists[-1].append(name)
      item = ""
      if char == "(":
        lists.append([])
      elif char == ")" and lists:
        lists.pop()
    elif lists:
      item += char
  return repeated


def _double(x: float) -> str:
  """``x`` as a game-string double: Python's shortest repr, written without an exponent where it
  has one (pyspiel reads "1e+17" as text; "100000000000000000.0" as the number)."""
  text = repr(float(x))
  return np.format_float_positional(float(x), trim="0") if "e" in text else text


def kuhn_game_string(ante: float, bet: float, simplified: bool, deck_size: int = 3) -> str:
  """The two-player ``kuhn_poker_ante`` game string of an ante, a bet, a rule set and a deck
  (three cards, the default, is left out of the string)."""
  return (f"kuhn_poker_ante(ante={_double(ante)},bet={_double(bet)}"
          f"{f',deck_size={int(deck_size)}' if deck_size != 3 else ''}"
          f"{',simplified=True' if simplified else ''})")


def histories(text: str, progress: Optional[Callable[[int], None]] = None) -> int:
  """``count_histories`` of a game string up to ``ENGINE_MAX_HISTORIES + 1`` (cached per
  process; ``progress`` as in ``count_histories``)."""
  if text not in _HISTORIES:
    _HISTORIES[text] = count_histories(load_game(text, two_player_zero_sum=False),
                                       ENGINE_MAX_HISTORIES, progress)
  return _HISTORIES[text]


def is_counted(text: str) -> bool:
  """True if ``histories(text)`` is cached (returns at once)."""
  return text in _HISTORIES


def check_engine_size(text: str) -> int:
  """The number of histories of a game string; ValueError if the engine cannot hold its tree.

  Raises:
    ValueError: one line with the game, its size (or the cap of the count) and the limit.
  """
  size = histories(text)
  if size > ENGINE_MAX_HISTORIES:
    raise ValueError(f"game {text!r} has more than {ENGINE_MAX_HISTORIES:,} histories, the "
                     "engine's limit (algorithms.tree.game_tree.DEFAULT_MAX_NODES); choose a "
                     "smaller game")
  return size


def uniform_profile_ties(game: pyspiel.Game) -> List[str]:
  """The information states where two actions have equal counterfactual values (within
  ``TIE_TOLERANCE`` times the utility range) when every player plays uniformly.

  Read off the regrets after one iteration of the engine's CFR with simultaneous updates,
  R(I, a) = q(I, a) - v(I) at the uniform profile (Zinkevich et al., "Regret minimization in games
  with incomplete information", NeurIPS 2007): two actions tie where their regrets do. At an exact
  tie the regret is 0 and each implementation's rounding residue (~1e-17) decides what regret
  matching plays next, so runs of one algorithm by two implementations can differ by O(1) while
  both are correct. A float test, so it also flags near ties, where rounding can decide too.
  On the range-vector engine (two-player Kuhn poker with a large deck) the regrets are its (node,
  card) blocks of two actions, and only the tied ones are named (no state per information set).
  """
  solver = algorithms.CFRSolver(game, alternating_updates=False)
  solver.evaluate_and_update_policy()
  tolerance = TIE_TOLERANCE * (game.max_utility() - game.min_utility())
  if solver.engine_name == "range":
    tree, pairs = solver.engine.trees[0], solver.engine.regrets[0].reshape(-1, 2)
    tied = np.flatnonzero(np.abs(pairs[:, 1] - pairs[:, 0]) <= tolerance)  # block d N + c
    return sorted(tree.state(*divmod(int(b), tree.num_cards)).information_state_string()
                  for b in tied)
  arrays, regrets = solver.engine.arrays, solver.engine.regrets
  found = []
  for player, infosets in enumerate(solver.tree.players):
    for i, key in enumerate(infosets.infoset_keys):
      g = arrays.global_infoset[player][i]
      start = arrays.infoset_start[g]
      block = np.sort(regrets[start:start + arrays.infoset_num_actions[g]])
      if np.any(np.diff(block) <= tolerance):
        found.append(key)
  return sorted(found)
