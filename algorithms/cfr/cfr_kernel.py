"""The compiled CFR kernel of the flat engine: passes and whole runs of iterations.

The compiled functions of the flat engine (``kernel_compiler.kernel``: numba, cached on disk
and recompiled when any kernel module changes). ``regret_matching``, ``tree_passes``,
``cfr_engine``, ``chance_sampling``, ``solver_backends`` and ``tree_exploitability`` are the
Python side. Three kernel modules split the flat engine's work:

* ``rule_kernel``: the update rules per information set (regret matching, RM+, discounts,
  averaging weights, predictive RM+), the only definition of each rule (``range_kernel``
  calls them too);
* this module: passes over the flat arrays of ``tree_layout.KernelLayout`` (``tree_passes``
  states their maths), over a list of information sets in increasing global index (by depth
  level, parents first) and of terminals: the whole tree for a full-width pass, the visited
  part for a sampled one; the update of one pass and the loops of iterations, for single games
  and batches;
* ``sampled_kernel``: the chance-sampled passes (one walk down the sampled subtree, then the
  update of its sets by ``rule_kernel``'s rules, with this module's arithmetic).

One pass updating player i (every player when i = -1) against the current policy sigma:

1. realization plans x of sigma (``realize``);
2. terminal values c_i of the updated player(s) (``add_all_terminal_values`` for every
   terminal, ``add_terminal_values`` for a list), or values handed in by the caller;
3. the backup q, v over the updated player's information sets (``backup``);
4. R(I, a) += q(I, a) - v(I), S(I, a) += w_t reach(I, a) n(I), with w_t = t^gamma and n(I) = 1
   for a full-width pass or the number of visited histories of I for a sampled one;
5. RM+ clipping, discounting, then sigma = regret matching of R at the updated sets (of
   R + r, r = q - v the pass's instantaneous regrets, for a predictive rule).

``update_infosets`` is steps 3-5 (``backup``, then ``update_blocks``, the implementation of
steps 4-5 of the full-width passes; ``fused_kernel`` calls it after its own backup);
``exact_iterations`` (full-width passes, many iterations in one call) and ``hook_update``
(values from a Python hook) call it. ``sampled_kernel.sampled_iterations`` fuses steps 1-5 into
two sweeps over the sampled subtree, with the same sums in the same order.
``exact_batch`` runs ``exact_iterations`` on each of B games that share one layout.

A full-width pass clips every regret under RM+ (as OpenSpiel's CFR+ does after each player's
update); a sampled pass clips only the regrets it updates. Regret matching only changes at the
updated sets: elsewhere the regrets are unchanged, or only clipped, which regret matching
ignores.

Sums run in a fixed order: terminals in list order (for every terminal, in increasing index
per sequence), a block's actions as a_0 + (a_1 + ... + a_{k-1}) (numpy's ``np.add.reduceat``
order for blocks of up to 8 actions), children of a sequence in increasing index per level,
added to the sequence's own value at the end of the level; so the kernel reproduces the numpy
engine it replaced bit for bit (``tests/test_algorithms/cfr/numpy_reference.py``).
"""

from typing import Tuple

import numpy as np

from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.rule_kernel import KernelRule
from algorithms.cfr.rule_kernel import averaging_weight
from algorithms.cfr.rule_kernel import end_block_update
from algorithms.cfr.rule_kernel import iteration_weights
from algorithms.cfr.rule_kernel import match_block  # noqa: F401  (where older callers find it)
from algorithms.tree.tree_layout import KernelLayout

# Passes ------------------------------------------------------------------------------------


@kernel
def realize(lay: KernelLayout, sigma: np.ndarray, x: np.ndarray, infosets: np.ndarray, lo: int,
            hi: int) -> None:
  """x[(I, a)] = x[parent(I)] sigma(I, a) for I in ``infosets[lo:hi]``, in that order.

  The list must put every set after the set of its parent sequence (increasing global index
  does); x must hold 1 on the empty sequences.
  """
  for m in range(lo, hi):  # Top-down: each set after its parent sequence's set.
    k = infosets[m]
    parent = x[lay.infoset_parent[k]]  # x[parent(I)] = pi_i(I), the owner's reach of I
    start = lay.infoset_start[k]
    for s in range(start, start + lay.infoset_num_actions[k]):
      x[s] = parent * sigma[s]  # x[(I, a)] = x[parent(I)] sigma(I, a)


@kernel
def add_terminal_values(lay: KernelLayout, x: np.ndarray, weights: np.ndarray, player: int,
                        terminals: np.ndarray, lo: int, hi: int, c: np.ndarray) -> None:
  """c[seq_i(z)] += w_i(z) prod_{j != i} x[seq_j(z)] for z in ``terminals[lo:hi]``.

  Args:
    lay: the layout.
    x: realization plans (G,).
    weights: (T, N) terminal weights w_p(z), indexed by terminal.
    player: the player i, or -1 for every player (their sequences are disjoint).
    terminals: the terminals, in the order their terms are added.
    lo: the first terminal of ``terminals`` added.
    hi: one past the last.
    c: (G,) the values, added to.
  """
  n = lay.num_players
  seq = lay.terminal_seq
  for m in range(lo, hi):
    z = terminals[m]
    for i in range(n):
      if player >= 0 and i != player:
        continue
      value = weights[z, i]  # w_i(z): u_i(z) pi_c(z), or u_i(z) for a sampled z
      for j in range(n):
        if j != i:
          value = value * x[seq[z, j]]  # * x[seq_j(z)]: the other players' reach of z
      c[seq[z, i]] += value  # c_i[seq_i(z)] += w_i(z) prod_{j != i} x[seq_j(z)]


@kernel
def player_weights(lay: KernelLayout, weights: np.ndarray) -> np.ndarray:
  """(N, T): row i is w_i(z) of the terminals in player i's order (``player_terminals``)."""
  n = lay.num_players
  order = lay.player_terminals
  out = np.empty(order.shape)
  for i in range(n):
    for m in range(order.shape[1]):
      out[i, m] = weights[order[i, m], i]  # w_i(z) of player i's m-th terminal z
  return out


@kernel
def add_all_terminal_values(lay: KernelLayout, x: np.ndarray, sorted_weights: np.ndarray,
                            player: int, c: np.ndarray) -> None:
  """``add_terminal_values`` over every terminal, on a c that is 0 on the updated sequences.

  The terminals run in each player's order (``player_terminals``), so that each sequence's
  terms are consecutive: they are summed in a register, in increasing terminal index as
  ``add_terminal_values`` sums them, and written once.

  Args:
    lay: the layout.
    x: realization plans (G,).
    sorted_weights: ``player_weights`` of the terminal weights.
    player: the player i, or -1 for every player.
    c: (G,) the values, 0 on the updated players' sequences on entry.
  """
  n = lay.num_players
  for i in range(n):
    if player >= 0 and i != player:
      continue
    seq = lay.player_terminal_seq[i]  # seq[m, j]: player j's sequence at terminal m.
    weights = sorted_weights[i]
    count = seq.shape[0]
    m = 0
    while m < count:
      s = seq[m, i]  # s = seq_i(z), shared by a run of terminals
      total = 0.0
      if n == 2:  # The common case without the inner loop.
        while m < count and seq[m, i] == s:
          total += weights[m] * x[seq[m, 1 - i]]  # w_i(z) x[seq_{1-i}(z)]
          m += 1
      else:
        while m < count and seq[m, i] == s:
          value = weights[m]  # w_i(z)
          for j in range(n):
            if j != i:
              value = value * x[seq[m, j]]  # * x[seq_j(z)], j != i
          total += value  # w_i(z) prod_{j != i} x[seq_j(z)]
          m += 1
      c[s] += total  # c_i[s] += sum_{z: seq_i(z) = s} w_i(z) prod_{j != i} x[seq_j(z)]


@kernel
def backup(lay: KernelLayout, c: np.ndarray, sigma: np.ndarray, v: np.ndarray, acc: np.ndarray,
           infosets: np.ndarray, lo: int, hi: int, best: bool) -> None:
  """Bottom-up values over ``infosets[lo:hi]`` (increasing global index); c becomes q.

  v(I) = sum_a sigma(I, a) q(I, a) (``block_sum`` order), or max_a q(I, a) if ``best``, with
  q(I, a) = c[(I, a)] + sum_{J listed: parent(J) = (I, a)} v(J). Levels are processed deepest
  first; within a level the children's values are summed in list order into ``acc`` (all zero
  on entry and on return) and then added to their parent's c. The parent sequences of the
  top-level sets (the empty ones included) receive their sums too.
  """
  m = hi
  while m > lo:  # Bottom-up: one depth level per round, deepest first.
    level = lay.infoset_level[infosets[m - 1]]
    first = m - 1
    while first > lo and lay.infoset_level[infosets[first - 1]] == level:
      first -= 1
    # The level's c already holds q: deeper levels were added to it.
    for q in range(first, m):
      k = infosets[q]
      start = lay.infoset_start[k]
      size = lay.infoset_num_actions[k]
      if best:
        value = c[start]
        for s in range(start + 1, start + size):
          value = max(value, c[s])  # v(I) = max_a q(I, a): the best response
      else:
        rest = 0.0
        for s in range(start + 1, start + size):
          rest += sigma[s] * c[s]  # sum_{a > 0} sigma(I, a) q(I, a)
        value = sigma[start] * c[start] + rest  # v(I) = sum_a sigma(I, a) q(I, a)
      v[k] = value
      acc[lay.infoset_parent[k]] += value  # acc[parent(I)] += v(I)
    for q in range(first, m):
      parent = lay.infoset_parent[infosets[q]]
      c[parent] += acc[parent]  # q(I', a') = c[(I', a')] + sum_{J: parent(J) = (I', a')} v(J)
      acc[parent] = 0.0  # Reset: a parent shared in the level adds once.
    m = first


@kernel
def regrets_from_values(lay: KernelLayout, c: np.ndarray, v: np.ndarray) -> None:
  """c[(I, a)] -= v(I) on every sequence, 0 on the empty ones: q becomes r (step 4)."""
  c[:lay.num_players] = 0.0  # r = 0 on the empty sequences
  for k in range(len(lay.infoset_start)):
    start = lay.infoset_start[k]
    for s in range(start, start + lay.infoset_num_actions[k]):
      c[s] -= v[k]  # r(I, a) = q(I, a) - v(I)


@kernel
def policy_values(lay: KernelLayout, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
  """Each player's expected utility sum_z w_i(z) prod_p x[seq_p(z)] (N,), terminals in order."""
  n = lay.num_players
  seq = lay.terminal_seq
  out = np.zeros(n)
  for z in range(seq.shape[0]):
    reach = 1.0
    for p in range(n):
      reach *= x[seq[z, p]]  # prod_p x[seq_p(z)]: the players' reach of z
    for i in range(n):
      out[i] += weights[z, i] * reach  # v_i += w_i(z) prod_p x[seq_p(z)]
  return out


@kernel
def best_response_values(lay: KernelLayout, weights: np.ndarray, sigma: np.ndarray
                         ) -> np.ndarray:
  """Each player's best-response value against the others' part of ``sigma`` (N,).

  Player i's terminal values against the others' plans, the best-response backup over i's
  information sets, and the value of i's empty sequence (global sequence i).
  """
  n = lay.num_players
  g = len(sigma)
  x = np.empty(g)
  x[:n] = 1.0  # x[empty_p] = 1
  ptr = lay.pass_infoset_ptr
  realize(lay, sigma, x, lay.pass_infosets, ptr[n], ptr[n + 1])  # x of every player, top-down
  c = np.empty(g)
  v = np.empty(len(lay.infoset_start))
  acc = np.zeros(g)
  out = np.empty(n)
  sorted_weights = player_weights(lay, weights)
  for i in range(n):
    c[:] = 0.0
    add_all_terminal_values(lay, x, sorted_weights, i, c)  # c_i against the others' x
    backup(lay, c, sigma, v, acc, lay.pass_infosets, ptr[i], ptr[i + 1], True)  # max_a q
    out[i] = c[i]  # BR_i = q(empty_i), i's best-response value
  return out


# The update and the iterations --------------------------------------------------------------


@kernel
def update_infosets(lay: KernelLayout, rule: KernelRule, t: int, c: np.ndarray,
                    reach: np.ndarray, visits: np.ndarray, sigma: np.ndarray,
                    regrets: np.ndarray, cumulative: np.ndarray, infosets: np.ndarray, lo: int,
                    hi: int, clip_all: bool, v: np.ndarray, acc: np.ndarray) -> None:
  """``update_rule_infosets`` for a rule without state (``UpdateRule.memory`` (0, 0): every
  rule but APCFR+), as the chance-sampled passes run."""
  update_rule_infosets(lay, rule, t, c, reach, visits, sigma, regrets, cumulative,
                       regrets[:0].reshape((0, 0)), infosets, lo, hi, clip_all, v, acc)


@kernel
def update_rule_infosets(lay: KernelLayout, rule: KernelRule, t: int, c: np.ndarray,
                         reach: np.ndarray, visits: np.ndarray, sigma: np.ndarray,
                         regrets: np.ndarray, cumulative: np.ndarray, memory: np.ndarray,
                         infosets: np.ndarray, lo: int, hi: int, clip_all: bool, v: np.ndarray,
                         acc: np.ndarray) -> None:
  """Steps 3-5 of the module docstring at ``infosets[lo:hi]`` (increasing global index).

  Args:
    lay: the layout.
    rule: the update rule.
    t: the iteration, for w_t and the discounts.
    c: (G,) terminal values of the updated players; becomes q.
    reach: (G,) own-reach weights of the average (the pass's plans x for CFR).
    visits: (K,) n(I) of the average's increment.
    sigma: (G,) the current strategy, updated in place.
    regrets: (G,) the cumulative regrets, updated in place.
    cumulative: (G,) the cumulative (average) strategy, updated in place.
    memory: the rule's state (``UpdateRule.memory``), updated in place.
    infosets: the updated information sets are ``infosets[lo:hi]``.
    lo: the first of them.
    hi: one past the last.
    clip_all: under RM+, clip every regret (else only the updated ones).
    v: (K,) scratch.
    acc: (G,) scratch, zero on entry and on return.
  """
  backup(lay, c, sigma, v, acc, infosets, lo, hi, False)  # Step 3: c -> q, v = sum_a sigma q
  # Steps 4-5: R += q - v, S += w_t reach n(I); RM+, discounts; sigma.
  update_blocks(lay, rule, t, c, v, reach, visits, sigma, regrets, cumulative, memory, infosets,
                lo, hi, clip_all)


@kernel
def update_blocks(lay: KernelLayout, rule: KernelRule, t: int, q: np.ndarray, v: np.ndarray,
                  reach: np.ndarray, visits: np.ndarray, sigma: np.ndarray,
                  regrets: np.ndarray, cumulative: np.ndarray, memory: np.ndarray,
                  infosets: np.ndarray, lo: int, hi: int, clip_all: bool) -> None:
  """Steps 4-5 at ``infosets[lo:hi]`` from their q (G,) and v (K,) (``update_infosets``).

  S(I, a) += w_t reach(I, a) n(I) and ``end_block_update`` at each set; under RM+ with
  ``clip_all``, then R = max(R, 0) on every set. Other arguments as ``update_infosets``.
  """
  w, positive, negative = iteration_weights(rule, t)  # w_t and the discounts of iteration t
  for m in range(lo, hi):
    k = infosets[m]
    update_set(lay, rule, k, q, v[k], reach, visits[k], w, positive, negative, sigma, regrets,
               cumulative, memory)
  if clip_all:
    clip_others(rule, regrets, lay.num_players)


@kernel(inline=True)
def update_set(lay: KernelLayout, rule: KernelRule, k: int, q: np.ndarray, value: float,
               reach: np.ndarray, count: float, w: float, positive: float, negative: float,
               sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
               memory: np.ndarray) -> None:
  """Steps 4-5 at information set k, with v(I) = ``value`` and n(I) = ``count``.

  S(I, a) += w_t reach(I, a) n(I), then ``end_block_update`` (R += q - v; RM+, discounts;
  sigma). The one per-set update of every flat pass (``update_blocks``, ``fused_kernel``).
  """
  starts, sizes = lay.infoset_start, lay.infoset_num_actions
  # starts[k] and sizes[k] are read again below: one local for both uses ran leduc_poker's
  # update 5x slower with the uint32 indices of tree_layout.SweepLayout (measured).
  for s in range(starts[k], starts[k] + sizes[k]):
    # reach(I, a) = x[(I, a)] = pi_i(I) sigma(I, a) for CFR.
    cumulative[s] += w * (reach[s] * count)  # S(I, a) += w_t reach(I, a) n(I)
  end_block_update(rule, q, value, regrets, sigma, memory, starts[k], sizes[k], positive,
                   negative)


@kernel(inline=True)
def clip_others(rule: KernelRule, regrets: np.ndarray, num_players: int) -> None:
  """Under RM+, R = max(R, 0) on every set: after a full-width run's first pass, the sets it
  did not update (the updated ones are clipped already)."""
  if rule.regret_matching_plus:
    for s in range(num_players, len(regrets)):
      regrets[s] = max(regrets[s], 0.0)  # R = max(R, 0) on every set


@kernel
def average_increment(lay: KernelLayout, rule: KernelRule, t: int, reach: np.ndarray,
                      player: int) -> np.ndarray:
  """The numerators' increment w_t reach[s] on ``player``'s sequences (-1: all), else 0 (G,).

  The increment ``update_infosets`` adds for a full-width pass, in the same arithmetic.
  """
  out = np.zeros(len(reach))
  w = averaging_weight(t, rule.averaging_gamma)  # w_t = t^gamma
  n = lay.num_players
  group = player if player >= 0 else n
  for q in range(lay.pass_infoset_ptr[group], lay.pass_infoset_ptr[group + 1]):
    k = lay.pass_infosets[q]
    start = lay.infoset_start[k]
    for s in range(start, start + lay.infoset_num_actions[k]):
      out[s] = w * reach[s]  # w_t reach(I, a), S's increment with n(I) = 1
  return out


@kernel
def hook_update(lay: KernelLayout, rule: KernelRule, t: int, c: np.ndarray, reach: np.ndarray,
                player: int, sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                memory: np.ndarray) -> None:
  """One full-width pass of ``player`` (-1: all) with terminal values ``c`` from the caller."""
  n = lay.num_players
  group = player if player >= 0 else n
  k = len(lay.infoset_start)
  # Steps 3-5 at the player's sets, n(I) = 1 (full width); RM+ clips every regret.
  update_rule_infosets(lay, rule, t, c, reach, np.ones(k), sigma, regrets, cumulative, memory,
                       lay.pass_infosets, lay.pass_infoset_ptr[group],
                       lay.pass_infoset_ptr[group + 1], True, np.empty(k), np.zeros(len(c)))


@kernel
def exact_iterations(lay: KernelLayout, rule: KernelRule, weights: np.ndarray,
                     sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                     memory: np.ndarray, iteration: int, count: int) -> None:
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
  sorted_weights = player_weights(lay, weights)  # w_i(z) = u_i(z) pi_c(z)
  x = np.empty(g)
  x[:n] = 1.0  # x[empty_p] = 1
  realize(lay, sigma, x, lay.pass_infosets, ptr[n], ptr[n + 1])  # Step 1: x of sigma, top-down
  c = np.empty(g)
  v = np.empty(k)
  acc = np.zeros(g)
  ones = np.ones(k)  # n(I) = 1: a full-width pass visits all
  passes = n if rule.alternating else 1
  for it in range(count):
    t = iteration + it + 1  # t of w_t and the discounts
    for p in range(passes):
      player = p if rule.alternating else -1  # i = p, or every player (-1)
      group = player if player >= 0 else n
      c[:] = 0.0
      add_all_terminal_values(lay, x, sorted_weights, player, c)  # Step 2: c_i
      # Steps 3-5: q, v; R += q - v; S += w_t x; clip, discount; sigma.
      update_rule_infosets(lay, rule, t, c, x, ones, sigma, regrets, cumulative, memory,
                           lay.pass_infosets, ptr[group], ptr[group + 1], True, v, acc)
      realize(lay, sigma, x, lay.pass_infosets, ptr[group], ptr[group + 1])  # x of the new sigma


@kernel
def exact_batch(lay: KernelLayout, rule: KernelRule, weights: np.ndarray, sigma: np.ndarray,
                regrets: np.ndarray, cumulative: np.ndarray, memory: np.ndarray,
                iterations: np.ndarray, games: np.ndarray, count: int) -> None:
  """``exact_iterations`` on each listed game b (rows b of the (B, ...) arrays, ``memory[b]``
  its rule's state); advances ``iterations[b]`` by ``count``."""
  for b in games:
    exact_iterations(lay, rule, weights[b], sigma[b], regrets[b], cumulative[b], memory[b],
                     iterations[b], count)
    iterations[b] += count  # t of game b


@kernel
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
    best[b] = best_response_values(lay, weights[b], sigma[b])  # BR_i against sigma_b
    realize(lay, sigma[b], x, lay.pass_infosets, ptr[n], ptr[n + 1])  # x of sigma_b
    on_policy[b] = policy_values(lay, weights[b], x)  # v_i of sigma_b
  return best, on_policy
