"""Chance-sampled CFR passes, compiled: the sampled subtree found, then updated.

Chance-sampling CFR (Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret
minimization in extensive games", NeurIPS 2009): every pass samples one chance outcome per
chance depth (``chance_sampling`` draws the numbers and builds ``SampleTables``), and only the
histories below the sampled outcomes are visited (``visit``), sorted by level (``by_level``),
and updated by ``cfr_kernel``'s pass (``sampled_iterations``, step 4 with n(I) the number of
visited histories of I). A sampled pass clips only the regrets it updates.
"""

from typing import NamedTuple, Tuple

import numpy as np

from algorithms.cfr.cfr_kernel import add_terminal_values
from algorithms.cfr.cfr_kernel import realize
from algorithms.cfr.cfr_kernel import update_infosets
from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.rule_kernel import KernelRule
from algorithms.tree.tree_layout import KernelLayout


class SampleTables(NamedTuple):
  """A tree cut at its chance nodes, for sampled passes (built by ``chance_sampling``).

  A segment is the root's or a chance outcome's part of the tree down to the next chance
  nodes. Per segment s (CSR, int64): its terminals ``seg_terminals[seg_terminal_ptr[s]:
  seg_terminal_ptr[s + 1]]``, the global information sets of its decision nodes
  (``seg_decision_ptr``, ``seg_decision_infoset``; one entry per node) and its chance nodes
  (``seg_chance_ptr``, ``seg_chance``). Per chance node c: ``chance_depth[c]``, the number of
  chance nodes above it, which picks the draw it uses, and its outcomes e in
  ``chance_edge_ptr[c]:chance_edge_ptr[c + 1]``, with probability ``edge_prob[e]`` (float64),
  leading to segment ``edge_segment[e]``.
  """

  seg_terminal_ptr: np.ndarray
  seg_terminals: np.ndarray
  seg_decision_ptr: np.ndarray
  seg_decision_infoset: np.ndarray
  seg_chance_ptr: np.ndarray
  seg_chance: np.ndarray
  chance_depth: np.ndarray
  chance_edge_ptr: np.ndarray
  edge_prob: np.ndarray
  edge_segment: np.ndarray


@kernel
def visit(tables: SampleTables, draws: np.ndarray, terminals: np.ndarray, infosets: np.ndarray,
          visits: np.ndarray, stack: np.ndarray) -> Tuple[int, int]:
  """The histories below the sampled chance outcomes.

  From the root segment down, each chance node of a visited segment takes the outcome whose
  cumulative-probability interval [p_0 + ... + p_{e-1}, p_0 + ... + p_e) holds
  ``draws[chance_depth]`` (the last outcome also takes any rounding gap below 1), as
  OpenSpiel's ``SampleAction``; its segment is visited.

  Args:
    tables: the segments.
    draws: (D,) uniform numbers in [0, 1), one per chance depth.
    terminals: (T,) out: the visited terminals, first the returned count.
    infosets: (K,) out: the distinct information sets of the visited decision nodes, first the
      returned count, in order of first visit.
    visits: (K,) zero on entry; out: the number of visited histories of each set.
    stack: (number of segments,) scratch.

  Returns:
    (number of visited terminals, number of visited information sets).
  """
  num_terminals, num_infosets = 0, 0
  stack[0] = 0
  top = 1
  while top > 0:
    top -= 1
    s = stack[top]
    for m in range(tables.seg_terminal_ptr[s], tables.seg_terminal_ptr[s + 1]):
      terminals[num_terminals] = tables.seg_terminals[m]
      num_terminals += 1
    for m in range(tables.seg_decision_ptr[s], tables.seg_decision_ptr[s + 1]):
      k = tables.seg_decision_infoset[m]
      if visits[k] == 0.0:  # First visit of I: list it.
        infosets[num_infosets] = k
        num_infosets += 1
      visits[k] += 1.0  # n(I) += 1, one more visited history of I
    for m in range(tables.seg_chance_ptr[s], tables.seg_chance_ptr[s + 1]):
      chance = tables.seg_chance[m]
      u = draws[tables.chance_depth[chance]]  # u_d, the draw of this node's depth d
      e = tables.chance_edge_ptr[chance]
      last = tables.chance_edge_ptr[chance + 1] - 1
      total = tables.edge_prob[e]  # p_0
      while e < last and u >= total:  # Until p_0 + ... + p_{e-1} <= u < p_0 + ... + p_e
        e += 1
        total += tables.edge_prob[e]  # p_0 + ... + p_e
      stack[top] = tables.edge_segment[e]  # Visit outcome e's segment: P(e) = p_e.
      top += 1
  return num_terminals, num_infosets


@kernel
def by_level(lay: KernelLayout, infosets: np.ndarray, count: int, level_count: np.ndarray,
             out: np.ndarray) -> None:
  """``infosets[:count]`` into ``out[:count]`` by depth level, stably (counting sort).

  Levels in increasing order put every set after its parent's set, as ``realize`` needs, and
  group the sets as ``backup`` needs. Within a level the sets keep their visit order; in a tree
  without chance nodes (one segment, visited in preorder) a player's sets are then in the order
  of their global indices, so each sequence's children are summed as in a full-width pass.
  ``level_count`` (L + 1,) is zero on entry and on return.
  """
  for q in range(count):
    level_count[lay.infoset_level[infosets[q]] + 1] += 1  # Sets per level.
  for d in range(1, len(level_count)):
    level_count[d] += level_count[d - 1]  # Prefix sums: level d's first slot.
  for q in range(count):
    d = lay.infoset_level[infosets[q]]
    out[level_count[d]] = infosets[q]
    level_count[d] += 1
  level_count[:] = 0


@kernel
def sampled_iterations(lay: KernelLayout, tables: SampleTables, rule: KernelRule,
                       utility: np.ndarray, draws: np.ndarray, sigma: np.ndarray,
                       regrets: np.ndarray, cumulative: np.ndarray, iteration: int,
                       count: int) -> None:
  """Iterations ``iteration + 1`` .. ``iteration + count`` of chance-sampled CFR, in place.

  Each pass takes the next row of ``draws`` ((passes, D) uniforms), visits the sampled
  histories (``visit``), computes the plans on the visited information sets only, the terminal
  values c~_i[s] = sum_{z visited: seq_i(z) = s} u_i(z) prod_{j != i} x[seq_j(z)] (importance
  weight pi_c(z) / q(z) = 1), and updates the visited sets of the updated player(s) with
  n(I) = their visit counts. Its cost follows the sampled subtree.
  """
  n = lay.num_players
  g = len(sigma)
  k = len(lay.infoset_start)
  x = np.empty(g)
  x[:n] = 1.0  # x[empty_p] = 1
  c = np.empty(g)
  v = np.empty(k)
  acc = np.zeros(g)
  visits = np.zeros(k)  # n(I)
  terminals = np.empty(len(lay.all_terminals), dtype=np.int64)
  infosets = np.empty(k, dtype=np.int64)
  ordered = np.empty(k, dtype=np.int64)
  updated = np.empty(k, dtype=np.int64)
  level_count = np.zeros(lay.infoset_level[-1] + 2 if k else 1, dtype=np.int64)
  stack = np.empty(len(tables.seg_terminal_ptr), dtype=np.int64)
  passes = n if rule.alternating else 1
  row = 0
  for it in range(count):
    t = iteration + it + 1
    for p in range(passes):
      player = p if rule.alternating else -1
      # Sample chance: z is visited with probability q(z) = pi_c(z).
      num_terminals, num_infosets = visit(tables, draws[row], terminals, infosets, visits,
                                          stack)
      row += 1
      by_level(lay, infosets, num_infosets, level_count, ordered)  # Parents first.
      realize(lay, sigma, x, ordered, 0, num_infosets)  # Step 1 at the visited sets only
      num_updated = 0
      c[:n] = 0.0
      for q in range(num_infosets):
        j = ordered[q]
        if player < 0 or lay.infoset_player[j] == player:  # The updated player's visited sets:
          updated[num_updated] = j
          num_updated += 1
          start = lay.infoset_start[j]
          for s in range(start, start + lay.infoset_num_actions[j]):
            c[s] = 0.0  # c_i = 0 before the sums
      # c~_i[s] = sum_{z visited: seq_i(z) = s} u_i(z) prod_{j != i} x[seq_j(z)] (pi_c / q = 1)
      add_terminal_values(lay, x, utility, player, terminals, 0, num_terminals, c)
      # E[c~_i] = c_i, so R's update is unbiased; S += w_t x n(I), n(I) = visits.
      update_infosets(lay, rule, t, c, x, visits, sigma, regrets, cumulative, updated, 0,
                      num_updated, False, v, acc)
      for q in range(num_infosets):
        visits[infosets[q]] = 0.0  # n = 0 for the next pass
