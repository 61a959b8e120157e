"""Full-width extensive-form fictitious play on the flat tree: ReBeL's other full-game baseline.

Fictitious play in sequence form (XFP: Heinrich, Lanctot, Silver, "Fictitious self-play in
extensive-form games", ICML 2015, Algorithm 1 and Theorem 7): the average strategy's realization
plan X_t moves towards a best response, X_{t+1} = (1 - a_t) X_t + a_t Y_t with Y_t the
realization plan of each player's best response to the opponent's X_t and a_t = 1 / (t + 1),
from the uniform strategy; the behaviour strategy of X is X(I, a) / sum_b X(I, b). Both players
respond to the same average (simultaneous updates). These are the iterates of OpenSpiel's
``fictitious_play.XFPSolver`` (its best responses also take the first of tied actions), computed
with the flat tree's passes instead of a walk of the states; ``ReBeL``'s Liar's Dice table
(Brown, Bakhtin, Lerer, Gong, NeurIPS 2020, arXiv 2007.13544) runs it for 1,024 iterations
beside CFR.
"""

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.cfr import regret_matching as rm
from algorithms.cfr import tree_passes
from algorithms.rebel.leaves.solvers import best_response
from algorithms.rebel.leaves.solvers import uniform_policy
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays


class FictitiousPlaySolver:
  """XFP with OpenSpiel's ``XFPSolver`` interface: ``iteration()`` and ``average_policy()``.

  Args:
    game: a two-player game the flat tree can walk.
  """

  def __init__(self, game: pyspiel.Game):
    if game.num_players() != 2:
      raise ValueError(f"fictitious play here needs 2 players, got {game.num_players()}")
    self._arrays = TreeArrays(GameTree.from_game(game))
    self._policy = uniform_policy(self._arrays)
    self._plan = tree_passes.realization(self._arrays, self._policy)
    self._iterations = 0

  def _best_responses(self) -> np.ndarray:
    """Both players' pure best responses to the current average, as one policy (G,)."""
    a = self._arrays
    out = self._policy.copy()
    for player in (0, 1):  # Each against the average, the first of tied actions.
      mine = a.player_mask[player] > 0
      out[mine] = best_response(a, a.weighted_utility, self._policy, player)[mine]
    return out

  def iteration(self) -> None:
    """X_{t+1} = (1 - a_t) X_t + a_t Y_t, a_t = 1 / (t + 1) (module docstring)."""
    self._iterations += 1
    response = tree_passes.realization(self._arrays, self._best_responses())
    alpha = 1.0 / (self._iterations + 1)
    self._plan = (1.0 - alpha) * self._plan + alpha * response
    self._policy[2:] = rm.normalize_average(self._plan[2:], self._arrays.blocks)

  def average_policy(self) -> policy_lib.TabularPolicy:
    """The average strategy as OpenSpiel's ``TabularPolicy`` of the game."""
    tabular = self._arrays.tree.tabular_policy()
    self._arrays.to_tabular(self._policy, tabular.action_probability_array)
    return tabular
