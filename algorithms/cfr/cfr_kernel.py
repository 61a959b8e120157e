"""The compiled CFR kernel: update rules, passes, whole runs of iterations, sampled passes.

The compiled functions of the flat engine (``kernel_compiler.kernel``: numba, cached on disk
and recompiled when any kernel module changes). ``regret_matching``, ``tree_passes``,
``cfr_engine``, ``chance_sampling``, ``batched_solver`` and ``tree_exploitability`` are the
Python side. The update rules of this module (``iteration_weights``, ``end_block_update``) are
the only definition of each rule; ``range_kernel`` calls them too.

Sections:

* update rules per information set (one contiguous block of actions): regret matching (Hart
  and Mas-Colell, "A simple adaptive procedure leading to correlated equilibrium",
  Econometrica 2000), RM+ clipping (Tammelin, "Solving large imperfect information games using
  CFR+", arXiv 1407.5042, 2014), discounting and averaging weights (Brown and Sandholm,
  "Solving imperfect-information games via discounted regret minimization", AAAI 2019), and
  predictive regret matching+ (Farina, Kroer and Sandholm, "Faster game solving via predictive
  Blackwell approachability: connecting regret matching and mirror descent", AAAI 2021), which
  with the discounts gives DCFR+ and PDCFR+ (Xu, Li, Liu, Fu, Fu, Xing and Cheng, "Minimizing
  weighted counterfactual regret with optimistic online mirror descent", IJCAI 2024);
* passes over the flat arrays of ``tree_layout.KernelLayout`` (``tree_passes`` states their
  maths), over a list of information sets in increasing global index (by depth level, parents
  first) and of terminals: the whole tree for a full-width pass, the visited part for a
  sampled one;
* the update of one pass and the loops of iterations, for single games and batches.

One pass updating player i (every player when i = -1) against the current policy sigma:

1. realization plans x of sigma (``realize``);
2. terminal values c_i of the updated player(s) (``add_all_terminal_values`` for every
   terminal, ``add_terminal_values`` for a list), or values handed in by the caller;
3. the backup q, v over the updated player's information sets (``backup``);
4. R(I, a) += q(I, a) - v(I), S(I, a) += w_t reach(I, a) n(I), with w_t = t^gamma and n(I) = 1
   for a full-width pass or the number of visited histories of I for a sampled one;
5. RM+ clipping, discounting, then sigma = regret matching of R at the updated sets (of
   R + r, r = q - v the pass's instantaneous regrets, for a predictive rule).

``update_infosets`` is steps 3-5 (``backup``, then ``update_blocks``, the only implementation
of steps 4-5; ``fused_kernel`` calls it after its own backup); ``exact_iterations``
(full-width passes, many iterations in one call), ``hook_update`` (values from a Python hook)
and ``sampled_iterations`` (chance-sampled passes over the sampled subtree only) all call it.
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

from typing import NamedTuple, Tuple

import numpy as np

from algorithms.cfr.kernel_compiler import kernel
from algorithms.tree.tree_layout import KernelLayout


class KernelRule(NamedTuple):
  """``cfr_engine.UpdateRule`` in the kernel's types (no discount: ``discount`` False)."""

  alternating: bool
  regret_matching_plus: bool
  averaging_gamma: float
  discount: bool
  discount_alpha: float
  discount_beta: float
  discount_constant: float
  predictive: bool


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


# Update rules, per information set -------------------------------------------------------
# The helpers called once per information set by the passes are ``@kernel(inline=True)``: a
# compiled call per set cost leduc_poker's exact iterations 1.3x their time (measured).


@kernel
def block_sum(values: np.ndarray, start: int, size: int) -> float:
  """sum_a values[start + a] as a_0 + (a_1 + ... + a_{size-1}) (module docstring)."""
  rest = 0.0
  for s in range(start + 1, start + size):
    rest += values[s]  # a_1 + ... + a_{k-1}
  return values[start] + rest  # a_0 + (a_1 + ... + a_{k-1}), np.add.reduceat's order


@kernel(inline=True)
def match_block(regrets: np.ndarray, out: np.ndarray, start: int, size: int) -> None:
  """Regret matching of one information set (Hart and Mas-Colell 2000), into ``out``.

  sigma(I, a) = R+(I, a) / sum_b R+(I, b) with R+ = max(R, 0) when the sum is positive, and
  uniform 1 / |A(I)| otherwise, exactly as OpenSpiel's ``cfr._regret_matching``; computed as
  R+ / d + u with (d, u) = (sum, 0) or (1, 1 / |A(I)|), without a branch.
  """
  rest = 0.0
  for s in range(start + 1, start + size):
    rest += max(regrets[s], 0.0)  # sum_{b > 0} R+(I, b), R+ = max(R, 0)
  total = max(regrets[start], 0.0) + rest  # sum_b R+(I, b)
  positive = total > 0.0
  divisor = total if positive else 1.0  # d = sum_b R+(I, b), or 1 when the sum is 0
  uniform = 0.0 if positive else 1.0 / size  # u = 0, or 1 / |A(I)| when the sum is 0
  for s in range(start, start + size):
    out[s] = max(regrets[s], 0.0) / divisor + uniform  # sigma(I, a) = R+(I, a) / d + u


@kernel
def normalize_block(cumulative: np.ndarray, out: np.ndarray, start: int, size: int) -> None:
  """The average policy of one information set, into ``out``.

  sigma_bar(I, a) = S(I, a) / sum_b S(I, b), uniform where the sum is zero (an information set
  never reached), as OpenSpiel's ``cfr._update_average_policy``; numerators are >= 0.
  """
  total = block_sum(cumulative, start, size)  # sum_b S(I, b)
  positive = total > 0.0
  divisor = total if positive else 1.0  # sum_b S(I, b), or 1 at a set never reached
  uniform = 0.0 if positive else 1.0 / size  # 0, or 1 / |A(I)| at a set never reached
  for s in range(start, start + size):
    out[s] = cumulative[s] / divisor + uniform  # sigma_bar(I, a) = S(I, a) / sum_b S(I, b)


@kernel
def discount_factors(iteration: int, alpha: float, beta: float,
                     constant: float) -> Tuple[float, float]:
  """Discounted CFR's regret discounts after iteration t (Brown and Sandholm 2019).

  Positive (and zero) cumulative regrets are multiplied by t^alpha / (t^alpha + c), negative
  ones by t^beta / (t^beta + c). c = 1 is DCFR's factor (Brown and Sandholm 2019), as
  OpenSpiel's ``discounted_cfr``, and DCFR+'s and PDCFR+'s (Xu et al. 2024);
  alpha = beta = 1 gives linear CFR's regret weighting. c = 1.5 is the factor of the DCFR+ in
  the code Xu et al. released (``end_block_update``). Returns (positive factor, negative
  factor).
  """
  t = float(iteration)
  # DCFR: R >= 0 is scaled by t^alpha / (t^alpha + c), R < 0 by t^beta / (t^beta + c).
  return t**alpha / (t**alpha + constant), t**beta / (t**beta + constant)


@kernel(inline=True)
def discount_block(regrets: np.ndarray, start: int, size: int, positive: float,
                   negative: float) -> None:
  """Applies ``discount_factors`` to one information set's regrets, in place."""
  for s in range(start, start + size):
    # R(I, a) *= t^alpha / (t^alpha + 1) if R(I, a) >= 0, else t^beta / (t^beta + 1)
    regrets[s] *= positive if regrets[s] >= 0.0 else negative


@kernel(inline=True)
def clip_block(regrets: np.ndarray, start: int, size: int) -> None:
  """Regret matching+ (Tammelin 2014): R <- max(R, 0), in place, after each regret update."""
  for s in range(start, start + size):
    regrets[s] = max(regrets[s], 0.0)  # RM+ (CFR+): R(I, a) = max(R(I, a), 0)


@kernel
def averaging_weight(iteration: int, gamma: float) -> float:
  """Weight w_t = t^gamma of iteration t in the average policy.

  gamma = 0 is CFR's uniform average (Zinkevich et al. 2007), gamma = 1 linear averaging (CFR+,
  Tammelin 2014; linear CFR), gamma = 2 discounted CFR's default (Brown and Sandholm 2019).
  """
  if gamma == 0.0:
    return 1.0  # w_t = 1: vanilla CFR's uniform average
  # t^gamma gives the normalised average of DCFR's S *= (t / (t + 1))^gamma per iteration.
  return float(iteration)**gamma  # w_t = t^gamma (1: linear, CFR+; 2: DCFR)




@kernel
def match_blocks(regrets: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                 out: np.ndarray) -> None:
  """``match_block`` of every block (first item ``starts[b]``, ``sizes[b]`` items)."""
  for b in range(len(starts)):
    match_block(regrets, out, starts[b], sizes[b])  # sigma(I, .) = regret matching of R(I, .)


@kernel
def normalize_blocks(cumulative: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                     out: np.ndarray) -> None:
  """``normalize_block`` of every block."""
  for b in range(len(starts)):
    normalize_block(cumulative, out, starts[b], sizes[b])  # sigma_bar(I, .) = S / sum_b S


@kernel
def iteration_weights(rule: KernelRule, t: int) -> Tuple[float, float, float]:
  """The rule's weights of iteration t: (w_t, positive discount, negative discount).

  w_t = t^gamma weights the iteration in the average policy (``averaging_weight``); the
  discounts multiply R >= 0 and R < 0 after the update (``discount_factors``), 1 without
  discounting.
  """
  w = averaging_weight(t, rule.averaging_gamma)  # w_t = t^gamma
  if rule.discount:
    # DCFR: t^alpha / (t^alpha + c) for R >= 0, t^beta / (t^beta + c) for R < 0.
    positive, negative = discount_factors(t, rule.discount_alpha, rule.discount_beta,
                                          rule.discount_constant)
    return w, positive, negative
  return w, 1.0, 1.0


@kernel(inline=True)
def end_block_update(rule: KernelRule, q: np.ndarray, value: float, regrets: np.ndarray,
                     sigma: np.ndarray, start: int, size: int, positive: float,
                     negative: float) -> None:
  """Steps 4 (the regrets) and 5 at one information set I, in place.

  With r(I, a) = q(I, a) - v(I), the pass's instantaneous counterfactual regrets (``q`` is
  indexed like ``regrets``; ``value`` is v(I)):

  * R(I, a) += r(I, a), the cumulative counterfactual regret (Zinkevich et al. 2007);
  * RM+: R = max(R, 0) if the rule asks (Tammelin 2014, CFR+);
  * the discounts of ``iteration_weights``, by R's sign (DCFR, Brown and Sandholm 2019);
  * sigma(I, .) = regret matching of R(I, .), or with a predictive rule of R(I, .) + m(I, .)
    with the prediction m = r, the instantaneous regret just observed (Farina et al. 2021,
    predictive RM+: x^t = [R^{t-1} + m^t]^+ / ||[R^{t-1} + m^t]^+||_1, uniform where the
    norm is 0, after R^t = [R^{t-1} + r^t]^+, with the prediction m^{t+1} = r^t of their
    experiments).

  The rules of the papers, with t the iteration of the pass and d(t) = t^alpha / (t^alpha + c)
  (d(0) = 0), in the form this function stores them:

  * CFR+: R_t = [R_{t-1} + r_t]^+, sigma_{t+1} = RM(R_t);
  * PCFR+ (Farina et al. 2021, PRM+ at every information set, "predictive CFR+"):
    R_t = [R_{t-1} + r_t]^+, sigma_{t+1} = RM([R_t + r_t]^+);
  * DCFR+ (Xu et al. 2024: RM+ on discounted regrets, OMD on weighted regrets):
    Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+, sigma_{t+1} = RM(Rhat_t);
  * PDCFR+ (Xu et al. 2024: predictive RM+ on discounted regrets, optimistic OMD):
    Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+, sigma_{t+1} = RM([d(t) Rhat_t + r_t]^+).

  The discounted rules keep R_t = d(t) Rhat_t, the DCFR convention of discounting after the
  update (as OpenSpiel's ``discounted_cfr``): R_t = d(t) [R_{t-1} + r_t]^+ is "add r, clip,
  discount with t's factor", regret matching is invariant under the scale d(t) > 0, and
  PDCFR+'s prediction d(t) Rhat_t + r_t is R_t + r_t, PCFR+'s prediction on the stored R. Every
  engine (the flat passes here, the range-vector passes of ``range_kernel``) updates an
  information set's regrets and policy with this function, so a rule is defined once.
  """
  for s in range(start, start + size):
    # q, v are counterfactual: they carry pi_{-i}, the others' and chance's reach.
    regrets[s] += q[s] - value  # R(I, a) += r(I, a) = q(I, a) - v(I)
  if rule.regret_matching_plus:
    clip_block(regrets, start, size)  # RM+: R(I, a) = max(R(I, a), 0)
  if rule.discount:
    discount_block(regrets, start, size, positive, negative)  # DCFR: R *= the factor of R's sign
  # The prediction m = lam r with lam = 1 for a predictive rule, 0 otherwise (R + 0 r = R): one
  # regret matching for every rule (a second call in a branch for the predictive rules ran
  # leduc_poker's CFR+ 17% slower, measured).
  lam = 1.0 if rule.predictive else 0.0
  for s in range(start, start + size):
    sigma[s] = regrets[s] + lam * (q[s] - value)  # R(I, a) + m(I, a), m = r: PRM+'s prediction
  # sigma(I, a) = [R + m]+(I, a) / sum_b [R + m]+(I, b), or 1 / |A(I)| if the sum is 0; in
  # place, as each entry is read before it is written.
  match_block(sigma, sigma, start, size)


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
    infosets: the updated information sets are ``infosets[lo:hi]``.
    lo: the first of them.
    hi: one past the last.
    clip_all: under RM+, clip every regret (else only the updated ones).
    v: (K,) scratch.
    acc: (G,) scratch, zero on entry and on return.
  """
  backup(lay, c, sigma, v, acc, infosets, lo, hi, False)  # Step 3: c -> q, v = sum_a sigma q
  # Steps 4-5: R += q - v, S += w_t reach n(I); RM+, discounts; sigma.
  update_blocks(lay, rule, t, c, v, reach, visits, sigma, regrets, cumulative, infosets, lo, hi,
                clip_all)


@kernel
def update_blocks(lay: KernelLayout, rule: KernelRule, t: int, q: np.ndarray, v: np.ndarray,
                  reach: np.ndarray, visits: np.ndarray, sigma: np.ndarray,
                  regrets: np.ndarray, cumulative: np.ndarray, infosets: np.ndarray, lo: int,
                  hi: int, clip_all: bool) -> None:
  """Steps 4-5 at ``infosets[lo:hi]`` from their q (G,) and v (K,) (``update_infosets``).

  S(I, a) += w_t reach(I, a) n(I) and ``end_block_update`` at each set; under RM+ with
  ``clip_all``, then R = max(R, 0) on every set. Other arguments as ``update_infosets``.
  """
  w, positive, negative = iteration_weights(rule, t)  # w_t and the discounts of iteration t
  for m in range(lo, hi):
    k = infosets[m]
    update_set(lay, rule, k, q, v[k], reach, visits[k], w, positive, negative, sigma, regrets,
               cumulative)
  if clip_all:
    clip_others(rule, regrets, lay.num_players)


@kernel(inline=True)
def update_set(lay: KernelLayout, rule: KernelRule, k: int, q: np.ndarray, value: float,
               reach: np.ndarray, count: float, w: float, positive: float, negative: float,
               sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray) -> None:
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
  end_block_update(rule, q, value, regrets, sigma, starts[k], sizes[k], positive, negative)


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
                player: int, sigma: np.ndarray, regrets: np.ndarray,
                cumulative: np.ndarray) -> None:
  """One full-width pass of ``player`` (-1: all) with terminal values ``c`` from the caller."""
  n = lay.num_players
  group = player if player >= 0 else n
  k = len(lay.infoset_start)
  # Steps 3-5 at the player's sets, n(I) = 1 (full width); RM+ clips every regret.
  update_infosets(lay, rule, t, c, reach, np.ones(k), sigma, regrets, cumulative,
                  lay.pass_infosets, lay.pass_infoset_ptr[group],
                  lay.pass_infoset_ptr[group + 1], True, np.empty(k), np.zeros(len(c)))


@kernel
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
      update_infosets(lay, rule, t, c, x, ones, sigma, regrets, cumulative, lay.pass_infosets,
                      ptr[group], ptr[group + 1], True, v, acc)
      realize(lay, sigma, x, lay.pass_infosets, ptr[group], ptr[group + 1])  # x of the new sigma


@kernel
def exact_batch(lay: KernelLayout, rule: KernelRule, weights: np.ndarray, sigma: np.ndarray,
                regrets: np.ndarray, cumulative: np.ndarray, iterations: np.ndarray,
                games: np.ndarray, count: int) -> None:
  """``exact_iterations`` on each listed game b (rows b of the (B, ...) arrays); advances
  ``iterations[b]`` by ``count``."""
  for b in games:
    exact_iterations(lay, rule, weights[b], sigma[b], regrets[b], cumulative[b], iterations[b],
                     count)
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

