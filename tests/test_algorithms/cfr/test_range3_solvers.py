"""Three-player Kuhn poker through the solver classes on ``engine="range"`` (``RangeBackend`` on a
``CardTree3``).

References: the flat engine (``engine="flat"``, equal to OpenSpiel's CFR solvers,
``test_solvers.py``) for policies and exploitability, at ante 0.75, bet 1.25, where the uniform
start has no exact ties (``test_range3_engine.py``); OpenSpiel's ``exploitability.nash_conv``
for the ``algorithms.nash_conv`` entry point. Checkpoints: ``test_range_engine.py``
(``test_save_and_load_resume_exactly``, two and three players).
"""

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.cfr import batched_solver
from algorithms.cfr import evaluation
from algorithms.cfr.solver_backends import range_memory
from algorithms.tree.kuhn_tree import kuhn_card_tree3
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

GAME = "kuhn_poker_ante(players=3,deck_size=5,ante=0.75,bet=1.25)"


@pytest.mark.parametrize("name", ["CFRSolver", "CFRPlusSolver", "DCFRSolver"])
def test_range_equals_flat(name):
  game = pyspiel.load_game(GAME)
  flat = getattr(algorithms, name)(game, engine="flat")
  ranged = getattr(algorithms, name)(game, engine="range")
  assert ranged.engine_name == "range"
  flat.solve(100)
  ranged.solve(100)
  np.testing.assert_allclose(ranged.average_policy().action_probability_array,
                             flat.average_policy().action_probability_array, atol=1e-12)
  assert ranged.nash_conv() == pytest.approx(flat.nash_conv(), abs=1e-12)
  # OpenSpiel's exploitability is NashConv / num_players.
  assert ranged.exploitability() == pytest.approx(ranged.nash_conv() / 3, abs=1e-15)
  assert ranged.exploitability() == pytest.approx(flat.exploitability(), abs=1e-12)


def test_batched_equals_single():
  games = [pyspiel.load_game(GAME),
           pyspiel.load_game("kuhn_poker_ante(players=3,deck_size=5,ante=1.0,bet=1.5)")]
  batch = batched_solver.BatchedCFRPlusSolver(games, engine="range")
  batch.solve(50)
  for i, game in enumerate(games):
    single = algorithms.CFRPlusSolver(game, engine="range")
    single.solve(50)
    np.testing.assert_array_equal(batch.range_engine.cumulative[i], single.engine.cumulative[0])
    assert batch.exploitabilities()[i] == pytest.approx(single.exploitability(), abs=1e-15)


def test_memory_estimate_counts_three_players():
  tree = kuhn_card_tree3(pyspiel.load_game("kuhn_poker_ante(players=3,deck_size=100)"))
  # 10 float64 arrays of (D + 1) N 2 entries: 5 + 1.5 per player, 9.5 rounded up
  # (solver_backends._RANGE_ARRAYS).
  assert range_memory(tree) == 10 * 8 * 2 * (tree.num_nodes + 1) * 100


def test_nash_conv_entry_point_equals_openspiel():
  game = pyspiel.load_game("kuhn_poker_ante(players=3,deck_size=4,ante=0.75,bet=1.25)")
  solver = algorithms.CFRPlusSolver(game, engine="range")
  solver.solve(30)
  policy = solver.average_policy()
  expected = exploitability.nash_conv(game, policy)
  assert algorithms.nash_conv(game, policy) == pytest.approx(expected, abs=1e-12)
  assert algorithms.nash_conv(game, solver.card_policy()) == pytest.approx(expected, abs=1e-12)
  assert algorithms.exploitability(game, policy) == pytest.approx(expected / 3, abs=1e-12)
  by_range = evaluation.RangeEvaluator(kuhn_card_tree3(game))
  assert by_range.nash_conv(policy) == pytest.approx(expected, abs=1e-12)
  assert by_range.exploitability(policy) == pytest.approx(expected / 3, abs=1e-12)


def test_evaluator_takes_range_vectors_where_auto_does():
  big = pyspiel.load_game("kuhn_poker_ante(players=3,deck_size=13)")
  assert isinstance(evaluation.evaluator(big), evaluation.RangeEvaluator)
  small = pyspiel.load_game("kuhn_poker(players=3)")
  assert not isinstance(evaluation.evaluator(small), evaluation.RangeEvaluator)


def test_batch_of_two_and_three_players_is_refused():
  games = [pyspiel.load_game("kuhn_poker_ante(deck_size=13)"),
           pyspiel.load_game("kuhn_poker_ante(players=3,deck_size=13)")]
  with pytest.raises(ValueError, match="batched games must share one engine"):
    batched_solver.BatchedCFRSolver(games, engine="range")


def test_flat_refusal_of_a_large_three_player_deck_names_the_range_engine():
  game = pyspiel.load_game("kuhn_poker_ante(players=3,deck_size=200)")
  # 1 + 200 (1 + 199 (1 + 198 * 25)) histories, 25 betting histories per deal
  # (kuhn_tree.tree_fields: S_k = 1 + (N - k) S_k+1).
  with pytest.raises(ValueError, match=r"197,050,001 histories.*a three-player game this size "
                                       r"runs only on the range-vector engine"):
    algorithms.CFRSolver(game, engine="flat")
  assert algorithms.CFRSolver(game).engine_name == "range"
