"""Tests of ReBeL self-play (algorithms/rebel/learning/self_play.py); need PyTorch (the 'learn'
extra).

References: CFR-AVG's own leaf PBS (CFRAvgSolver.last_leaf_beliefs), the target leaf solver at
the recorded beliefs, and Bayes' rule for the uniform trunk policy.
"""

import numpy as np
import pyspiel
import pytest

from algorithms import CFRAvgSolver
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import CFRLeafSolver
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

pytest.importorskip("torch", reason="PyTorch not installed (the 'learn' extra: "
                    "pip install -e '.[learn]')")
from algorithms.rebel.learning.self_play import SelfPlay  # pylint: disable=wrong-import-position
from algorithms.rebel.learning.self_play import SelfPlayOptions  # pylint: disable=wrong-import-position
from algorithms.rebel.learning.training import TrainingOptions  # pylint: disable=wrong-import-position

SMALL = SelfPlayOptions(search_iterations=8, episodes_per_round=6, train_steps=5,
                        target_iterations=10, seed=3)
NET = TrainingOptions(hidden=(16, 16), batch_size=8)


def test_examples_are_the_search_targets_at_cfr_avg_leaf_beliefs():
  game = pyspiel.load_game("kuhn_poker")
  play = SelfPlay(game, 1, SMALL, NET)
  model = play.model()
  new = play.run_round()
  assert len(new) == SMALL.episodes_per_round  # Depth 1: every path reaches a leaf (p or b).
  # Every recorded belief is CFR-AVG's leaf PBS at some iteration t <= T of the root search with
  # the model's values (the random-iteration rule), and its target is the target solver's values.
  search = CFRAvgSolver(game, depth_limit=1, leaf_solver=ValueFunctionLeafSolver(model))
  seen = {leaf.public_state: [] for leaf in play.public_tree.leaves}
  for _ in range(SMALL.search_iterations):
    search.evaluate_and_update_policy()
    for state, belief in search.last_leaf_beliefs().items():
      seen[state].append(belief)
  target = CFRLeafSolver(SMALL.target_iterations)
  for index, belief, values in zip(new.leaf_index, new.beliefs, new.values):
    leaf = play.public_tree.leaves[index]
    roots = belief[leaf.deals]
    assert min(np.abs(b - roots).max() for b in seen[leaf.public_state]) < 1e-12
    np.testing.assert_allclose(values[leaf.deals], target(leaf, roots).root_values, atol=1e-12)


def test_first_iteration_belief_is_the_uniform_posterior():
  # With T = 1 the trunk average is uniform: P(bet | card) = 1/2 for every card, so the leaf PBS
  # is the uniform deal (Bayes' rule), whatever the explored action.
  play = SelfPlay(pyspiel.load_game("kuhn_poker"), 1,
                  SelfPlayOptions(search_iterations=1, episodes_per_round=4, train_steps=1,
                                  target_iterations=5, exploration=1.0), NET)
  new = play.run_round()
  np.testing.assert_allclose(new.beliefs, 1 / 6)


def test_self_play_is_reproducible():
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0)")
  runs = []
  for _ in range(2):
    play = SelfPlay(game, 1, SMALL, NET)
    play.run_round()
    play.run_round()
    runs.append(play)
  np.testing.assert_array_equal(runs[0].buffer.beliefs, runs[1].buffer.beliefs)
  for name, value in runs[0].model().params.items():
    np.testing.assert_array_equal(value, runs[1].model().params[name])


def test_bad_exploration():
  with pytest.raises(ValueError, match="exploration must be in \\[0, 1\\]"):
    SelfPlay(pyspiel.load_game("kuhn_poker"), 1, SelfPlayOptions(exploration=1.5), NET)
