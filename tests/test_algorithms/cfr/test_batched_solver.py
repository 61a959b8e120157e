"""Batched CFR: each game of a batch equals solving it alone, bit for bit; exact batched values;
checkpoints.

References: the single-game class of each rule on each game alone, on the same engine
(``solvers.CFRSolver``, ``CFRPlusSolver``, ``DCFRSolver``, ``LCFRSolver``: equal to OpenSpiel's
CFR and DCFR to 1e-10, tests/test_algorithms/cfr/test_solvers.py; ``PCFRPlusSolver``,
``DCFRPlusSolver``, ``PDCFRPlusSolver``: equal to the papers' equations to 1e-12,
test_predictive_rules.py), ``TreeEvaluator`` and OpenSpiel's ``exploitability.exploitability`` /
``nash_conv``; for checkpoints, the same batch run without interruption.
"""

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.cfr.batched_solver import BatchedEngineSolver
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


# Every batched class with the single-game class it equals game by game (``solvers``, itself
# checked against OpenSpiel's CFR and DCFR and against the papers' equations,
# test_solvers.py and test_predictive_rules.py), and options other than the defaults.
RULE_PAIRS = [
    (algorithms.BatchedCFRSolver, algorithms.CFRSolver, {"alternating_updates": False}),
    (algorithms.BatchedCFRPlusSolver, algorithms.CFRPlusSolver, {}),
    (algorithms.BatchedDCFRSolver, algorithms.DCFRSolver, {}),
    (algorithms.BatchedDCFRSolver, algorithms.DCFRSolver, {"alpha": 2.0, "beta": 0.5,
                                                           "gamma": 3.0}),
    (algorithms.BatchedLCFRSolver, algorithms.LCFRSolver, {}),
    (algorithms.BatchedPCFRPlusSolver, algorithms.PCFRPlusSolver, {}),
    (algorithms.BatchedPCFRPlusSolver, algorithms.PCFRPlusSolver, {"gamma": 5.0}),
    (algorithms.BatchedSAPCFRPlusSolver, algorithms.SAPCFRPlusSolver, {}),
    (algorithms.BatchedSAPCFRPlusSolver, algorithms.SAPCFRPlusSolver, {"alpha": 5.0}),
    (algorithms.BatchedAPCFRPlusSolver, algorithms.APCFRPlusSolver, {}),
    (algorithms.BatchedAPCFRPlusSolver, algorithms.APCFRPlusSolver, {"alpha_max": 1.0}),
    (algorithms.BatchedDCFRPlusSolver, algorithms.DCFRPlusSolver, {}),
    (algorithms.BatchedDCFRPlusSolver, algorithms.DCFRPlusSolver, {"discount_constant": 1.5}),
    (algorithms.BatchedPDCFRPlusSolver, algorithms.PDCFRPlusSolver, {}),
    (algorithms.BatchedPDCFRPlusSolver, algorithms.PDCFRPlusSolver, {"alpha": 1.5,
                                                                     "gamma": 2.0}),
]
RULE_IDS = [",".join([batched.__name__, *(f"{k}={v}" for k, v in options.items())])
            for batched, _, options in RULE_PAIRS]
# Decks of 13 and 14 cards: "auto" runs the range-vector engine (solver_backends).
RANGE_GAMES = [pyspiel.load_game(f"kuhn_poker_ante(deck_size=13,ante={a},bet={b})")
               for a, b in ((1.0, 1.0), (0.5, 2.0), (2.0, 0.75))]


def assert_each_game_is_its_own_run(batch, single_cls, options, engine, counts):
  """Every game of ``batch`` (``counts[i]`` iterations) against ``single_cls`` alone on it: the
  same rule, options and engine, and the same state and policies bit for bit."""
  for i, count in enumerate(counts):
    alone = single_cls(batch.game(i), engine=engine, **options).solve(count)
    assert (batch.rule, batch.options(), batch.engine_name) == (
        alone.engine.rule, alone.options(), alone.engine_name)
    assert batch.iterations[i] == alone.iteration == count
    regrets, cumulative, sigma = (alone.engine.regrets, alone.engine.cumulative,
                                  alone.engine.sigma)
    for name, theirs in (("regrets", regrets), ("cumulative", cumulative), ("sigma", sigma)):
      np.testing.assert_array_equal(getattr(batch, name)[i], theirs.reshape(-1), err_msg=name)
    np.testing.assert_array_equal(batch.average_policy(i).action_probability_array,
                                  alone.average_policy().action_probability_array)
    np.testing.assert_array_equal(batch.current_policy(i).action_probability_array,
                                  alone.current_policy().action_probability_array)
    assert batch.exploitabilities([i])[0] == alone.exploitability()


@pytest.mark.parametrize("batched_cls,single_cls,options", RULE_PAIRS, ids=RULE_IDS)
def test_every_rule_equals_its_single_game_solver_on_the_flat_engine(batched_cls, single_cls,
                                                                     options):
  # cfr_kernel.exact_batch runs exact_iterations per game, which the single solvers' fused
  # kernel equals bit for bit (test_fused_kernel.py): equal arrays, not merely close ones.
  batch = batched_cls(GAMES, **options).solve(40)
  batch.solve(13, games=[1, 4])
  assert batch.engine_name == "flat"
  assert_each_game_is_its_own_run(batch, single_cls, options, "flat",
                                  [53 if i in (1, 4) else 40 for i in range(len(GAMES))])


@pytest.mark.parametrize("batched_cls,single_cls,options", RULE_PAIRS, ids=RULE_IDS)
def test_every_rule_equals_its_single_game_solver_on_range_vectors(batched_cls, single_cls,
                                                                   options):
  # The batch's RangeEngine runs range_kernel.iterations per game, as a RangeEngine of one game.
  batch = batched_cls(RANGE_GAMES, **options).solve(30)
  batch.solve(7, games=[2])
  assert batch.engine_name == "range"
  assert_each_game_is_its_own_run(batch, single_cls, options, "range", [30, 30, 37])
  assert batch.card_policy(2).probabilities.tolist() == (
      single_cls(RANGE_GAMES[2], **options).solve(37).card_policy().probabilities.tolist())


def test_new_rules_with_three_players():
  games = [pyspiel.load_game("kuhn_poker(players=3)"),
           pyspiel.load_game("kuhn_poker_ante(players=3,ante=2.0,bet=0.5)")]
  new_rules = (algorithms.PCFRPlusSolver, algorithms.SAPCFRPlusSolver, algorithms.APCFRPlusSolver,
               algorithms.DCFRPlusSolver, algorithms.PDCFRPlusSolver)
  for batched_cls, single_cls, options in RULE_PAIRS:
    if single_cls not in new_rules:
      continue
    batch = batched_cls(games, **options).solve(20)
    for i, game in enumerate(games):
      alone = single_cls(game, **options).solve(20)
      np.testing.assert_array_equal(batch.regrets[i], alone.engine.regrets)
      np.testing.assert_array_equal(batch.sigma[i], alone.engine.sigma)
      assert batch.nash_convs([i])[0] == alone.nash_conv()


@pytest.mark.parametrize("engine", ["flat", "range"])
@pytest.mark.parametrize("batched_cls,single_cls,options", RULE_PAIRS, ids=RULE_IDS)
def test_save_and_load_resume_bit_for_bit(tmp_path, engine, batched_cls, single_cls, options):
  del single_cls  # the batch's own uninterrupted run is the reference
  straight = batched_cls(RANGE_GAMES, engine=engine, **options).solve(25)
  straight.solve(6, games=[0])
  first = batched_cls(RANGE_GAMES, engine=engine, **options).solve(10)
  first.solve(6, games=[0])
  first.save(tmp_path / "batch.ckpt")
  # Loaded through the base class, which finds the class by name.
  resumed = BatchedEngineSolver.load(tmp_path / "batch.ckpt")
  assert (type(resumed), resumed.engine_name, resumed.options()) == (
      batched_cls, engine, first.options())
  np.testing.assert_array_equal(resumed.sigma, first.sigma)
  resumed.solve(15)
  np.testing.assert_array_equal(resumed.iterations, straight.iterations)
  for name in ("regrets", "cumulative", "sigma"):
    np.testing.assert_array_equal(getattr(resumed, name), getattr(straight, name), err_msg=name)


def test_batched_checkpoint_refusals(tmp_path):
  batch = algorithms.BatchedPDCFRPlusSolver(GAMES[:2]).solve(3)
  batch.save(tmp_path / "batch.ckpt")
  _, arrays = algorithms.checkpoint.read_checkpoint(tmp_path / "batch.ckpt")
  np.testing.assert_array_equal(arrays["policy"], batch.sigma)  # RM(R + m): R alone lacks m
  with pytest.raises(ValueError, match="cannot be loaded as BatchedCFRSolver"):
    algorithms.BatchedCFRSolver.load(tmp_path / "batch.ckpt")
  with pytest.raises(ValueError, match="checkpoint is for games"):
    algorithms.BatchedPDCFRPlusSolver.load(tmp_path / "batch.ckpt", games=GAMES[1:3])
  with pytest.raises(ValueError, match="checkpoint header lacks game, iteration"):
    algorithms.CFRSolver.load(tmp_path / "batch.ckpt")
  algorithms.PDCFRPlusSolver(GAMES[0]).save(tmp_path / "single.ckpt")
  with pytest.raises(ValueError, match="header lacks games, iterations"):
    algorithms.BatchedPDCFRPlusSolver.load(tmp_path / "single.ckpt")
  with pytest.raises(ValueError, match="card_policy needs the range-vector engine"):
    batch.card_policy(0)
