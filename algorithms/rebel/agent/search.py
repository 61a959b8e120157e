"""One search of ReBeL's agent: CFR-AVG (or CFR-D) from a public belief state, every iterate kept.

The search is ``CFRAvgSolver``'s six steps (``algorithms/rebel/cfr_avg.py``; Brown, Bakhtin,
Lerer, Gong, ReBeL, NeurIPS 2020, arXiv 2007.13544, Appendix I and Theorem 5 for CFR-AVG; Burch,
Johanson, Bowling, AAAI 2014 for CFR-D) on a ``SearchGame``: the subgame below a public state s
whose roots h carry the belief beta(h) instead of chance's probability. Each pass of iteration t
updating player(s) P:

1. pi^t is regret matching of the trunk's cumulative regrets (the engine's current policy);
2. the average's numerators include this iteration's w_t x_P^t (w_t = t^gamma: 1 or t);
3. every leaf z of the search gets the belief
   beta_z(g) proportional to beta(h) pi_c(g | h) r_0(g) r_1(g) for each leaf root g below the
   search root h, r the trunk reach of the average (CFR-AVG) or of pi^t (CFR-D, trembling:
   r + e, e = ``tremble``, by default ``leaf_step.TREMBLE``) (``leaf_belief``);
4. the leaf solver gives each player's value u_i(g) from every leaf root (player 0's and
   u_1 = c - u_0, c the utility sum, for an exact solver; ``leaf_step.player_values``);
5. player i's counterfactual leaf value at its trunk sequence s is
   v_i(s) = sum_{g: seq_i(g) = s} beta(h) pi_c(g | h) pi^t_{-i}(g) u_i(g), with the opponent's
   CURRENT trunk reach; at a leaf root of zero belief the
   value is that of the leaf solution completed by best responses
   (``leaves.solvers.complete_with_best_response``), as in ``CFRAvgSolver``;
6. the engine updates the trunk's regrets and average (``CFREngine.update``).

At the game root (one root, beta = (1,)) this is ``CFRAvgSolver`` iteration for iteration (tested).
``run_search`` keeps what the agent needs from every iteration t (``SearchRecord``): the iterate
pi^t (player i's part as it was in i's pass: with alternating updates, the policies whose plans
enter the average at t), the average pibar^t after the iteration, and each player's expected value
from every root under pi^t with that iteration's leaf values (Algorithm 1's ComputeEV(G, pi^t)):

    u_i^t(h) = sum_{trunk z below h} u_i(z) pi_c(z | h) x^t_0(z) x^t_1(z)
             + sum_{leaf roots g below h} pi_c(g | h) x^t_0(g) x^t_1(g) u_i^t(g),

taken in player 0's pass (x^t = the plans of pi^t); ``SearchRecord.root_values`` is their mean
over the iterations, Algorithm 1's v(beta_r), the value target of ReBeL's self-play.

A belief that vanishes at a leaf (``leaf_belief``): the mass beta(h) pi_c r_0 r_1 is 0 on every
leaf root when a player's assumed reach is 0 on all of them. The paper's PBS is then undefined
(it assumes the policies are common knowledge); here that player's reach is taken as 1 on every
root (its private state is believed to follow the prior), and if the mass is still 0 the belief
is chance's prior. Current-policy reaches are trembled first (``leaf_step``), so with CFR-D and
with a passed-on iterate this happens only where a player's reach vanishes above the search.
"""

import copy
import dataclasses
from typing import Optional

import numpy as np

from algorithms.cfr import regret_matching as rm
from algorithms.cfr import tree_passes
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import PassValues
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.rebel import leaf_step
from algorithms.rebel.agent.search_game import SearchGame
from algorithms.rebel.agent.search_game import SearchLeaf
from algorithms.rebel.leaf_step import LEAF_BELIEFS
from algorithms.rebel.leaf_step import check_choice
from algorithms.rebel.leaves.solvers import LeafSolver


@dataclasses.dataclass(frozen=True)
class SearchRecord:
  """The iterations of one search.

  Attributes:
    game: the ``SearchGame``.
    belief: beta over its roots (R,).
    iterates: float array (T, G_s), pi^t per iteration (trunk entries; uniform below the leaves).
    averages: float array (T, G_s), pibar^t after iteration t.
    weights: float array (T,), the averaging weights w_t.
    iteration_values: float array (T, R, 2), u_i^t(h) per iteration, root and player i (module
      docstring; u_1 = c - u_0 with an exact leaf solver).
  """

  game: SearchGame
  belief: np.ndarray
  iterates: np.ndarray
  averages: np.ndarray
  weights: np.ndarray
  iteration_values: np.ndarray

  @property
  def root_values(self) -> np.ndarray:
    """Algorithm 1's v(beta_r): the mean over the iterations of u_i^t(h) (R, 2)."""
    return self.iteration_values.mean(axis=0)


def leaf_belief(leaf: SearchLeaf, belief: np.ndarray, reach: np.ndarray,
                tremble: float = 0.0) -> np.ndarray:
  """The belief over a search leaf's roots under trunk reaches ``reach`` (G_s,) (module doc).

  beta_z(g) proportional to beta(h) pi_c(g | h) (r_0(g) + e) (r_1(g) + e), e = ``tremble``
  (``leaf_step.belief_from_reaches``: a player whose reach is 0 on every root counted with reach
  1, chance's prior if the mass is still 0).
  """
  return leaf_step.belief_from_reaches(belief[leaf.search_root] * leaf.chance,
                                       reach[leaf.local_seq], leaf.leaf.root_chance, tremble)


def search_arrays(game: SearchGame, belief: np.ndarray):
  """The search game's ``TreeArrays`` with the terminal weights of belief beta (a shallow copy)."""
  arrays = copy.copy(game.arrays)
  arrays.weighted_utility = game.weighted_utility(belief)
  return arrays


def run_search(game: SearchGame, belief: np.ndarray, iterations: int, leaf_solver: LeafSolver,
               rule: UpdateRule, leaf_beliefs: str = "average",
               tremble: float = leaf_step.TREMBLE) -> SearchRecord:
  """``iterations`` of CFR-AVG (or CFR-D) on ``game`` at ``belief`` (module docstring); CFR-D's
  leaf beliefs tremble the current reaches by ``tremble``.

  Raises:
    ValueError: for ``leaf_beliefs`` other than "average" or "current", or a tremble outside
      [0, 1).
  """
  check_choice("leaf_beliefs", leaf_beliefs, LEAF_BELIEFS)
  belief = np.asarray(belief, dtype=np.float64)
  tremble = leaf_step.tremble_of(leaf_beliefs, leaf_step.check_tremble(tremble))
  arrays = search_arrays(game, belief)
  engine = CFREngine(arrays, rule)
  iterates = np.ones((iterations, arrays.num_sequences))
  averages = np.ones((iterations, arrays.num_sequences))
  iteration_values = np.zeros((iterations, game.num_roots, 2))
  trunk_values = (arrays.tree.utility[game.trunk_terminals] *
                  game.chance[game.trunk_terminals][:, None])
  trunk_roots = game.terminal_root[game.trunk_terminals]
  trunk_seq = arrays.terminal_seq[game.trunk_terminals]
  trunk_weights = arrays.weighted_utility[game.trunk_terminals]

  def pass_values(x: np.ndarray, player: Optional[int]) -> PassValues:
    t = engine.iteration - 1
    updated = (0, 1) if player is None else (player,)
    for i in updated:  # Step 1: pi^t_i as this pass sees it.
      mine = arrays.player_mask[i] > 0
      iterates[t, mine] = engine.sigma[mine]
    belief_reach = leaf_step.belief_reach(engine, leaf_beliefs, x, player, game.trunk_mask,
                                          game.leaf_mask)
    values = tree_passes.terminal_values(arrays, x, trunk_weights, player, game.trunk_terminals)
    ev = None if player == 1 else np.stack([np.bincount(  # ComputeEV(G, pi^t), player 0's pass.
        trunk_roots, weights=trunk_values[:, i] * x[trunk_seq[:, 0]] * x[trunk_seq[:, 1]],
        minlength=game.num_roots).astype(np.float64) for i in (0, 1)], axis=1)
    betas = [leaf_belief(leaf, belief, belief_reach, tremble) for leaf in game.leaves]  # Step 3.
    solutions = leaf_step.solve_leaves(leaf_solver, game.cut, [z.leaf for z in game.leaves], betas)
    for leaf, beta, solution in zip(game.leaves, betas, solutions):  # Steps 4-5.
      # omega_i(g) = beta(h) pi_c(g | h) pi^t_{-i}(g): column i holds the opponent's reach.
      weights = (belief[leaf.search_root] * leaf.chance)[:, None] * x[leaf.local_seq[:, ::-1]]
      _, u = leaf_step.leaf_root_values(leaf.leaf, solution, beta, weights)
      if ev is not None:
        reach = leaf.chance * x[leaf.local_seq[:, 0]] * x[leaf.local_seq[:, 1]]
        for i in (0, 1):
          ev[:, i] += np.bincount(leaf.search_root, weights=reach * u[:, i],
                                  minlength=game.num_roots)
      for i in updated:
        values += leaf_step.counterfactual_leaf_values(leaf.local_seq, weights, u, i,
                                                       arrays.num_sequences)
    if ev is not None:
      iteration_values[t] = ev
    return PassValues(values)

  for t in range(iterations):
    engine.iterate(pass_values)  # Step 6 in the engine.
    averages[t] = engine.average()
  weights = np.array([rm.averaging_weight(t, rule.averaging_gamma)
                      for t in range(1, iterations + 1)])
  return SearchRecord(game=game, belief=belief, iterates=iterates, averages=averages,
                      weights=weights, iteration_values=iteration_values)


def solve_average(game: SearchGame, belief: np.ndarray, iterations: int,
                  rule: UpdateRule) -> np.ndarray:
  """The average policy pibar^T (G_s,) of CFR on a search game WITHOUT leaves, in one compiled
  call (``CFREngine.solve``): the same iterations as ``run_search`` there.

  Raises:
    ValueError: for a search game with leaves.
  """
  if game.leaves:
    raise ValueError(f"solve_average needs a search without leaves; {game.public_state!r} has "
                     f"{len(game.leaves)}")
  engine = CFREngine(search_arrays(game, np.asarray(belief, dtype=np.float64)), rule)
  engine.solve(iterations)
  return engine.average()
