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

Sampled draws (``mixed_plans``, for ``estimate``). The same walk carries R replicates at once:
at the searches of the first ``exact_levels`` levels (level = the searches above it; the root's
is 0) every replicate follows every draw with its probability, as above; at a deeper search
each replicate follows one draw of its own, t ~ P(t), independent of every other draw. A
replicate's plan X~_r is then, by the tower property (each sampled draw has the law of the
agent's draw, so E[x^{t}] over it is the exact mixture of that search), an unbiased estimate of
X: E[X~_r] = X. A search reached by several replicates together (every replicate at the
enumerated levels, those that drew alike below) runs once for all of them: the searches are
deterministic functions of their public state and belief, so sharing them leaves the
replicates independent.
"""

import dataclasses
from typing import Callable, Optional, Tuple

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


def search_count(agent: ReBeLAgent, game: Optional[SearchGame] = None,
                 plays: Optional[Callable[[SearchGame], int]] = None) -> int:
  """The number of searches of the enumeration (an upper bound: paths of zero own reach at a
  leaf are not followed), computed from the public tree without running any search.

  ``plays(game)`` is the number of draws followed at each search: ``agent.num_plays`` (every
  draw, the enumeration) by default; ``lambda game: 1`` counts the searches of one draw path.
  """
  game = game if game is not None else agent.cuts.root()
  plays = plays if plays is not None else agent.num_plays
  below = sum(search_count(agent, agent.cuts.at(leaf.leaf, game.depth + agent.lookahead), plays)
              for leaf in game.leaves)
  return 1 + plays(game) * below


def behaviour_strategy(agent: ReBeLAgent, max_searches: Optional[int] = None) -> Behaviour:
  """Enumerates every draw of the agent and mixes its play exactly (module docstring).

  Raises:
    ValueError: if ``search_count(agent)`` exceeds ``max_searches``.
  """
  count = search_count(agent)
  if max_searches is not None and count > max_searches:
    raise ValueError(f"max_searches={max_searches} is below the {count} searches that "
                     f"enumerating the draws needs (T={agent.iterations}, lookahead "
                     f"{agent.lookahead}); use estimate.estimate_exploitability or raise "
                     f"max_searches")
  plans, searches = mixed_plans(agent)
  return Behaviour(policy=plan_to_policy(agent, plans[0]), plan=plans[0], searches=searches)


def mixed_plans(agent: ReBeLAgent, replicates: int = 1, exact_levels: Optional[int] = None,
                rng: Optional[np.random.Generator] = None) -> Tuple[np.ndarray, int]:
  """Realization plans of R replicates, exact over the draws of the first ``exact_levels``
  levels of searches (all levels if None), one sampled draw per replicate below (module
  docstring).

  Returns:
    (plans, searches): float array (R, G) in the full game's layout, each row X~_r (X itself
    where every level is exact), and the number of searches run.

  Raises:
    ValueError: if draws are sampled (``exact_levels`` not None) without a generator ``rng``.
  """
  if exact_levels is not None and rng is None:
    raise ValueError("mixed_plans samples draws below exact_levels: pass rng, a numpy Generator")
  full = agent.arrays
  plans = np.zeros((replicates, full.num_sequences))
  plans[:, :2] = 1.0
  game, belief = agent.root()
  everyone = np.arange(replicates)
  stack = [(game, belief, np.ones(full.num_sequences), 0, everyone, np.ones(replicates))]
  searches = 0
  while stack:
    game, belief, prefix, level, members, weights = stack.pop()
    searches += 1
    trunk = game.trunk
    plays = agent.plays(game, belief)
    if exact_levels is None or level < exact_levels:  # Every draw, with its probability.
      branches = [(play, members, weights * play.probability) for play in plays]
    else:  # One draw t ~ P(t) per replicate; each follows its own with weight 1.
      drawn = rng.choice(len(plays), size=len(members), p=[p.probability for p in plays])
      branches = [(plays[k], members[drawn == k], weights[drawn == k])
                  for k in np.unique(drawn)]
    for play, who, weight in branches:
      x = tree_passes.realization(game.arrays, play.policy)
      reach = prefix.copy()  # X^D on the full layout: prefix, and the trunk's plans after it.
      reach[game.full_seq[trunk]] = prefix[game.anchor[trunk]] * x[trunk]
      plans[np.ix_(who, game.full_seq[trunk])] += weight[:, None] * reach[game.full_seq[trunk]]
      for leaf in game.leaves:
        if not np.any(reach[leaf.leaf.root_seq] > 0):
          continue
        next_game, next_belief = agent.next_search(game, leaf, belief, play)
        stack.append((next_game, next_belief, reach, level + 1, who, weight))
  return plans, searches


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
