"""Tests of the exact one-player leaves of ``ValueFunctionLeafSolver``
(algorithms/rebel/leaves/leaf_values.py).

Reference: the PBS value at a leaf where one player acts is that player's best response, found
here by enumerating every pure plan of the acting player (independent of the solvers' sequence-
form best response); and the value function itself where both players act.
"""

import itertools

import numpy as np
import pyspiel
import pytest

from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)


def _random_model(game, depth) -> PBSValueFunction:
  _, domain = cut_of(game, depth)
  rng = np.random.default_rng(3)
  shapes = {"w0": (8, domain.input_size), "b0": (8,), "g0": (8,), "n0": (8,),
            "w_out": (domain.num_deals, 8), "b_out": (domain.num_deals,)}
  return PBSValueFunction(domain, (8,), {k: rng.normal(size=s) for k, s in shapes.items()})


def _enumerated_value(leaf, belief) -> float:
  """Player 0's PBS value when the one acting player best-responds: the best of its pure plans
  (one action per information set), each plan's value the belief-weighted payoff sum."""
  (player,) = leaf.acting_players
  arrays = leaf.arrays
  sets = [s for s in range(arrays.num_infosets) if arrays.infoset_player[s] == player]
  sign = 1.0 if player == 0 else -1.0
  best = -np.inf
  for choice in itertools.product(*[range(arrays.infoset_num_actions[s]) for s in sets]):
    policy = np.ones(arrays.num_sequences)
    for s, a in zip(sets, choice):
      seqs = np.flatnonzero(arrays.seq_infoset[2:] == s) + 2
      policy[seqs] = 0.0
      policy[seqs[a]] = 1.0
    best = max(best, sign * float(belief @ leaf.root_values(policy)))
  return sign * best


@pytest.mark.parametrize("game_string,depth", [("kuhn_poker", 1), ("kuhn_poker", 2),
                                               ("kuhn_poker_ante(ante=2.0,deck_size=5)", 1)])
def test_one_player_leaves_are_exact_and_two_player_leaves_learned(game_string, depth):
  game = pyspiel.load_game(game_string)
  tree, _ = cut_of(game, depth)
  model = _random_model(game, depth)
  exact, network = ValueFunctionLeafSolver(model), ValueFunctionLeafSolver(
      model, one_player_exact=False)
  rng = np.random.default_rng(0)
  one_player = 0
  for leaf in tree.leaves:
    for _ in range(5):
      belief = rng.dirichlet(np.ones(leaf.num_roots))
      learned = model.root_values(leaf, belief)
      np.testing.assert_array_equal(network(leaf, belief).root_values, learned)
      if len(leaf.acting_players) == 2:
        np.testing.assert_array_equal(exact(leaf, belief).root_values, learned)
      else:
        one_player += 1
        assert exact(leaf, belief).value(belief) == pytest.approx(
            _enumerated_value(leaf, belief), abs=1e-12)
        assert np.abs(exact(leaf, belief).root_values - learned).max() > 1e-3
  assert one_player > 0
