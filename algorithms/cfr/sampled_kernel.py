"""Chance-sampled CFR passes, compiled: one walk of the sampled subtree, then its update.

Chance-sampling CFR (Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret
minimization in extensive games", NeurIPS 2009): every pass samples one chance outcome per
chance depth (``chance_sampling`` draws the numbers and builds ``SampleTables``) and visits only
the histories below the sampled outcomes. A pass of ``sampled_iterations`` costs what it
samples, in two sweeps over the visited part and nothing over the rest of the tree:

1. down (``walk_sample``): the segments of the sample, each chance node taking its outcome
   (``first_above`` of the cumulative probabilities, from a guess); at each visited decision
   node the plans x of its information set (step 1 of ``cfr_kernel``), and at the first visit
   of an updated player's set its c = 0 and its place in the list of its depth level; at each
   visited terminal its values (step 2, importance weight pi_c(z) / q(z) = 1);
2. up (``update_sample``): the updated sets, deepest level first, each one's v(I) and then its
   update (steps 3-5: ``cfr_kernel.update_set``'s arithmetic with n(I) its number of visited
   histories, and ``rule_kernel.end_block_update``).

The numbers are those of the pass this replaced (a walk recording the sample, a sort of its
sets by level, then ``cfr_kernel.update_infosets``) bit for bit: the terminals are summed in
the same visit order, each level's child values in the same order (first visit within the
level), and a set's update reads only its own sequences, so updating it as soon as its v(I) is
known changes no number (tests/test_algorithms/cfr/test_sampled_iterates.py holds that pass's
iterates). ``visit`` is the same walk recording the visited terminals and visit counts
(``ChanceSampler.sample``).

What a pass costs (perf on leduc_poker and 100-card Kuhn, when this module was written):
nothing over the unvisited part of the tree (neither did the pass it replaced: no regret
matching, averaging or clearing outside the sample); per visited item a few dependent loads,
and per updated set regret matching's divisions (the hottest instructions). The replaced pass
lost about half its time to its structure: numba's reference counts (17%: arrays read from
tuples inside loops), calls between separately compiled functions with the layout's arrays
(7%), the sort by level (6%), and on 100-card Kuhn the choice of a chance outcome among 100
(a scan over about half of them; a binary search still took 30% of the pass, by its
mispredicted branches).

The rules: every rule ``CFREngine.iterate_sampled`` accepts (vanilla CFR, RM+, any averaging
weight w_t = t^gamma, alternating or simultaneous updates) updates a set only when a pass
visits it, so updating only the visited sets is exact: an unvisited set's regrets gain 0, its
numerators w_t x 0, and RM+ leaves its (already clipped) regrets alone. Discounted and
predictive rules change every set every iteration (a discount of all regrets, a prediction from
the last pass) and are refused by ``iterate_sampled``.
"""

from typing import NamedTuple, Tuple

import numpy as np

from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.rule_kernel import KernelRule
from algorithms.cfr.rule_kernel import end_block_update
from algorithms.cfr.rule_kernel import iteration_weights
from algorithms.tree.tree_layout import KernelLayout


class SampleTables(NamedTuple):
  """A tree cut at its chance nodes, for sampled passes (built by ``chance_sampling``).

  A segment is the root's or a chance outcome's part of the tree down to the next chance
  nodes. Per segment s (CSR, int64): its terminals ``seg_terminals[seg_terminal_ptr[s]:
  seg_terminal_ptr[s + 1]]``, the global information sets of its decision nodes
  (``seg_decision_ptr``, ``seg_decision_infoset``; one entry per node, in preorder) and its
  chance nodes (``seg_chance_ptr``, ``seg_chance``). Per chance node c: ``chance_depth[c]``, the
  number of chance nodes above it, which picks the draw it uses, and its outcomes e in
  ``chance_edge_ptr[c]:chance_edge_ptr[c + 1]``, with probability ``edge_prob[e]`` (float64),
  the running sum ``edge_cumulative[e]`` = p_first + ... + p_e (added left to right), leading
  to segment ``edge_segment[e]``.

  What the passes read per entry, contiguous in segment order (uint32, as the fused kernel's
  indices: ``tree_layout.SweepLayout``): per decision entry m, its set's first sequence
  ``decision_start[m]``, number of actions ``decision_size[m]``, parent sequence
  ``decision_parent[m]``, owner ``decision_player[m]`` and depth level ``decision_level[m]``;
  per terminal entry m, ``terminal_seq[m]`` (N,) the players' sequences and
  ``terminal_utility[m]`` (N,) the utilities u_i(z) (float64) of terminal ``seg_terminals[m]``.
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
  edge_cumulative: np.ndarray
  edge_segment: np.ndarray
  decision_start: np.ndarray
  decision_size: np.ndarray
  decision_parent: np.ndarray
  decision_player: np.ndarray
  decision_level: np.ndarray
  terminal_seq: np.ndarray
  terminal_utility: np.ndarray


@kernel
def running_sums(ptr: np.ndarray, values: np.ndarray) -> np.ndarray:
  """Per group g, out[e] = values[ptr[g]] + ... + values[e], added left to right."""
  out = np.empty(len(values))
  for g in range(len(ptr) - 1):
    total = 0.0
    for e in range(ptr[g], ptr[g + 1]):
      total = values[e] if e == ptr[g] else total + values[e]  # p_0 + ... + p_e
      out[e] = total
  return out


@kernel(inline=True)
def first_above(cumulative: np.ndarray, lo: int, hi: int, u: float) -> int:
  """The first e in [lo, hi) with u < cumulative[e], else hi (``cumulative`` never decreases,
  ends near 1 at hi): the same answer as a scan from lo.

  Found from the guess lo + floor(u (hi - lo + 1)), exact for equal probabilities up to
  rounding, then moved down while cumulative[e - 1] > u and up while cumulative[e] <= u: a few
  predictable steps where a binary search mispredicts at every step (measured: the search
  was 30% of a 100-card Kuhn pass).
  """
  e = min(lo + int(u * (hi - lo + 1)), hi)  # u in [0, 1): the guess is in [lo, hi]
  while e > lo and u < cumulative[e - 1]:
    e -= 1  # The answer is at most e - 1.
  while e < hi and u >= cumulative[e]:
    e += 1  # The answer is after e.
  return e


@kernel(inline=True)
def chance_outcome(tables: SampleTables, chance: int, u: float) -> int:
  """The outcome edge of a chance node whose cumulative-probability interval holds u.

  The first outcome e with u < p_0 + ... + p_e, the last outcome also taking any rounding gap
  below 1, as OpenSpiel's ``SampleAction``: ``first_above`` of ``edge_cumulative``.
  """
  ptr = tables.chance_edge_ptr
  return first_above(tables.edge_cumulative, ptr[chance], ptr[chance + 1] - 1, u)


@kernel
def visit(tables: SampleTables, draws: np.ndarray, terminals: np.ndarray, infosets: np.ndarray,
          visits: np.ndarray, stack: np.ndarray) -> Tuple[int, int]:
  """The histories below the sampled chance outcomes (the walk of a pass, recorded).

  From the root segment down (a stack: a segment's chance outcomes are visited last first),
  each chance node of a visited segment takes its ``chance_outcome`` for ``draws[chance
  depth]``; that outcome's segment is visited.

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
      e = chance_outcome(tables, chance, draws[tables.chance_depth[chance]])  # P(e) = p_e
      stack[top] = tables.edge_segment[e]  # Visit outcome e's segment.
      top += 1
  return num_terminals, num_infosets


class PassScratch(NamedTuple):
  """The per-pass work arrays of ``sampled_iterations`` (allocated once per call).

  Attributes (G sequences, K information sets, L depth levels):
    x: (G,) realization plans, 1 on the empty sequences; valid on the visited sets.
    c: (G,) terminal values, then q, on the updated sets.
    acc: (G,) zero: the child values of a level, per parent sequence.
    visits: (K,) zero between passes: n(I) of the updated sets.
    level_first: (L + 1,) the first slot of level d in ``level_sets`` (sets below d).
    level_count: (L,) zero between passes: the listed sets of each level.
    level_sets: (K,) the updated sets of each level, in order of first visit.
    stack: (number of segments,) the walk's stack.
  """

  x: np.ndarray
  c: np.ndarray
  acc: np.ndarray
  visits: np.ndarray
  level_first: np.ndarray
  level_count: np.ndarray
  level_sets: np.ndarray
  stack: np.ndarray


@kernel
def pass_scratch(lay: KernelLayout, tables: SampleTables, g: int) -> PassScratch:
  """The ``PassScratch`` of a layout with G = ``g`` sequences."""
  k = len(lay.infoset_start)
  levels = lay.infoset_level[-1] + 1 if k else 0  # Levels increase with the global index.
  level_first = np.zeros(levels + 1, dtype=np.int64)
  for j in range(k):
    level_first[lay.infoset_level[j] + 1] += 1  # Sets per level.
  for d in range(levels):
    level_first[d + 1] += level_first[d]  # Prefix sums: level d's first slot.
  x = np.empty(g)
  x[:lay.num_players] = 1.0  # x[empty_p] = 1
  return PassScratch(x, np.zeros(g), np.zeros(g), np.zeros(k), level_first,
                     np.zeros(levels, dtype=np.int64), np.empty(k, dtype=np.int64),
                     np.empty(len(tables.seg_terminal_ptr), dtype=np.int64))


@kernel(inline=True)
def walk_sample(lay: KernelLayout, tables: SampleTables, draws: np.ndarray, row: int,
                sigma: np.ndarray, player: int, w: PassScratch) -> None:
  """Sweep 1 of a pass (module docstring) for ``player`` (-1: every player), ``draws[row]``.

  Segments in ``visit``'s order; in a segment its decision nodes (preorder) before its
  terminals, so that every plan a terminal reads is set (its sets are its ancestors' in this
  segment or in one visited before).
  """
  # Every array read in the loops is bound once here: an attribute of a tuple read inside a
  # loop can cost numba a reference count per read (17% of the replaced pass). Binding them
  # once per call instead of once per pass gained 5% (measured): not worth a longer function.
  n = lay.num_players
  x, c, visits, stack = w.x, w.c, w.visits, w.stack
  level_first, level_count, level_sets = w.level_first, w.level_count, w.level_sets
  decision_ptr, decision_infoset = tables.seg_decision_ptr, tables.seg_decision_infoset
  decision_start, decision_size = tables.decision_start, tables.decision_size
  decision_parent, decision_player = tables.decision_parent, tables.decision_player
  decision_level = tables.decision_level
  terminal_ptr, terminal_seq = tables.seg_terminal_ptr, tables.terminal_seq
  terminal_utility = tables.terminal_utility
  chance_ptr, seg_chance, chance_depth = (tables.seg_chance_ptr, tables.seg_chance,
                                          tables.chance_depth)
  edge_ptr, edge_cumulative, edge_segment = (tables.chance_edge_ptr, tables.edge_cumulative,
                                             tables.edge_segment)
  c[:n] = 0.0  # c_i = 0 on the empty sequences
  stack[0] = 0
  top = 1
  while top > 0:
    top -= 1
    s = stack[top]
    for m in range(decision_ptr[s], decision_ptr[s + 1]):
      start, size = decision_start[m], decision_size[m]
      if player < 0 or decision_player[m] == player:  # An updated set:
        k = decision_infoset[m]
        if visits[k] == 0.0:  # its first visit: c = 0, listed at its level.
          d = decision_level[m]
          level_sets[level_first[d] + level_count[d]] = k
          level_count[d] += 1
          for a in range(start, start + size):
            c[a] = 0.0  # c_i = 0 before the sums
        visits[k] += 1.0  # n(I) += 1, one more visited history of I
      reach = x[decision_parent[m]]  # x[parent(I)] = pi_i(I): an ancestor's, set.
      for a in range(start, start + size):
        x[a] = reach * sigma[a]  # Step 1: x[(I, a)] = x[parent(I)] sigma(I, a)
    if n == 2 and player >= 0:  # The common case, without the loops over players:
      other = 1 - player
      for m in range(terminal_ptr[s], terminal_ptr[s + 1]):  # z = seg_terminals[m]
        # c~_i[seq_i(z)] += u_i(z) x[seq_{1-i}(z)], i the updated player
        c[terminal_seq[m, player]] += terminal_utility[m, player] * x[terminal_seq[m, other]]
    else:
      for m in range(terminal_ptr[s], terminal_ptr[s + 1]):  # z = seg_terminals[m]
        for i in range(n):
          if player >= 0 and i != player:
            continue
          value = terminal_utility[m, i]  # u_i(z): pi_c(z) / q(z) = 1 for a visited z
          for j in range(n):
            if j != i:
              value = value * x[terminal_seq[m, j]]  # * x[seq_j(z)]: the others' reach of z
          c[terminal_seq[m, i]] += value  # c~_i[seq_i(z)] += u_i(z) prod_{j != i} x[seq_j(z)]
    for m in range(chance_ptr[s], chance_ptr[s + 1]):
      chance = seg_chance[m]
      e = first_above(edge_cumulative, edge_ptr[chance], edge_ptr[chance + 1] - 1,
                      draws[row, chance_depth[chance]])  # chance_outcome: P(e) = p_e
      stack[top] = edge_segment[e]  # Visit outcome e's segment.
      top += 1


@kernel(inline=True)
def update_sample(lay: KernelLayout, rule: KernelRule, t: int, sigma: np.ndarray,
                  regrets: np.ndarray, cumulative: np.ndarray, w: PassScratch) -> None:
  """Sweep 2 of a pass: the listed sets, deepest level first, each one's v(I) then update.

  Within a level: v(I) = sum_a sigma(I, a) q(I, a) (``backup``'s order), summed per parent in
  list order into ``acc``, then updated (``update_set``: R += q - v, S += w_t x n(I), RM+,
  sigma); after the level, each parent's sum is added to its q. Leaves ``visits``,
  ``level_count`` and ``acc`` zero.
  """
  weight, positive, negative = iteration_weights(rule, t)  # w_t (no discount: refused)
  # Arrays bound once, as in ``walk_sample``.
  starts, sizes, parents = lay.infoset_start, lay.infoset_num_actions, lay.infoset_parent
  x, c, acc, visits = w.x, w.c, w.acc, w.visits
  level_first, level_count, level_sets = w.level_first, w.level_count, w.level_sets
  no_memory = regrets[:0].reshape((0, 0))  # Sampled passes refuse the rules with state.
  for d in range(len(level_count) - 1, -1, -1):  # Bottom-up: deepest level first.
    first = level_first[d]
    last = first + level_count[d]
    for q in range(first, last):
      k = level_sets[q]
      start, size = starts[k], sizes[k]
      rest = 0.0
      for a in range(start + 1, start + size):
        rest += sigma[a] * c[a]  # sum_{a > 0} sigma(I, a) q(I, a)
      value = sigma[start] * c[start] + rest  # v(I) = sum_a sigma(I, a) q(I, a)
      acc[parents[k]] += value  # acc[parent(I)] += v(I)
      # Steps 4-5 at I (``cfr_kernel.update_set`` on the bound arrays): q(I, .) is complete
      # (deeper levels were added), and v(I) read sigma(I, .) before its update.
      for a in range(start, start + size):
        cumulative[a] += weight * (x[a] * visits[k])  # S(I, a) += w_t x(I, a) n(I)
      end_block_update(rule, c, value, regrets, sigma, no_memory, start, size, positive,
                       negative)
      visits[k] = 0.0  # n(I) = 0 for the next pass
    for q in range(first, last):
      parent = parents[level_sets[q]]
      c[parent] += acc[parent]  # q(I', a') = c[(I', a')] + sum_{J: parent(J) = (I', a')} v(J)
      acc[parent] = 0.0  # Reset: a parent shared in the level adds once.
    level_count[d] = 0


@kernel
def sampled_iterations(lay: KernelLayout, tables: SampleTables, rule: KernelRule,
                       draws: np.ndarray, sigma: np.ndarray, regrets: np.ndarray,
                       cumulative: np.ndarray, iteration: int, count: int) -> None:
  """Iterations ``iteration + 1`` .. ``iteration + count`` of chance-sampled CFR, in place.

  Each pass takes the next row of ``draws`` ((passes, D) uniforms), walks the sampled histories
  (``walk_sample``: plans, terminal values c~_i[s] = sum_{z visited: seq_i(z) = s} u_i(z)
  prod_{j != i} x[seq_j(z)]) and updates the visited sets of the updated player(s)
  (``update_sample``, n(I) = their visit counts). Its cost follows the sampled subtree.
  """
  w = pass_scratch(lay, tables, len(sigma))
  passes = lay.num_players if rule.alternating else 1
  row = 0
  for it in range(count):
    t = iteration + it + 1
    for p in range(passes):
      player = p if rule.alternating else -1
      # Sample chance: z is visited with probability q(z) = pi_c(z).
      walk_sample(lay, tables, draws, row, sigma, player, w)
      row += 1
      # E[c~_i] = c_i, so R's update is unbiased; S += w_t x n(I), n(I) = visits.
      update_sample(lay, rule, t, sigma, regrets, cumulative, w)
