"""How far a policy is from equilibrium, chosen by the kind of game, and what the policy earns.

NashConv(sigma) = sum_i (max_{sigma_i'} u_i(sigma_i', sigma_-i) - u_i(sigma)) is zero exactly at a
Nash equilibrium of any game. In a two-player zero-sum game the exploitability NashConv / 2 is the
usual measure (Johanson et al., "Accelerating best response calculation in large extensive
games", IJCAI 2011), and for every profile the value u_0(sigma) lies within NashConv(sigma) of
the game value v* (both lie between min_{s1} u_0(sigma_0, s1) and max_{s0} u_0(s0, sigma_1)).
Elsewhere (more players, general sum) only NashConv is meaningful.

``measure_for(game)`` returns the measure to report, computed by the project (``Measure.ours``:
``algorithms.cfr.evaluation``, whose evaluator is the one of the engine the solvers take), with
OpenSpiel's computation as the independent second one (``Measure.openspiel``), and the players'
expected returns u_i(sigma) when every player plays the policy:

* on a game with a card tree that the solvers run on range vectors
  (``algorithms.cfr.engine_choice.range_card_tree(game, "auto")``: two-player Kuhn poker with at
  least ``AUTO_RANGE_MIN_CARDS`` cards), exploitability and returns by the range-vector best
  response and expected payoffs (``evaluation.RangeEvaluator``; Johanson et al. 2011), in
  O(N |tree|) for N cards, never touching the N (N - 1) deals; OpenSpiel's
  ``exploitability.exploitability`` walks every history in Python and is the reference only up to
  ``game_loader.OPENSPIEL_MAX_HISTORIES`` histories (above that ``Measure.openspiel`` is None);
* elsewhere, on the project's game tree (``algorithms.TreeEvaluator``): exploitability for
  two-player zero-sum games (OpenSpiel's ``exploitability.exploitability``), NashConv for every
  other game, e.g. three- and four-player Kuhn poker (OpenSpiel's ``exploitability.nash_conv``);
  returns by OpenSpiel's ``expected_game_score.policy_value``.

Three-player Kuhn poker is zero-sum, so its exploitability NashConv / 3 is defined too, but no
theorem relates it to the distance from the equilibrium values there, and OpenSpiel's Python
exploitability refuses more than two players: NashConv is the measure the experiments report for
every game with more than two players.
"""

import dataclasses
from typing import Any, Callable, List, Optional, Union

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel

from algorithms.cfr import evaluation
from algorithms.cfr.range_engine import CardPolicy
from experiments.harness import game_loader

EXPLOITABILITY = "exploitability"
NASH_CONV = "NashConv"
NASH_CONV_PER_UNIT = {EXPLOITABILITY: 2.0, NASH_CONV: 1.0}  # NashConv / measure.

# What a measure reads: an OpenSpiel policy, or on range-vector games also a ``CardPolicy``.
MeasuredPolicy = Union[policy_lib.Policy, CardPolicy]


@dataclasses.dataclass(frozen=True)
class Measure:
  """A distance-to-equilibrium measure of a game, and the expected returns of a policy.

  Attributes:
    name: ``EXPLOITABILITY`` or ``NASH_CONV``.
    ours: the measure of a policy, computed by the project (on the game tree or on range
      vectors).
    openspiel: the same measure computed by OpenSpiel, the independent reference; None where
      OpenSpiel's walk is too long for the game (see the module docstring).
    returns: every player's expected return when all play the policy.
  """

  name: str
  ours: Callable[[MeasuredPolicy], float]
  openspiel: Optional[Callable[[policy_lib.Policy], float]]
  returns: Callable[[MeasuredPolicy], List[float]]


def to_nash_conv(measure: str, measured: float) -> float:
  """The NashConv a measured value of measure ``measure`` stands for."""
  return NASH_CONV_PER_UNIT[measure] * measured


def measure_for(game: pyspiel.Game, tree: Optional[Any] = None) -> Measure:
  """The measure of ``game`` (see the module docstring), on the evaluator the project's solvers
  use for it (``algorithms.cfr.evaluation.evaluator``).

  Args:
    game: the game.
    tree: the game's ``algorithms.GameTree`` if one exists already (saves a walk; the measure is
      then computed on it, whatever the game).
  """
  evaluator = evaluation.evaluator(game, tree)
  if isinstance(evaluator, evaluation.RangeEvaluator):
    # Exploitability (BR_0 + BR_1 - u_0 - u_1) / 2 and returns u_i by range vectors.
    return Measure(EXPLOITABILITY, lambda p: float(evaluator.exploitability(p)),
                   (lambda p: float(exploitability.exploitability(game, p)))
                   if openspiel_walkable(game) else None,
                   lambda p: [float(u) for u in evaluator.policy_values(p)])

  def returns(p: policy_lib.Policy) -> List[float]:
    values = expected_game_score.policy_value(game.new_initial_state(),
                                              [p] * game.num_players())
    return [float(v) for v in values]

  if game_loader.is_two_player_zero_sum(game):
    return Measure(EXPLOITABILITY, lambda p: float(evaluator.exploitability(p)),
                   lambda p: float(exploitability.exploitability(game, p)), returns)
  return Measure(NASH_CONV, lambda p: float(evaluator.nash_conv(p)),
                 lambda p: float(exploitability.nash_conv(game, p)), returns)


def openspiel_walkable(game: pyspiel.Game) -> bool:
  """Whether OpenSpiel's measure of a range-vector game is computed: at most
  ``game_loader.OPENSPIEL_MAX_HISTORIES`` histories (counted by the game's own formula)."""
  cap = game_loader.OPENSPIEL_MAX_HISTORIES
  return game_loader.count_histories(game, cap) <= cap
