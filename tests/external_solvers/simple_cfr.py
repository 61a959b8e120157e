"""A small vanilla CFR for two-player zero-sum games, as a newcomer might write one, and the same
solver with a payoff sign error: the worked example of a bug the reference check catches.

CFR (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
information", NeurIPS 2007): one recursive walk per iteration computes, at every information
state I of the acting player p, the counterfactual value of each action,
v_p(I, a) = sum_{h in I} pi_{-p}(h) u_p(h a), accumulates the regrets
R(I, a) += v_p(I, a) - sum_b sigma(I, b) v_p(I, b) and the average numerators
S(I, a) += pi_p(h) sigma(I, a), and plays regret matching, sigma(I, a) proportional to
max(R(I, a), 0). The walk returns u_0, player 0's payoff; player 1's is -u_0.

``SignErrorCFR`` negates player 1's payoff once more: its walk already holds u_0 and it takes
-(-u_0) as player 1's payoff, so player 1 minimises its own regret against the wrong payoff and
learns to give player 0 its best result. Nothing in its own output shows it: the regrets shrink
and the average policy settles. The reference check fails it on every two-player game.
"""

from typing import Dict, List, Tuple

import numpy as np
import pyspiel


class SimpleCFR:
  """Vanilla CFR with alternating updates (player 0's walk, then player 1's, as OpenSpiel's
  ``CFRSolver``), OpenSpiel's Python CFR interface:
  ``evaluate_and_update_policy()`` runs one iteration, ``average_policy()`` returns
  {information-state string: probabilities over the game's actions}."""

  PLAYER_1_SIGN = -1.0  # u_1 = -u_0 in a two-player zero-sum game.

  def _regret_weight(self, reach: np.ndarray, player: int) -> float:
    """The counterfactual reach of a regret update: the opponent's reach pi_{-p}(h)."""
    return reach[1 - player]

  def _average_weight(self, reach: np.ndarray, player: int) -> float:
    """The weight of the average's numerator: the player's own reach pi_p(h)."""
    return reach[player]

  def _chance(self, state: pyspiel.State, reach: np.ndarray, updating: int) -> float:
    """u_0 at a chance node: the expectation over every outcome (full width)."""
    return sum(p * self._walk(state.child(a), reach, updating)
               for a, p in state.chance_outcomes())

  def __init__(self, game: pyspiel.Game):
    if game.num_players() != 2 or game.get_type().utility != pyspiel.GameType.Utility.ZERO_SUM:
      raise ValueError(f"SimpleCFR solves two-player zero-sum games; {game} has "
                       f"{game.num_players()} players")
    self._game = game
    self._actions = game.num_distinct_actions()
    self._regrets: Dict[str, np.ndarray] = {}
    self._numerators: Dict[str, np.ndarray] = {}
    self._pending: List[Tuple[str, List[int], np.ndarray]] = []

  def _strategy(self, key: str, legal: List[int]) -> np.ndarray:
    """Regret matching over the legal actions (uniform while no regret is positive)."""
    positive = np.maximum(self._regrets.setdefault(key, np.zeros(self._actions))[legal], 0.0)
    total = positive.sum()
    return positive / total if total > 0 else np.full(len(legal), 1.0 / len(legal))

  def _walk(self, state: pyspiel.State, reach: np.ndarray, updating: int) -> float:
    """u_0 of the subtree under the current strategies; updates the regrets and numerators of
    player ``updating``."""
    if state.is_terminal():
      return state.returns()[0]
    if state.is_chance_node():
      return self._chance(state, reach, updating)
    player = state.current_player()
    key = state.information_state_string(player)
    legal = state.legal_actions()
    strategy = self._strategy(key, legal)
    values = np.zeros(len(legal))
    for i, action in enumerate(legal):
      child_reach = reach.copy()
      child_reach[player] *= strategy[i]
      values[i] = self._walk(state.child(action), child_reach, updating)
    value = float(strategy @ values)
    if player != updating:
      return value
    sign = 1.0 if player == 0 else self.PLAYER_1_SIGN
    # Applied after the walk: the strategies stay those of the iteration's start throughout it.
    self._pending.append((key, legal,
                          self._regret_weight(reach, player) * sign * (values - value)))
    self._numerators.setdefault(key, np.zeros(self._actions))[legal] += (
        self._average_weight(reach, player) * strategy)
    return value

  def evaluate_and_update_policy(self) -> None:
    for player in (0, 1):
      self._pending = []
      self._walk(self._game.new_initial_state(), np.ones(2), player)
      for key, legal, regret in self._pending:
        self._regrets[key][legal] += regret

  def average_policy(self) -> Dict[str, List[float]]:
    """S(I, a) / sum_b S(I, b) at every information state reached so far; OpenSpiel's states
    that were never reached are absent, so the check reads them as missing (one iteration
    reaches them all in a full walk)."""
    return {key: list(s / s.sum()) if s.sum() > 0 else list(np.full(self._actions,
                                                                    1.0 / self._actions))
            for key, s in self._numerators.items()}


class SignErrorCFR(SimpleCFR):
  """``SimpleCFR`` with the sign error (see the module docstring): player 1's payoff negated
  twice."""

  PLAYER_1_SIGN = 1.0  # Bug: -(-u_0), player 0's payoff taken as player 1's.
