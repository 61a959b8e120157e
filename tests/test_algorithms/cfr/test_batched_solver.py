"""Batched CFR: each game of a batch equals solving it alone, bit for bit; exact batched values.

References: ``solvers.CFRSolver`` / ``CFRPlusSolver`` on each game alone (themselves equal to
OpenSpiel's CFR to 1e-10, tests/test_algorithms/cfr/test_solvers.py), ``TreeEvaluator`` and
OpenSpiel's ``exploitability.exploitability`` / ``nash_conv``.
"""

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.cfr.tree_exploitability import TreeEvaluator
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games.kuhn_poker_ante import game_from_rules
from spiel_games.kuhn_rules import KuhnRules

GRID = [KuhnRules(ante=a, bet=b) for a in (0.25, 1.0, 2.5) for b in (0.5, 1.0, 3.0)]
GAMES = [game_from_rules(rules) for rules in GRID]


@pytest.mark.parametrize("options", [
    {}, {"alternating_updates": False}, {"regret_matching_plus": True, "linear_averaging": True}])
def test_each_game_equals_solving_it_alone(options):
  batch = algorithms.BatchedCFRSolver(GAMES, **options).solve(60)
  batch.solve(17, games=[1, 4])  # Some games further than others.
  for i, game in enumerate(GAMES):
    alone = algorithms.CFRSolver(game, **options).solve(77 if i in (1, 4) else 60)
    assert batch.iterations[i] == alone.iteration
    for name in ("regrets", "cumulative", "sigma"):
      np.testing.assert_array_equal(getattr(batch, name)[i], getattr(alone.engine, name))
    np.testing.assert_array_equal(batch.average_policy(i).action_probability_array,
                                  alone.average_policy().action_probability_array)
    np.testing.assert_array_equal(batch.current_policy(i).action_probability_array,
                                  alone.current_policy().action_probability_array)


def test_games_as_pyspiel_games_with_more_players():
  games = [pyspiel.load_game("kuhn_poker(players=3)"),
           pyspiel.load_game("kuhn_poker_ante(players=3,ante=2.0,bet=0.5)")]
  batch = algorithms.BatchedCFRPlusSolver(games).solve(30)
  for i, game in enumerate(games):
    alone = algorithms.CFRPlusSolver(game).solve(30)
    np.testing.assert_array_equal(batch.regrets[i], alone.engine.regrets)
    np.testing.assert_array_equal(batch.cumulative[i], alone.engine.cumulative)
    assert batch.game(i) is game
  # Exact values per game: NashConv against OpenSpiel's, exploitability against the evaluator.
  nash_convs = batch.nash_convs()
  for i, game in enumerate(games):
    assert nash_convs[i] == pytest.approx(
        exploitability.nash_conv(game, batch.average_policy(i)), abs=1e-10)
    assert batch.exploitabilities()[i] == pytest.approx(
        TreeEvaluator(game).exploitability(batch.average_policy(i)), abs=1e-12)


def test_batched_exploitability_matches_openspiel():
  batch = algorithms.BatchedCFRSolver(GAMES).solve(25)
  ours = batch.exploitabilities()
  current = batch.exploitabilities(average=False)
  for i, game in enumerate(GAMES):
    assert ours[i] == pytest.approx(exploitability.exploitability(game, batch.average_policy(i)),
                                    abs=1e-10)
    assert current[i] == pytest.approx(
        exploitability.exploitability(game, batch.current_policy(i)), abs=1e-10)
  assert np.all(ours > 0)


def test_solve_until():
  # Each game stops at the first check (every 20 iterations) at or below the target, as a
  # single solver checked at the same iterations would.
  games = GAMES[:4]
  batch = algorithms.BatchedCFRPlusSolver(games).solve_until(1e-3, check_every=20)
  assert np.all(batch.exploitabilities() <= 1e-3)
  for i, game in enumerate(games):
    alone = algorithms.CFRPlusSolver(game)
    while alone.exploitability() > 1e-3:
      alone.solve(20)
    assert batch.iterations[i] == alone.iteration
  capped = algorithms.BatchedCFRPlusSolver(games).solve_until(1e-12, max_iterations=30,
                                                              check_every=20)
  np.testing.assert_array_equal(capped.iterations, 30)


def test_bad_batches():
  with pytest.raises(ValueError, match="at least one game"):
    algorithms.BatchedCFRSolver([])
  with pytest.raises(ValueError, match="share one tree shape"):
    algorithms.BatchedCFRSolver([game_from_rules(KuhnRules()),
                                 game_from_rules(KuhnRules(deck_size=4))])
  with pytest.raises(ValueError, match="share one tree shape"):
    algorithms.BatchedCFRSolver([pyspiel.load_game("kuhn_poker"),
                                 pyspiel.load_game("kuhn_poker_ante(simplified=true)")])
  with pytest.raises(ValueError, match="game 0 is a KuhnRules, not a pyspiel.Game"):
    algorithms.BatchedCFRSolver([KuhnRules(), pyspiel.load_game("kuhn_poker")])
  with pytest.raises(ValueError, match="game indices must be in 0..1"):
    algorithms.BatchedCFRSolver(GAMES[:2]).solve(1, games=[2])
  with pytest.raises(ValueError, match="use nash_convs"):
    algorithms.BatchedCFRSolver(
        [pyspiel.load_game("first_sealed_auction(max_value=3)")]).exploitabilities()
