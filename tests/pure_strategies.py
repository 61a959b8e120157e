"""Exact best-response values by brute force over pure strategies, for tests.

A best response to a fixed opponent policy is attained by a pure strategy (the expected value is
linear in the responder's mixed strategy, and a linear function on a product of simplices is
maximised at a vertex). For a game whose responder has k information sets with two actions
each, there are 2 ** k pure strategies: 64 for three-card Kuhn poker. Each is evaluated with
OpenSpiel's ``expected_game_score.policy_value``, so the result depends on no best-response
code at all: an independent check of ``best_response.BestResponsePolicy``, ``pyspiel``'s
best responses and every exploitability they feed.
"""

import itertools
from typing import List

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
import pyspiel

MAX_PURE_STRATEGIES = 4096


def _pure_strategies(game: pyspiel.Game, player: int) -> List[policy_lib.TabularPolicy]:
  """Every pure strategy of ``player`` as a TabularPolicy (other players' rows uniform)."""
  table = policy_lib.TabularPolicy(game)
  rows = table.states_per_player[player]
  choices = [table.legal_actions_mask[table.state_lookup[key]].nonzero()[0] for key in rows]
  count = 1
  for c in choices:
    count *= len(c)
  if count > MAX_PURE_STRATEGIES:
    raise ValueError(f"{count} pure strategies is too many to enumerate")
  out = []
  for combination in itertools.product(*choices):
    pure = table.__copy__()
    for key, action in zip(rows, combination):
      row = pure.state_lookup[key]
      pure.action_probability_array[row] = 0.0
      pure.action_probability_array[row, action] = 1.0
    out.append(pure)
  return out


def best_response_value(game: pyspiel.Game, opponent: policy_lib.Policy, player: int) -> float:
  """The max over ``player``'s pure strategies of its expected return against ``opponent``."""
  root = game.new_initial_state()
  best = -float("inf")
  for pure in _pure_strategies(game, player):
    policies = [opponent, opponent]
    policies[player] = pure
    best = max(best, float(expected_game_score.policy_value(root, policies)[player]))
  return best


def exploitability(game: pyspiel.Game, policy: policy_lib.Policy) -> float:
  """(BR_0 + BR_1) / 2 for a two-player zero-sum game: OpenSpiel's definition (NashConv / 2)."""
  return (best_response_value(game, policy, 0) + best_response_value(game, policy, 1)) / 2
