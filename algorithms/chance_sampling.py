"""Chance sampling for CFR on the flat arrays (Lanctot et al. 2009).

Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret minimization in extensive
games", NeurIPS 2009, chance sampling: each pass samples one outcome at every chance node,
independently, with the chance probabilities, and walks every player action of the resulting
chance-deterministic game. A terminal z is visited when every chance node above it took z's
branch, which happens with probability q(z) = pi_c(z). The sampled counterfactual value
replaces pi_c(z) by the importance weight 1[z visited] pi_c(z) / q(z) = 1[z visited]:

  c~_i[s] = sum_{z visited: seq_i(z) = s} u_i(z) prod_{j != i} x_j[seq_j(z)],

whose expectation is the exact c_i[s]; regrets are linear in c_i for a fixed policy, so the
sampled regret update is unbiased. The average policy is accumulated as in the paper's
algorithm, at every visited history h of the updated player: S(I, a) += w_t pi_i(h) sigma(I, a),
i.e. w_t x_i(I, a) times the number of visited histories of I.

``ChanceSampler`` is a ``cfr_engine.TerminalValues`` hook: ``engine.iterate(sampler)`` runs one
chance-sampled CFR iteration, with a fresh sample for every pass.
"""

from typing import Optional, Tuple

import numpy as np

from algorithms import tree_passes
from algorithms.cfr_engine import PassValues
from algorithms.game_tree import CHANCE
from algorithms.tree_layout import TreeArrays


class ChanceSampler:
  """Samples chance outcomes; the terminal-values hook of chance-sampled CFR passes.

  The tree is cut into segments: the root's, and one below every chance outcome, each running
  down to the next chance nodes. A sample draws one uniform number per chance node, picks each
  chance node's outcome by inverse CDF, and marks a segment visited when its parent segment is
  and the outcome leading into it was picked (top-down over the few chance depths). Terminals
  and decision nodes are visited with their segment.

  Attributes:
    rng: the ``np.random.Generator`` (its state is part of a solver's checkpoint).
  """

  def __init__(self, arrays: TreeArrays, rng: np.random.Generator):
    self.arrays = arrays
    self.rng = rng
    tree = arrays.tree
    parent = tree.node_parent
    is_chance = tree.node_player == CHANCE
    # Segments: a new one starts at the root and at every child of a chance node.
    starts_segment = np.zeros(tree.num_nodes, dtype=bool)
    starts_segment[0] = True
    starts_segment[1:] = is_chance[parent[1:]]
    segment_root = np.flatnonzero(starts_segment)
    segment = np.zeros(tree.num_nodes, dtype=np.int64)
    segment[segment_root] = np.arange(len(segment_root))
    for d in range(1, int(tree.node_depth.max()) + 1):  # Preorder depth levels, parents first.
      nodes = np.flatnonzero((tree.node_depth == d) & ~starts_segment)
      segment[nodes] = segment[parent[nodes]]
    chance_nodes = np.flatnonzero(is_chance)
    self.num_chance_nodes = len(chance_nodes)
    chance_rank = np.full(tree.num_nodes, -1, dtype=np.int64)
    chance_rank[chance_nodes] = np.arange(len(chance_nodes))
    # Segment k > 0 is entered through the outcome edge into segment_root[k].
    edge_child = segment_root[1:]
    self._edge_owner = chance_rank[parent[edge_child]]
    order = np.argsort(self._edge_owner, kind="stable")  # Group edges by chance node.
    owner = self._edge_owner[order]
    prob = tree.node_prob[edge_child][order]
    cum = np.cumsum(prob)
    first = np.append(True, owner[1:] != owner[:-1])[:len(owner)]
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(owner)), 0))
    cum_hi = cum - np.append(0.0, cum)[group_start]
    # [lo, hi) intervals that partition [0, inf) exactly: lo is the previous edge's hi, and the
    # last outcome of a chance node takes any rounding gap below 1.
    cum_lo = np.where(first, 0.0, np.append(0.0, cum_hi[:-1]))
    cum_hi[np.append(first[1:], True)[:len(owner)]] = np.inf
    self._edge_lo = np.empty_like(cum_lo)
    self._edge_hi = np.empty_like(cum_hi)
    self._edge_lo[order], self._edge_hi[order] = cum_lo, cum_hi
    # Segments by chance depth (number of chance edges above them), for top-down propagation.
    segment_depth = np.zeros(len(segment_root), dtype=np.int64)
    segment_parent = np.zeros(len(segment_root), dtype=np.int64)
    segment_parent[1:] = segment[parent[edge_child]]
    for k in range(1, len(segment_root)):  # Segments are numbered in preorder.
      segment_depth[k] = segment_depth[segment_parent[k]] + 1
    self._levels = []
    for d in range(1, int(segment_depth.max(initial=0)) + 1):
      segs = np.flatnonzero(segment_depth == d)
      self._levels.append((segs, segment_parent[segs], segs - 1))
    self._num_segments = len(segment_root)
    self._terminal_segment = segment[tree.terminal_node]
    decision = np.flatnonzero(tree.node_player >= 0)
    self._decision_segment = segment[decision]
    self._decision_infoset = np.empty(len(decision), dtype=np.int64)
    for pl in range(arrays.num_players):
      mine = tree.node_player[decision] == pl
      self._decision_infoset[mine] = arrays.global_infoset[pl][tree.node_infoset[decision[mine]]]

  def visited_segments(self) -> np.ndarray:
    """One sample: a boolean per segment, True where every chance node above chose its way."""
    u = self.rng.random(self.num_chance_nodes)[self._edge_owner]
    picked = (self._edge_lo <= u) & (u < self._edge_hi)
    visited = np.ones(self._num_segments, dtype=bool)
    for segs, parents, edges in self._levels:
      visited[segs] = visited[parents] & picked[edges]
    return visited

  def sample(self) -> Tuple[np.ndarray, np.ndarray]:
    """One sample: (visited terminals, visited histories of each global information set)."""
    visited = self.visited_segments()
    terminals = np.flatnonzero(visited[self._terminal_segment])
    decisions = np.flatnonzero(visited[self._decision_segment])
    visits = np.bincount(self._decision_infoset[decisions], minlength=self.arrays.num_infosets)
    return terminals, visits

  def __call__(self, x: np.ndarray, player: Optional[int]) -> PassValues:
    """One sampled pass: the sampled terminal values c~ and the visit-weighted reach.

    Args:
      x: realization plans (G,) of the current policy.
      player: the updated player, or None for every player.

    Returns:
      ``PassValues`` with c~ over the visited terminals at weight u_i(z), and
      average_reach[s] = x[s] times the number of visited histories of s's information set.
    """
    a = self.arrays
    terminals, visits = self.sample()
    weights = a.tree.utility.take(terminals, axis=0)
    values = tree_passes.terminal_values(a, x, weights, player, terminals)
    # The empty sequences (information set -1) read the appended 0.
    return PassValues(values, x * np.append(visits, 0.0)[a.seq_infoset])
