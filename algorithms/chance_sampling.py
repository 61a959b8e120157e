"""Chance sampling for CFR on the flat arrays (Lanctot et al. 2009).

Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret minimization in extensive
games", NeurIPS 2009, chance sampling: each pass samples one outcome at every chance node,
independently, with the chance probabilities, and walks every player action of the resulting
chance-deterministic game. A terminal z is visited when every chance node above it took z's
branch, which happens with probability q(z) = pi_c(z). The sampled counterfactual value
replaces pi_c(z) by the importance weight 1[z visited] pi_c(z) / q(z) = 1[z visited]:

  c~_i[s] = sum_{z visited: seq_i(z) = s} u_i(z) x_{-i}[seq_{-i}(z)],

whose expectation is the exact c_i[s]; regrets are linear in c_i for a fixed policy, so the
sampled regret update is unbiased. The average policy is accumulated as in the paper's
algorithm, at every visited history h of the updated player: S(I, a) += w_t pi_i(h) sigma(I, a),
i.e. w_t x_i(I, a) times the number of visited histories of I.
"""

from typing import Tuple

import numpy as np

from algorithms.cfr_engine import TreeArrays
from algorithms.game_tree import CHANCE


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
  """Concatenation of arange(starts[k], starts[k] + counts[k]) over k."""
  total = int(counts.sum())
  if total == 0:
    return np.zeros(0, dtype=np.int64)
  ends = np.cumsum(counts)
  offsets = np.repeat(starts - (ends - counts), counts)
  return offsets + np.arange(total)


class ChanceSampler:
  """Samples chance outcomes for one pass; called by ``CFREngine.iterate``.

  The tree is cut into segments: the root's, and one below every chance outcome, each running
  down to the next chance nodes. A pass walks only the visited segments, level by level: it
  draws one uniform number per chance node met, follows the chosen outcome into its segment,
  and finally lists the terminals and decision nodes of the visited segments, so its cost grows
  with the sampled part of the tree. Chance nodes in unvisited segments are not drawn: their
  outcomes cannot affect the pass.

  Attributes:
    rng: the ``np.random.Generator`` (its state is part of a solver's checkpoint).
  """

  def __init__(self, arrays: TreeArrays, rng: np.random.Generator):
    self.arrays = arrays
    self.rng = rng
    tree = arrays.tree
    parent = tree.node_parent
    is_chance = tree.node_player == CHANCE
    # Segment of each node (preorder: parents first).
    starts_segment = np.zeros(tree.num_nodes, dtype=bool)
    starts_segment[0] = True
    starts_segment[1:] = is_chance[parent[1:]]
    segment = np.cumsum(starts_segment) - 1  # Preorder numbering; fixed below for non-roots.
    for d in range(1, int(tree.node_depth.max()) + 1):
      nodes = np.flatnonzero((tree.node_depth == d) & ~starts_segment)
      segment[nodes] = segment[parent[nodes]]
    num_segments = int(starts_segment.sum())

    def grouped(nodes):
      """Nodes sorted by segment, and per segment the start and count in that order."""
      order = nodes[np.argsort(segment[nodes], kind="stable")]
      counts = np.bincount(segment[order], minlength=num_segments)
      return order, np.concatenate([[0], np.cumsum(counts)[:-1]]), counts

    chance_nodes, self._seg_chance_start, self._seg_chance_count = grouped(
        np.flatnonzero(is_chance))
    # Outcome edges, grouped by chance node (in the order of chance_nodes), in action order.
    chance_rank = np.full(tree.num_nodes, -1, dtype=np.int64)
    chance_rank[chance_nodes] = np.arange(len(chance_nodes))
    edge_child = np.flatnonzero(starts_segment)[1:]
    edge_child = edge_child[np.argsort(chance_rank[parent[edge_child]], kind="stable")]
    edge_owner = chance_rank[parent[edge_child]]
    counts = np.bincount(edge_owner, minlength=len(chance_nodes))
    self._edge_start = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    self._edge_count = counts
    prob = tree.node_prob[edge_child]
    cum = np.cumsum(prob)
    before = np.concatenate([[0.0], cum])[self._edge_start[edge_owner]]
    cum_hi = cum - before
    last = np.append(edge_owner[1:] != edge_owner[:-1], True)
    self._edge_cum_hi = np.where(last, np.inf, cum_hi)  # No gap from rounding at the top.
    self._edge_segment = segment[edge_child]
    self._terminal_order, self._seg_terminal_start, self._seg_terminal_count = grouped(
        tree.terminal_node)
    self._terminal_order = tree.node_terminal[self._terminal_order]
    decision, self._seg_decision_start, self._seg_decision_count = grouped(
        np.flatnonzero(tree.node_player >= 0))
    self._decision_infoset = np.empty(len(decision), dtype=np.int64)
    for pl in (0, 1):
      mine = tree.node_player[decision] == pl
      self._decision_infoset[mine] = arrays.global_infoset[pl][tree.node_infoset[decision[mine]]]

  def sample_segments(self) -> np.ndarray:
    """The visited segments of one sample (root segment first)."""
    visited = [np.zeros(1, dtype=np.int64)]
    frontier = visited[0]
    while True:
      nodes = _ranges(self._seg_chance_start[frontier], self._seg_chance_count[frontier])
      if len(nodes) == 0:
        break
      u = self.rng.random(len(nodes))
      counts = self._edge_count[nodes]
      edges = _ranges(self._edge_start[nodes], counts)
      below = self._edge_cum_hi[edges] <= np.repeat(u, counts)
      chosen = self._edge_start[nodes] + np.add.reduceat(below, np.cumsum(counts) - counts)
      frontier = self._edge_segment[chosen]
      visited.append(frontier)
    return np.concatenate(visited)

  def __call__(self) -> Tuple[np.ndarray, np.ndarray]:
    """One sample: (visited terminals, visited histories of each global information set)."""
    seg = self.sample_segments()
    terminals = self._terminal_order[_ranges(self._seg_terminal_start[seg],
                                             self._seg_terminal_count[seg])]
    decisions = _ranges(self._seg_decision_start[seg], self._seg_decision_count[seg])
    visits = np.bincount(self._decision_infoset[decisions], minlength=self.arrays.num_infosets)
    return terminals, visits
