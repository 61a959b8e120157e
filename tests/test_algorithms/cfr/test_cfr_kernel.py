"""The compiled kernel against the numpy engine it replaced (``numpy_reference``), bit for bit.

The kernel sums in the numpy engine's order (``tree_passes`` docstring), so regrets, average
numerators and policies are equal exactly, for every update rule, alternating and simultaneous
updates, two and more players, after any number of iterations: both ``solve(n)`` (one compiled
call) and ``iterate()`` one at a time.
"""

import numpy as np
import numpy_reference
from numpy_reference import ReferenceEngine
import pyspiel
import pytest

from algorithms.cfr import regret_matching as rm
from algorithms.cfr import tree_passes
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import PassValues
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
from helpers import load
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

RULES = {
    "cfr": UpdateRule(),
    "cfr_simultaneous": UpdateRule(alternating_updates=False),
    "cfr_plus": UpdateRule(regret_matching_plus=True, averaging_gamma=1.0),
    "cfr_plus_simultaneous": UpdateRule(alternating_updates=False, regret_matching_plus=True,
                                        averaging_gamma=1.0),
    "dcfr": UpdateRule(averaging_gamma=2.0, discount_alpha=1.5, discount_beta=0.0),
    "lcfr": UpdateRule(averaging_gamma=1.0, discount_alpha=1.0, discount_beta=1.0),
}
GAMES = ["kuhn_poker", "leduc_poker", "kuhn_poker_ante(ante=2.0,deck_size=5)",
         "kuhn_poker(players=3)", "first_sealed_auction(players=3,max_value=3)",
         "turn_based_simultaneous_game(game=matching_pennies_3p())"]


@pytest.fixture(scope="module", params=GAMES)
def arrays(request):
  return TreeArrays(GameTree.from_game(load(request.param)))


def assert_same_state(engine, reference):
  assert engine.iteration == reference.iteration
  np.testing.assert_array_equal(engine.regrets, reference.regrets)
  np.testing.assert_array_equal(engine.cumulative, reference.cumulative)
  np.testing.assert_array_equal(engine.sigma, reference.sigma)
  np.testing.assert_array_equal(engine.average(), reference.average())


@pytest.mark.parametrize("rule_name", sorted(RULES))
def test_kernel_equals_numpy_engine(arrays, rule_name):
  iterations = 8 if arrays.num_sequences > 1000 else 40
  rule = RULES[rule_name]
  batch, single, reference = CFREngine(arrays, rule), CFREngine(arrays, rule), \
      ReferenceEngine(arrays, rule)
  start = np.random.default_rng(0).standard_normal(arrays.num_sequences)  # Mixed signs.
  start[:arrays.num_players] = 0.0
  for e in (batch, single, reference):
    e.restore(3, start, np.zeros(arrays.num_sequences))
  batch.solve(iterations)
  for _ in range(iterations):
    single.iterate()
    reference.iterate()
  assert_same_state(batch, reference)
  assert_same_state(single, reference)


@pytest.mark.parametrize("player", [0, 1, None])
def test_hook_pass_equals_numpy_pass(arrays, player):
  # A hook returning the exact values with another average reach: the update is the numpy
  # engine's (regrets from the values, numerators from the reach).
  rule = RULES["cfr_plus"]
  engine, reference = CFREngine(arrays, rule), ReferenceEngine(arrays, rule)
  for e in (engine, reference):
    e.restore(5, np.abs(np.random.default_rng(1).standard_normal(arrays.num_sequences)),
              np.zeros(arrays.num_sequences))
  reach = np.random.default_rng(2).random(arrays.num_sequences)

  def hook(x, updated):
    assert updated == player
    np.testing.assert_array_equal(x, numpy_reference.realization(arrays, reference.levels,
                                                                 reference.sigma))
    return PassValues(tree_passes.terminal_values(arrays, x, arrays.weighted_utility, updated),
                      reach)

  engine.update(player, hook)
  reference_x = numpy_reference.realization(arrays, reference.levels, reference.sigma)
  c = numpy_reference.terminal_values(arrays, reference_x, arrays.weighted_utility, player)
  reference.regrets += numpy_reference.counterfactual_regrets(arrays, reference.levels, c,
                                                              reference.sigma)
  updated = arrays.seq_player == player if player is not None else arrays.seq_infoset >= 0
  updated[:arrays.num_players] = False
  reference.cumulative += 5.0 * (reach * updated)  # w_t = t for linear averaging.
  np.maximum(reference.regrets, 0.0, out=reference.regrets)
  reference._refresh()  # pylint: disable=protected-access
  assert_same_state(engine, reference)
  np.testing.assert_array_equal(engine.average_increment(player, reach), 5.0 * (reach * updated))


def test_passes_equal_numpy_passes(arrays):
  rng = np.random.default_rng(4)
  reference = ReferenceEngine(arrays, UpdateRule())
  sigma = np.ones(arrays.num_sequences)
  sigma[arrays.num_players:] = rm.regret_matching(
      rng.standard_normal(arrays.num_sequences - arrays.num_players),
      rm.Blocks.from_sizes(arrays.infoset_num_actions))
  x = tree_passes.realization(arrays, sigma)
  np.testing.assert_array_equal(x, numpy_reference.realization(arrays, reference.levels, sigma))
  for player in list(range(arrays.num_players)) + [None]:
    c = tree_passes.terminal_values(arrays, x, arrays.weighted_utility, player)
    np.testing.assert_array_equal(
        c, numpy_reference.terminal_values(arrays, x, arrays.weighted_utility, player))
    np.testing.assert_array_equal(
        tree_passes.counterfactual_regrets(arrays, c.copy(), sigma),
        numpy_reference.counterfactual_regrets(arrays, reference.levels, c.copy(), sigma))


def test_bad_calls():
  arrays = TreeArrays(GameTree.from_game(pyspiel.load_game("kuhn_poker")))
  with pytest.raises(ValueError, match="iterations must be >= 0"):
    CFREngine(arrays, UpdateRule()).solve(-1)
  with pytest.raises(ValueError, match="needs full-width passes"):
    CFREngine(arrays, RULES["dcfr"]).iterate_sampled(None, np.zeros((2, 2)))
  with pytest.raises(ValueError, match="multiple of 2 rows"):
    CFREngine(arrays, UpdateRule()).iterate_sampled(None, np.zeros((3, 2)))
  with pytest.raises(ValueError, match="contiguous float64"):
    tree_passes.best_response_backup(arrays, np.zeros(arrays.num_sequences, dtype=np.float32))
