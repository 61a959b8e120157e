"""The compiled CFR kernel: a pass's update, whole runs of iterations, sampled passes, batches.

Numba-compiled (cached on disk: the first call in a fresh checkout compiles, later processes
load the machine code) loops over the flat arrays of ``tree_layout.KernelLayout``, built from
the passes of ``tree_passes`` and the rules of ``regret_matching``. One pass updating player i
(every player when i = -1) against the current policy sigma:

1. realization plans x of sigma (``tree_passes.realize``);
2. terminal values c_i of the updated player(s) (``tree_passes.add_terminal_values``), or
   values handed in by the caller;
3. the backup q, v over the updated player's information sets (``tree_passes.backup``);
4. R(I, a) += q(I, a) - v(I), S(I, a) += w_t reach(I, a) n(I), with w_t = t^gamma and n(I) = 1
   for a full-width pass or the number of visited histories of I for a sampled one;
5. RM+ clipping, discounting, then sigma = regret matching of R at the updated sets.

``update_infosets`` is steps 3-5, the only implementation of the update; ``exact_iterations``
(full-width passes, many iterations in one call), ``hook_update`` (values from a Python hook)
and ``sampled_iterations`` (chance-sampled passes over the sampled subtree only) all call it.
``exact_batch`` runs ``exact_iterations`` on each of B games that share one layout.

A full-width pass clips every regret under RM+ (as OpenSpiel's CFR+ does after each player's
update); a sampled pass clips only the regrets it updates. Regret matching only changes at the
updated sets: elsewhere the regrets are unchanged, or only clipped, which regret matching
ignores.
"""

from typing import NamedTuple, Tuple

import numba
import numpy as np

from algorithms import regret_matching as rm
from algorithms.tree_layout import KernelLayout
from algorithms.tree_passes import (add_all_terminal_values, add_terminal_values, backup,
                                     best_response_values, player_weights, policy_values,
                                     realize)


class KernelRule(NamedTuple):
  """``cfr_engine.UpdateRule`` in the kernel's types (no discount: ``discount`` False)."""

  alternating: bool
  regret_matching_plus: bool
  averaging_gamma: float
  discount: bool
  discount_alpha: float
  discount_beta: float


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


@numba.njit(cache=True, error_model="numpy")
def update_infosets(lay: KernelLayout, rule: KernelRule, t: int, c: np.ndarray,
                    reach: np.ndarray, visits: np.ndarray, sigma: np.ndarray,
                    regrets: np.ndarray, cumulative: np.ndarray, infosets: np.ndarray, lo: int,
                    hi: int, clip_all: bool, v: np.ndarray, acc: np.ndarray) -> None:
  """Steps 3-5 of the module docstring at ``infosets[lo:hi]`` (increasing global index).

  Args:
    lay: the layout.
    rule: the update rule.
    t: the iteration, for w_t and the discounts.
    c: (G,) terminal values of the updated players; becomes q.
    reach: (G,) own-reach weights of the average (the pass's plans x for CFR).
    visits: (K,) n(I) of the average's increment.
    sigma, regrets, cumulative: (G,) the state, updated in place.
    infosets, lo, hi: the updated information sets.
    clip_all: under RM+, clip every regret (else only the updated ones).
    v, acc: scratch, (K,) and (G,) (acc zero on entry and on return).
  """
  backup(lay, c, sigma, v, acc, infosets, lo, hi, False)
  w = rm.averaging_weight(t, rule.averaging_gamma)
  positive, negative = 1.0, 1.0
  if rule.discount:
    positive, negative = rm.discount_factors(t, rule.discount_alpha, rule.discount_beta)
  for q in range(lo, hi):
    k = infosets[q]
    start = lay.infoset_start[k]
    size = lay.infoset_num_actions[k]
    value, count = v[k], visits[k]
    for s in range(start, start + size):
      regrets[s] += c[s] - value
      cumulative[s] += w * (reach[s] * count)
    if rule.regret_matching_plus:
      rm.clip_block(regrets, start, size)
    if rule.discount:
      rm.discount_block(regrets, start, size, positive, negative)
    rm.match_block(regrets, sigma, start, size)
  if rule.regret_matching_plus and clip_all:  # The others' (the updated ones are clipped).
    for s in range(lay.num_players, len(regrets)):
      regrets[s] = max(regrets[s], 0.0)


@numba.njit(cache=True, error_model="numpy")
def average_increment(lay: KernelLayout, rule: KernelRule, t: int, reach: np.ndarray,
                      player: int) -> np.ndarray:
  """The numerators' increment w_t reach[s] on ``player``'s sequences (-1: all), else 0 (G,).

  The increment ``update_infosets`` adds for a full-width pass, in the same arithmetic.
  """
  out = np.zeros(len(reach))
  w = rm.averaging_weight(t, rule.averaging_gamma)
  n = lay.num_players
  group = player if player >= 0 else n
  for q in range(lay.pass_infoset_ptr[group], lay.pass_infoset_ptr[group + 1]):
    k = lay.pass_infosets[q]
    start = lay.infoset_start[k]
    for s in range(start, start + lay.infoset_num_actions[k]):
      out[s] = w * reach[s]
  return out


@numba.njit(cache=True, error_model="numpy")
def hook_update(lay: KernelLayout, rule: KernelRule, t: int, c: np.ndarray, reach: np.ndarray,
                player: int, sigma: np.ndarray, regrets: np.ndarray,
                cumulative: np.ndarray) -> None:
  """One full-width pass of ``player`` (-1: all) with terminal values ``c`` from the caller."""
  n = lay.num_players
  group = player if player >= 0 else n
  k = len(lay.infoset_start)
  update_infosets(lay, rule, t, c, reach, np.ones(k), sigma, regrets, cumulative,
                  lay.pass_infosets, lay.pass_infoset_ptr[group],
                  lay.pass_infoset_ptr[group + 1], True, np.empty(k), np.zeros(len(c)))


@numba.njit(cache=True, error_model="numpy")
def exact_iterations(lay: KernelLayout, rule: KernelRule, weights: np.ndarray,
                     sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                     iteration: int, count: int) -> None:
  """Iterations ``iteration + 1`` .. ``iteration + count`` of full-width CFR, in place.

  Each iteration is one pass per player 0..N-1 (alternating updates; each pass against the
  policy the previous one left) or one pass of all players; ``weights`` (T, N) are the terminal
  weights u_p(z) pi_c(z). The plans x are computed once and then refreshed for the updated
  player after each pass.
  """
  n = lay.num_players
  g = len(sigma)
  k = len(lay.infoset_start)
  ptr = lay.pass_infoset_ptr
  sorted_weights = player_weights(lay, weights)
  x = np.empty(g)
  x[:n] = 1.0
  realize(lay, sigma, x, lay.pass_infosets, ptr[n], ptr[n + 1])
  c = np.empty(g)
  v = np.empty(k)
  acc = np.zeros(g)
  ones = np.ones(k)
  passes = n if rule.alternating else 1
  for it in range(count):
    t = iteration + it + 1
    for p in range(passes):
      player = p if rule.alternating else -1
      group = player if player >= 0 else n
      c[:] = 0.0
      add_all_terminal_values(lay, x, sorted_weights, player, c)
      update_infosets(lay, rule, t, c, x, ones, sigma, regrets, cumulative, lay.pass_infosets,
                      ptr[group], ptr[group + 1], True, v, acc)
      realize(lay, sigma, x, lay.pass_infosets, ptr[group], ptr[group + 1])


@numba.njit(cache=True, error_model="numpy")
def exact_batch(lay: KernelLayout, rule: KernelRule, weights: np.ndarray, sigma: np.ndarray,
                regrets: np.ndarray, cumulative: np.ndarray, iterations: np.ndarray,
                games: np.ndarray, count: int) -> None:
  """``exact_iterations`` on each listed game b (rows b of the (B, ...) arrays); advances
  ``iterations[b]`` by ``count``."""
  for b in games:
    exact_iterations(lay, rule, weights[b], sigma[b], regrets[b], cumulative[b], iterations[b],
                     count)
    iterations[b] += count


@numba.njit(cache=True, error_model="numpy")
def batch_values(lay: KernelLayout, weights: np.ndarray, sigma: np.ndarray
                 ) -> Tuple[np.ndarray, np.ndarray]:
  """Per game b: best-response values and on-policy values of ``sigma[b]`` ((B, N) each)."""
  num_games, n = weights.shape[0], lay.num_players
  best = np.empty((num_games, n))
  on_policy = np.empty((num_games, n))
  x = np.empty(sigma.shape[1])
  x[:n] = 1.0
  ptr = lay.pass_infoset_ptr
  for b in range(num_games):
    best[b] = best_response_values(lay, weights[b], sigma[b])
    realize(lay, sigma[b], x, lay.pass_infosets, ptr[n], ptr[n + 1])
    on_policy[b] = policy_values(lay, weights[b], x)
  return best, on_policy


@numba.njit(cache=True, error_model="numpy")
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
      if visits[k] == 0.0:
        infosets[num_infosets] = k
        num_infosets += 1
      visits[k] += 1.0
    for m in range(tables.seg_chance_ptr[s], tables.seg_chance_ptr[s + 1]):
      chance = tables.seg_chance[m]
      u = draws[tables.chance_depth[chance]]
      e = tables.chance_edge_ptr[chance]
      last = tables.chance_edge_ptr[chance + 1] - 1
      total = tables.edge_prob[e]
      while e < last and u >= total:
        e += 1
        total += tables.edge_prob[e]
      stack[top] = tables.edge_segment[e]
      top += 1
  return num_terminals, num_infosets


@numba.njit(cache=True, error_model="numpy")
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
  x[:n] = 1.0
  c = np.empty(g)
  v = np.empty(k)
  acc = np.zeros(g)
  visits = np.zeros(k)
  terminals = np.empty(len(lay.all_terminals), dtype=np.int64)
  infosets = np.empty(k, dtype=np.int64)
  updated = np.empty(k, dtype=np.int64)
  stack = np.empty(len(tables.seg_terminal_ptr), dtype=np.int64)
  passes = n if rule.alternating else 1
  row = 0
  for it in range(count):
    t = iteration + it + 1
    for p in range(passes):
      player = p if rule.alternating else -1
      num_terminals, num_infosets = visit(tables, draws[row], terminals, infosets, visits,
                                          stack)
      row += 1
      infosets[:num_infosets].sort()
      realize(lay, sigma, x, infosets, 0, num_infosets)
      num_updated = 0
      c[:n] = 0.0
      for q in range(num_infosets):
        j = infosets[q]
        if player < 0 or lay.infoset_player[j] == player:
          updated[num_updated] = j
          num_updated += 1
          start = lay.infoset_start[j]
          c[start:start + lay.infoset_num_actions[j]] = 0.0
      add_terminal_values(lay, x, utility, player, terminals, 0, num_terminals, c)
      update_infosets(lay, rule, t, c, x, visits, sigma, regrets, cumulative, updated, 0,
                      num_updated, False, v, acc)
      for q in range(num_infosets):
        visits[infosets[q]] = 0.0

