"""The exact behaviour strategy of ReBeL's agent: the mixture over all its draws.

The agent (``agent.ReBeLAgent``) draws an iteration at every search, so it is a mixed strategy:
a probability distribution over the deterministic agents that fix every draw in advance (one
draw for every search it could run, i.e. for every public state and earlier draws). Each
seat's own draws are independent of the cards, so by Kuhn's theorem (perfect recall; Kuhn,
"Extensive games and the problem of information", 1953) the mixture is realization-equivalent to
the behaviour strategy whose realization plan is the mixture's: for each sequence sigma of
player i,

    X_i(sigma) = sum over draw paths D of P(D) x_i^D(sigma),
    behaviour(I, a) = X_i(I, a) / X_i(parent(I)),

with x_i^D the realization plan of the deterministic agent D. A search at public state s with
belief beta and draw t contributes, on its trunk, x_i^D(sigma) = X_prefix(anchor(sigma)) x^t(sigma),
the own reach before s times the plan of the drawn policy from s; at each leaf z of the search
the next search starts from beta_z(t) with that prefix. ``behaviour_strategy`` enumerates the
draw paths depth first, each weighted by the product of its draws' exact probabilities, and
adds P(D) x_i^D into the full game's layout; a path whose own reaches are 0 for both players at
a leaf is not followed (it adds nothing). Both seats use the same enumeration: a seat's
behaviour depends only on its own draws, whose law is the same for both seats.

Cost. A search with n plays (``ReBeLAgent.num_plays``: T, or 1 for the final average and for a
leafless search whose mixture is its average) starts n searches at each of its leaves, so the
number of searches is ``search_count(agent)`` = 1 + n sum_z count(z), at most T^m for a chain of
m searches with leaves (e.g. ``kuhn_poker`` cut at depth 1: 1 + 2T + T^2). ``max_searches``
refuses an enumeration above a budget before any search is run.
"""

import dataclasses
from typing import Optional

import numpy as np
from open_spiel.python import policy as policy_lib

from algorithms.cfr import regret_matching as rm
from algorithms.cfr import tree_passes
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.search_game import SearchGame


@dataclasses.dataclass(frozen=True)
class Behaviour:
  """The agent's exact behaviour strategy.

  Attributes:
    policy: float array (G,) in the full game's ``TreeArrays`` layout (uniform where the agent's
      own reach is 0 under every draw).
    plan: float array (G,), the mixture's realization plan X (both players).
    searches: the number of searches run.
  """

  policy: np.ndarray
  plan: np.ndarray
  searches: int


def search_count(agent: ReBeLAgent, game: Optional[SearchGame] = None) -> int:
  """The number of searches of the enumeration (an upper bound: paths of zero own reach at a
  leaf are not followed), computed from the public tree without running any search."""
  game = game if game is not None else agent.cuts.root()
  below = sum(search_count(agent, agent.cuts.at(leaf.leaf, game.depth + agent.lookahead))
              for leaf in game.leaves)
  return 1 + agent.num_plays(game) * below


def behaviour_strategy(agent: ReBeLAgent, max_searches: Optional[int] = None) -> Behaviour:
  """Enumerates every draw of the agent and mixes its play exactly (module docstring).

  Raises:
    ValueError: if ``search_count(agent)`` exceeds ``max_searches``.
  """
  count = search_count(agent)
  if max_searches is not None and count > max_searches:
    raise ValueError(f"max_searches={max_searches} is below the {count} searches that "
                     f"enumerating the draws needs (T={agent.iterations}, lookahead "
                     f"{agent.lookahead}); use agent.monte_carlo or raise max_searches")
  full = agent.arrays
  plan = np.zeros(full.num_sequences)
  plan[:2] = 1.0
  game, belief = agent.root()
  stack = [(game, belief, np.ones(full.num_sequences), 1.0)]
  searches = 0
  while stack:
    game, belief, prefix, probability = stack.pop()
    searches += 1
    trunk = game.trunk
    for play in agent.plays(game, belief):
      x = tree_passes.realization(game.arrays, play.policy)
      reach = prefix.copy()  # X^D on the full layout: prefix, and the trunk's plans after it.
      reach[game.full_seq[trunk]] = prefix[game.anchor[trunk]] * x[trunk]
      weight = probability * play.probability
      plan[game.full_seq[trunk]] += weight * reach[game.full_seq[trunk]]
      for leaf in game.leaves:
        if not np.any(reach[leaf.leaf.root_seq] > 0):
          continue
        next_game, next_belief = agent.next_search(game, leaf, belief, play)
        stack.append((next_game, next_belief, reach, weight))
  return Behaviour(policy=plan_to_policy(agent, plan), plan=plan, searches=searches)


def plan_to_policy(agent: ReBeLAgent, plan: np.ndarray) -> np.ndarray:
  """behaviour(I, a) = X(I, a) / sum_b X(I, b), uniform where the sum is 0 (G,)."""
  full = agent.arrays
  policy = np.ones(full.num_sequences)
  policy[2:] = rm.normalize_average(plan[2:], full.blocks)
  return policy


def tabular_policy(agent: ReBeLAgent, policy: np.ndarray) -> policy_lib.TabularPolicy:
  """A behaviour strategy (G,) as OpenSpiel's ``TabularPolicy`` of the game (for
  ``exploitability.exploitability`` and ``best_response.BestResponsePolicy``)."""
  tabular = agent.arrays.tree.tabular_policy()
  agent.arrays.to_tabular(policy, tabular.action_probability_array)
  return tabular
