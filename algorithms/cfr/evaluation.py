"""Exact NashConv and exploitability of a policy of any game, on the engine that fits it.

NashConv(sigma) = sum_i (BR_i - v_i), BR_i player i's best-response value against the others'
policies and v_i its value under sigma, is zero exactly at a Nash equilibrium (Lanctot et al.,
"A unified game-theoretic approach to multiagent reinforcement learning", NeurIPS 2017, the
definition of OpenSpiel's ``exploitability.nash_conv``); the exploitability
(sum_i BR_i - sum_i u_i) / N is defined where the utilities sum to a constant. Both come from one
of two evaluators with one interface (``policy_values``, ``best_response_values``,
``nash_conv``, ``exploitability``, each of a policy):

* ``tree_exploitability.TreeEvaluator`` on the flat game tree (any game the tree walk supports);
* ``RangeEvaluator`` by range vectors on a card tree, a ``CardTree`` or a ``CardTree3``
  (three-player Kuhn poker), by the same passes (``range_engine.response_values``; Johanson,
  Waugh, Bowling, Zinkevich, "Accelerating best response calculation in large extensive games",
  IJCAI 2011: one pass per player over the betting tree with a vector over the cards), in
  O(N |tree|) for N cards.

``evaluator(game)`` picks the one the solvers' ``engine="auto"`` picks (``engine_choice``), and
``nash_conv(game, policy)`` / ``exploitability(game, policy)`` are the entry points.
"""

import functools
from typing import Optional, Union

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.cfr import range_engine
from algorithms.cfr.engine_choice import range_card_tree
from algorithms.cfr.range_engine import CardPolicy
from algorithms.cfr.range_engine import RangeLayout
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.tree.card_tree3 import AnyCardTree
from algorithms.tree.game_tree import GameTree

# What an evaluator reads: an OpenSpiel ``TabularPolicy``, its array, a flat array in the
# evaluator's layout, or on range vectors also a ``CardPolicy``.
Policy = Union[policy_lib.TabularPolicy, CardPolicy, np.ndarray]


class RangeEvaluator:
  """Evaluates policies of a game with a card tree (a two-player ``CardTree`` or a three-player
  ``CardTree3``) exactly, by range vectors.

  Policies are ``CardPolicy`` objects, ``TabularPolicy`` objects of the game (mapped through a
  ``RangeLayout``, built on first use: its representative states take O(N^2) memory) or flat
  arrays (D N A,) in the range engine's layout.
  """

  def __init__(self, card_tree: AnyCardTree):
    self.card_tree = card_tree
    self._tables = range_engine.card_tables(card_tree)

  @functools.cached_property
  def layout(self) -> RangeLayout:
    """The map from ``TabularPolicy`` rows, built on first use."""
    return RangeLayout(self.card_tree)

  def flat_policy(self, policy: Policy) -> np.ndarray:
    """The policy as a flat array (D N A,)."""
    if isinstance(policy, CardPolicy):
      return policy.probabilities.reshape(-1)
    if isinstance(policy, policy_lib.TabularPolicy):
      return self.layout.from_tabular(policy.action_probability_array)
    return np.asarray(policy, dtype=np.float64)

  def values(self, policy: Policy):
    """(BR_i (n,), u_i (n,)), n players: best-response values and expected payoffs
    (``range_engine.response_values``)."""
    return range_engine.response_values(self._tables, self.flat_policy(policy))

  def policy_values(self, policy: Policy) -> np.ndarray:
    """Expected payoff of each player under the profile: u_i (n,)."""
    return self.values(policy)[1]

  def best_response_values(self, policy: Policy) -> np.ndarray:
    """Each player's best-response value against the others' policies: BR_i (n,)."""
    return self.values(policy)[0]

  def nash_conv(self, policy: Policy) -> float:
    """sum_i (BR_i - u_i)."""
    best, expected = self.values(policy)
    return float(np.sum(best - expected))

  def exploitability(self, policy: Policy) -> float:
    """NashConv / n (n players, zero-sum), as OpenSpiel's exploitability."""
    return self.nash_conv(policy) / self.card_tree.game.num_players()


def evaluator(game: pyspiel.Game, tree: Optional[GameTree] = None
              ) -> Union[TreeEvaluator, RangeEvaluator]:
  """The evaluator of ``game``: by range vectors where ``engine="auto"`` takes them (a card tree
  of at least ``engine_choice.AUTO_RANGE_MIN_CARDS`` cards), else on the game tree (``tree`` if
  given: it is then used whatever the game)."""
  card_tree = range_card_tree(game, "auto", tree)
  if card_tree is not None:
    return RangeEvaluator(card_tree)
  return TreeEvaluator(tree if tree is not None else game)


def _evaluator_of(game: pyspiel.Game, policy: Policy) -> Union[TreeEvaluator, RangeEvaluator]:
  """``evaluator(game)``, or range vectors on any deck for a ``CardPolicy`` (only they read it)."""
  if isinstance(policy, CardPolicy):
    return RangeEvaluator(range_card_tree(game, "range"))
  return evaluator(game)


def nash_conv(game: pyspiel.Game, policy: Policy) -> float:
  """Exact NashConv sum_i (BR_i - v_i) of ``policy`` in ``game`` (module docstring)."""
  return _evaluator_of(game, policy).nash_conv(policy)


def exploitability(game: pyspiel.Game, policy: Policy) -> float:
  """Exact exploitability (sum_i BR_i - sum_i u_i) / N of ``policy`` in a zero- or constant-sum
  ``game``.

  Raises:
    ValueError: for a general-sum game (use ``nash_conv``).
  """
  return _evaluator_of(game, policy).exploitability(policy)
