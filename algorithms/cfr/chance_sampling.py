"""Chance sampling for CFR on the flat arrays (Lanctot et al. 2009): passes over sampled subtrees.

Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret minimization in extensive
games", NeurIPS 2009, chance sampling: each pass samples chance outcomes and walks every player
action of the resulting chance-deterministic game. Here a pass draws one uniform number u_d in
[0, 1) per chance depth d (the number of chance nodes above a chance node), and every chance
node at depth d takes the outcome whose cumulative-probability interval holds u_d. In poker
every deal is one draw per card, shared by all betting histories: one deal per pass, the
paper's chance sampling. A terminal z is visited when every chance node above it took z's
branch; those nodes lie at distinct depths, whose draws are independent, so z is visited with
probability q(z) = pi_c(z). The sampled counterfactual value replaces pi_c(z) by the importance
weight 1[z visited] pi_c(z) / q(z) = 1[z visited]:

  c~_i[s] = sum_{z visited: seq_i(z) = s} u_i(z) prod_{j != i} x_j[seq_j(z)],

whose expectation is the exact c_i[s]; regrets are linear in c_i for a fixed policy, so the
sampled regret update is unbiased. The average policy is accumulated as in the paper's
algorithm, at every visited history h of the updated player: S(I, a) += w_t pi_i(h) sigma(I, a),
i.e. w_t x_i(I, a) times the number of visited histories of I.

A pass touches only the sampled subtree: the visited terminals, the information sets of the
visited decision nodes (plans, values, regrets, regret matching), nothing else
(``sampled_kernel.sampled_iterations``).

``ChanceSampler`` cuts the tree into segments (``sampled_kernel.SampleTables``) and draws the
numbers from a ``numpy.random.Generator``; ``CFREngine.iterate_sampled(sampler.tables,
sampler.draw(passes))`` runs the passes.
"""

from typing import Dict, Optional, Tuple

import numpy as np

from algorithms.cfr import sampled_kernel
from algorithms.cfr.sampled_kernel import SampleTables
from algorithms.tree.game_tree import CHANCE
from algorithms.tree.tree_layout import TreeArrays


def csr(groups: np.ndarray, values: np.ndarray, num_groups: int) -> Tuple[np.ndarray,
                                                                        np.ndarray]:
  """(ptr, values ordered by group, stably) of a grouping."""
  order = np.argsort(groups, kind="stable")
  ptr = np.zeros(num_groups + 1, dtype=np.int64)
  np.cumsum(np.bincount(groups, minlength=num_groups), out=ptr[1:])
  return ptr, np.ascontiguousarray(values[order], dtype=np.int64)


def entry_tables(arrays: TreeArrays, decision_infoset: np.ndarray,
                 terminals: np.ndarray) -> Dict[str, np.ndarray]:
  """What a pass reads per decision and terminal entry, in entry order (``SampleTables``)."""
  lay = arrays.kernel
  index = lambda values: np.ascontiguousarray(values, dtype=np.uint32)  # noqa: E731
  return {"decision_start": index(lay.infoset_start[decision_infoset]),
          "decision_size": index(lay.infoset_num_actions[decision_infoset]),
          "decision_parent": index(lay.infoset_parent[decision_infoset]),
          "decision_player": index(lay.infoset_player[decision_infoset]),
          "decision_level": index(lay.infoset_level[decision_infoset]),
          "terminal_seq": index(lay.terminal_seq[terminals]),
          "terminal_utility": np.ascontiguousarray(arrays.tree.utility[terminals],
                                                   dtype=np.float64)}


class ChanceSampler:
  """A tree's chance segments and the random numbers of chance-sampled passes.

  Attributes:
    tables: the ``sampled_kernel.SampleTables`` of the tree.
    num_draws: D, the number of chance depths (numbers drawn per pass).
    rng: the ``np.random.Generator`` (its state is part of a solver's checkpoint).
  """

  def __init__(self, arrays: TreeArrays, rng: np.random.Generator):
    self.arrays = arrays
    self.rng = rng
    tree = arrays.tree
    parent = tree.node_parent
    is_chance = tree.node_player == CHANCE
    # Segments: a new one starts at the root and at every child of a chance node; nodes are in
    # preorder, so a node's segment is its parent's unless it starts one.
    starts_segment = np.zeros(tree.num_nodes, dtype=bool)
    starts_segment[0] = True
    starts_segment[1:] = is_chance[parent[1:]]
    segment_root = np.flatnonzero(starts_segment)
    num_segments = len(segment_root)
    segment = np.zeros(tree.num_nodes, dtype=np.int64)
    segment[segment_root] = np.arange(num_segments)
    for d in range(1, int(tree.node_depth.max()) + 1):  # Depth levels, parents first.
      nodes = np.flatnonzero((tree.node_depth == d) & ~starts_segment)
      segment[nodes] = segment[parent[nodes]]
    chance_nodes = np.flatnonzero(is_chance)
    chance_rank = np.full(tree.num_nodes, -1, dtype=np.int64)
    chance_rank[chance_nodes] = np.arange(len(chance_nodes))
    chance_depth = np.zeros(tree.num_nodes, dtype=np.int64)  # Chance nodes strictly above.
    for d in range(1, int(tree.node_depth.max()) + 1):
      nodes = np.flatnonzero(tree.node_depth == d)
      # d(h) = d(parent(h)) + 1[parent(h) is a chance node]
      chance_depth[nodes] = chance_depth[parent[nodes]] + is_chance[parent[nodes]]
    self.num_draws = int(chance_depth[chance_nodes].max()) + 1 if len(chance_nodes) else 0
    # Outcome edges (children of chance nodes), grouped by chance node in outcome order
    # (preorder within a node). Segment k > 0 is entered through the edge into segment_root[k].
    edge_ptr, edge_segment = csr(chance_rank[parent[segment_root[1:]]],
                                  np.arange(1, num_segments), len(chance_nodes))
    terminal_ptr, terminals = csr(segment[tree.terminal_node],
                                   np.arange(tree.num_terminals), num_segments)
    decision = np.flatnonzero(tree.node_player >= 0)
    decision_infoset = np.empty(len(decision), dtype=np.int64)
    for pl in range(arrays.num_players):
      mine = tree.node_player[decision] == pl
      decision_infoset[mine] = arrays.global_infoset[pl][tree.node_infoset[decision[mine]]]
    decision_ptr, decision_infoset = csr(segment[decision], decision_infoset, num_segments)
    chance_ptr, seg_chance = csr(segment[chance_nodes], np.arange(len(chance_nodes)),
                                  num_segments)
    # edge_prob[e] = p_e; z is visited w.p. q(z) = prod of the p_e above z = pi_c(z).
    edge_prob = np.ascontiguousarray(tree.node_prob[segment_root[edge_segment]],
                                     dtype=np.float64)
    self.tables = SampleTables(
        seg_terminal_ptr=terminal_ptr, seg_terminals=terminals, seg_decision_ptr=decision_ptr,
        seg_decision_infoset=decision_infoset, seg_chance_ptr=chance_ptr, seg_chance=seg_chance,
        chance_depth=chance_depth[chance_nodes], chance_edge_ptr=edge_ptr, edge_prob=edge_prob,
        edge_cumulative=sampled_kernel.running_sums(edge_ptr, edge_prob),
        edge_segment=edge_segment, **entry_tables(arrays, decision_infoset, terminals))

  def draw(self, passes: int) -> np.ndarray:
    """Uniform numbers for ``passes`` passes: (passes, D), from ``rng`` in row order."""
    return self.rng.random((passes, self.num_draws))  # u_d ~ U[0, 1) per pass and depth d

  def sample(self, draws: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    """The histories one pass visits: (visited terminals, visited histories of each global
    information set (K,)); for ``draws`` (D,), or one fresh row of ``draw``."""
    a = self.arrays
    if draws is None:
      draws = self.draw(1)[0]
    terminals = np.empty(a.num_terminals, dtype=np.int64)
    infosets = np.empty(a.num_infosets, dtype=np.int64)
    visits = np.zeros(a.num_infosets)  # n(I)
    num_terminals, _ = sampled_kernel.visit(
        self.tables, np.ascontiguousarray(draws, dtype=np.float64), terminals, infosets, visits,
        np.empty(len(self.tables.seg_terminal_ptr), dtype=np.int64))
    return np.sort(terminals[:num_terminals]), visits
