"""A leaf solver whose continuation and values are smooth functions of the belief.

ReBeL's modified CFR-AVG (Brown, Bakhtin, Lerer, Gong, "Combining Deep Reinforcement Learning
and Search for Imperfect-Information Games", NeurIPS 2020, arXiv 2007.13544) de-averages leaf
values between consecutive average beliefs, so whether it converges depends on whether the leaf
values vary continuously with the belief. Neither built-in leaf solver does near an equilibrium:

* ``SequenceFormLPSolver`` returns a vertex of the optimal face, which jumps where a player is
  indifferent (and an equilibrium trunk makes the opponent indifferent at the leaf);
* ``CFRLeafSolver(N)`` is not continuous either: regret matching sigma = R+ / sum R+ jumps where
  the sign of a cumulative regret changes (in a leaf where one player acts, its instantaneous
  regrets are constant, so from the second iteration on it plays the best response; the average
  of N iterations jumps by (N - 1) / N where the best response switches).

``HedgeLeafSolver(N, eta)`` replaces regret matching by Hedge (exponential weights; Freund and
Schapire, "A decision-theoretic generalization of on-line learning", JCSS 1997) on the
counterfactual regrets, run N times from the uniform policy with alternating updates:

    sigma^{k+1}(I, a) = exp(eta R^k(I, a) / m(I)) / sum_b exp(eta R^k(I, b) / m(I)),

with m(I) = sum_{h in I} beta(root(h)) pi_c(h | root(h)) the information set's belief mass, so
that the temperature is per unit of mass (without it, sets of small mass stay near uniform). Every
step is a smooth function of beta (where m(I) > 0), so the average policy and the root values are
too; eta sets how sharp it is: as eta N grows the continuation approaches an equilibrium (Hedge is
a no-regret algorithm, and CFR with any regret minimiser at each set converges; Zinkevich et al.,
NeurIPS 2007), and its slope in the belief grows.
"""

import numpy as np

from algorithms.cfr import regret_matching as rm
from algorithms.cfr import tree_passes
from algorithms.rebel.leaves.solvers import LeafSolution
from algorithms.rebel.leaves.solvers import uniform_policy
from algorithms.rebel.public_tree import LeafSubgame

# Belief mass below which an information set's temperature is not scaled further.
MIN_MASS = 1e-12


def information_set_mass(leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
  """m(I) = sum_{h in I} beta(root(h)) pi_c(h | root(h)) per global leaf information set (K,)."""
  a, t = leaf.arrays, leaf.tree
  out = np.zeros(a.num_infosets)
  for i in leaf.acting_players:
    nodes = np.flatnonzero(t.node_player == i)
    sets = a.global_infoset[i][t.node_infoset[nodes]]
    out += np.bincount(sets, belief[leaf.node_root[nodes]] * leaf.node_chance[nodes],
                       minlength=a.num_infosets)
  return out


def _softmax_by_block(values: np.ndarray, blocks) -> np.ndarray:
  top = np.maximum.reduceat(values, blocks.starts)
  e = np.exp(values - top[blocks.block_of])
  return e / np.add.reduceat(e, blocks.starts)[blocks.block_of]


class HedgeLeafSolver:
  """N alternating Hedge iterations on the leaf at the belief; the average policy (module doc).

  Described in checkpoints and the solver registry by its iterations and eta
  (``leaves.specs``).
  """

  def __init__(self, iterations: int, eta: float):
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
      raise ValueError(f"iterations must be an integer >= 1, got {iterations!r}")
    if not eta > 0:
      raise ValueError(f"eta must be > 0, got {eta!r}")
    self.iterations = iterations
    self.eta = float(eta)

  def __call__(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    a = leaf.arrays_at(belief)
    if a.num_infosets == 0:
      policy = uniform_policy(a)
      return LeafSolution(policy=policy, root_values=leaf.root_values(policy))
    scale = self.eta / np.maximum(information_set_mass(leaf, belief), MIN_MASS)
    scale = scale[a.seq_infoset[2:]]
    sigma = uniform_policy(a)
    regrets = np.zeros(a.num_sequences)
    cumulative = np.zeros(a.num_sequences)
    for _ in range(self.iterations):
      for player in (0, 1):  # r = q(I, a) - v(I) on the player's sequences, 0 elsewhere.
        x = tree_passes.realization(a, sigma)
        r = tree_passes.counterfactual_regrets(
            a, tree_passes.terminal_values(a, x, a.weighted_utility, player), sigma)
        regrets += r
        cumulative += x * a.player_mask[player]
        sigma[2:] = _softmax_by_block(scale * regrets[2:], a.blocks)
    policy = np.ones(a.num_sequences)
    policy[2:] = rm.normalize_average(cumulative[2:], a.blocks)
    return LeafSolution(policy=policy, root_values=leaf.root_values(policy))
