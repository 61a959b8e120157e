"""How far a policy is from equilibrium, chosen by the kind of game.

NashConv(sigma) = sum_i (max_{sigma_i'} u_i(sigma_i', sigma_-i) - u_i(sigma)) is zero exactly at a
Nash equilibrium of any game. In a two-player zero-sum game the exploitability NashConv / 2 is the
usual measure (Johanson et al., "Accelerating best response calculation in large extensive
games", IJCAI 2011), and for every profile the value u_0(sigma) lies within NashConv(sigma) of
the game value v* (both lie between min_{s1} u_0(sigma_0, s1) and max_{s0} u_0(s0, sigma_1)).
Elsewhere (more players, general sum) only NashConv is meaningful.

``measure_for(game)`` returns the measure to report, computed exactly on the project's game tree
(``algorithms.TreeEvaluator``) with OpenSpiel's computation as the independent second one:
exploitability for two-player zero-sum games (OpenSpiel's ``exploitability.exploitability``);
NashConv for every other game, e.g. three- and four-player Kuhn poker (OpenSpiel's
``exploitability.nash_conv``). Three-player Kuhn poker is zero-sum, so its exploitability
NashConv / 3 is defined too, but no theorem relates it to the distance from the equilibrium
values there, and OpenSpiel's Python exploitability refuses more than two players: NashConv is
the measure the experiments report for every game with more than two players.
"""

import dataclasses
from typing import Any, Callable, Optional

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pyspiel

import algorithms
from experiments.harness import game_loader

EXPLOITABILITY = "exploitability"
NASH_CONV = "NashConv"
NASH_CONV_PER_UNIT = {EXPLOITABILITY: 2.0, NASH_CONV: 1.0}  # NashConv / measure.


@dataclasses.dataclass(frozen=True)
class Measure:
  """A distance-to-equilibrium measure of a game.

  Attributes:
    name: ``EXPLOITABILITY`` or ``NASH_CONV``.
    exact: the measure of a policy, computed by the project (on the game tree where it can).
    openspiel: the same measure computed by OpenSpiel, the independent reference.
  """

  name: str
  exact: Callable[[policy_lib.Policy], float]
  openspiel: Callable[[policy_lib.Policy], float]


def to_nash_conv(measure: str, measured: float) -> float:
  """The NashConv a measured value of measure ``measure`` stands for."""
  return NASH_CONV_PER_UNIT[measure] * measured


def measure_for(game: pyspiel.Game, tree: Optional[Any] = None) -> Measure:
  """The measure of ``game`` (see the module docstring).

  Args:
    game: the game.
    tree: the game's ``algorithms.GameTree`` if one exists already (saves a walk).
  """
  evaluator = algorithms.TreeEvaluator(tree if tree is not None else game)
  if game_loader.is_two_player_zero_sum(game):
    return Measure(EXPLOITABILITY, lambda p: float(evaluator.exploitability(p)),
                   lambda p: float(exploitability.exploitability(game, p)))
  return Measure(NASH_CONV, lambda p: float(evaluator.nash_conv(p)),
                 lambda p: float(exploitability.nash_conv(game, p)))
