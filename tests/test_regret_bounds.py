"""Tests of algorithms.regret_bounds: CFR's NashConv bound (Zinkevich et al., NeurIPS 2007,
Theorem 4, summed over the two players)."""

import math

from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms import regret_bounds
import spiel_games  # noqa: F401 (registers kuhn_poker_ante)


@pytest.mark.parametrize("game_string, delta, infosets", [
    # Kuhn poker (H. W. Kuhn, 1950): 6 information sets per player (card x history), payoffs in
    # [-2, 2] (ante 1 + bet 1 either way).
    ("kuhn_poker", 4.0, 12),
    # Ante 2, bet 1: payoffs in [-3, 3]; the same 12 information sets.
    ("kuhn_poker_ante(ante=2.0,bet=1.0)", 6.0, 12),
    # The simplified game of experiments.landscape: player 0 decides with each card (3), player 1
    # only facing a bet (3); payoffs in [-2, 2].
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
