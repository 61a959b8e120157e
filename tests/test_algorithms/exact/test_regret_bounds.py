"""Tests of algorithms.exact.regret_bounds (Zinkevich et al., NeurIPS 2007): regret matching's bound
(Theorem 3) and CFR's NashConv bound (Theorem 4, summed over the two players)."""

import math

import numpy as np
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.exact import regret_bounds
import spiel_games  # noqa: F401 (registers kuhn_poker_ante)


@pytest.mark.parametrize("game_string, delta, infosets", [
    # Kuhn poker (H. W. Kuhn, 1950): 6 information sets per player (card x history), payoffs in
    # [-2, 2] (ante 1 + bet 1 either way).
    ("kuhn_poker", 4.0, 12),
    # Ante 2, bet 1: payoffs in [-3, 3]; the same 12 information sets.
    ("kuhn_poker_ante(ante=2.0,bet=1.0)", 6.0, 12),
    # The simplified game of experiments.commands.landscape: player 0 decides with each card (3),
    # player 1 only facing a bet (3); payoffs in [-2, 2].
    ("kuhn_poker_ante(simplified=True)", 4.0, 6),
])
def test_bound_is_delta_times_infosets_times_sqrt_actions_over_sqrt_t(game_string, delta,
                                                                       infosets):
  game = pyspiel.load_game(game_string)
  for iterations in (1, 100, 2000):
    expected = delta * infosets * math.sqrt(2) / math.sqrt(iterations)  # Two actions everywhere.
    assert regret_bounds.cfr_nash_conv_bound(game, iterations) == pytest.approx(expected,
                                                                               rel=1e-12)


def test_openspiel_cfr_stays_under_the_bound_and_the_tutorial_number():
  # OpenSpiel's CFR (an independent implementation) on Kuhn poker with ante 2 and bet 1: the
  # average policy's NashConv is under the bound, which is 6 * 12 * sqrt(2 / 2000) = 2.277 at
  # T = 2000, the value docs/tutorial.ipynb prints (2.28).
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0,bet=1.0)")
  assert regret_bounds.cfr_nash_conv_bound(game, 2000) == pytest.approx(2.2768, abs=1e-4)
  solver = cfr.CFRSolver(game)
  for t in range(1, 51):
    solver.evaluate_and_update_policy()
    if t in (1, 10, 50):
      nash_conv = exploitability.nash_conv(game, solver.average_policy())
      assert 0 <= nash_conv <= regret_bounds.cfr_nash_conv_bound(game, t)


@pytest.mark.parametrize("game_string, iterations, message", [
    ("kuhn_poker(players=3)", 10, "needs exactly 2 players, got 3"),
    ("kuhn_poker", 0, "needs iterations >= 1, got 0"),
])
def test_bad_input_is_a_value_error(game_string, iterations, message):
  with pytest.raises(ValueError, match=message):
    regret_bounds.cfr_nash_conv_bound(pyspiel.load_game(game_string), iterations)


def test_regret_matching_bound_values_and_arrays():
  # Delta sqrt(|A|) / sqrt(T): rock-paper-scissors payoffs in [-1, 1] (Delta = 2), 3 actions.
  assert regret_bounds.regret_matching_bound(2.0, 3, 100) == pytest.approx(2 * math.sqrt(3) / 10,
                                                                           rel=1e-15)
  bounds = regret_bounds.regret_matching_bound(2.0, 3, np.array([1, 4, 100]))
  assert bounds == pytest.approx([2 * math.sqrt(3), math.sqrt(3), 2 * math.sqrt(3) / 10],
                                 rel=1e-15)
  for actions, iterations in ((0, 10), (3, 0), (3, np.array([5, 0]))):
    with pytest.raises(ValueError, match="needs actions >= 1 and iterations >= 1"):
      regret_bounds.regret_matching_bound(2.0, actions, iterations)


def test_regret_matching_bound_holds_for_rps_self_play():
  # The bound holds for any opponents, here regret matching itself on rock-paper-scissors:
  # each player's average regret after T rounds stays below it.
  game = pyspiel.load_matrix_game("matrix_rps")
  payoffs = np.array(game.row_utilities())
  regrets = [np.zeros(3), np.zeros(3)]
  totals = [np.zeros(3), np.zeros(3)]
  earned = [0.0, 0.0]
  for t in range(1, 501):
    policies = []
    for r in regrets:
      positive = np.maximum(r, 0)
      policies.append(positive / positive.sum() if positive.sum() > 0 else np.full(3, 1 / 3))
    if t == 1:
      policies[0] = np.array([1.0, 0.0, 0.0])  # Start away from the equilibrium.
    values = [payoffs @ policies[1], -(policies[0] @ payoffs)]
    for i in range(2):
      regrets[i] += values[i] - policies[i] @ values[i]
      totals[i] += values[i]
      earned[i] += policies[i] @ values[i]
    for i in range(2):
      average_regret = (totals[i].max() - earned[i]) / t
      assert average_regret <= regret_bounds.regret_matching_bound(2.0, 3, t) + 1e-12
