"""Full-width CFR iterations with a pass's terminal values, backup and update in one sweep.

``cfr_kernel.exact_iterations`` runs steps 2 and 3 of a pass (``cfr_kernel`` docstring) as
two passes: the terminal values into a zeroed c, then the backup level by level, with the
children's values gathered in a scratch array. ``fused_iterations`` computes the same q and v
in one sweep over the updated player's information sets, children before parents (decreasing
global index, so deepest level first): at each set I with sequences s = (I, a),

  q(I, a) = c_i[s] + sum_{J: parent(J) = s} v(J),   v(I) = sum_a sigma(I, a) q(I, a),

with c_i[s] = sum_{z: seq_i(z) = s} u_i(z) pi_c(z) prod_{j != i} x[seq_j(z)] one contiguous
run of s's terminal entries and the children J found in a CSR list (``tree_layout.SweepLayout``,
unsigned 32-bit indices). Steps 4-5 follow at each set in the same sweep, as soon as its q
and v are known, through ``cfr_kernel.update_set`` (the one per-set update of every flat
pass, ``update_blocks``' too); step 1 is ``cfr_kernel.realize``; both on the sweep layout's
indices.

Every sum runs in ``cfr_kernel``'s order (terminals in increasing index per sequence, added to
c = 0; a sequence's children in increasing index, added to its terminal value at the end; a
block's actions as a_0 + (a_1 + ... + a_{k-1})) and regret matching keeps its division, so the
results equal ``exact_iterations``' bit for bit (``test_fused_kernel.py`` in
``tests/test_algorithms/cfr``).
"""

import numpy as np

from algorithms.cfr.cfr_kernel import clip_others
from algorithms.cfr.cfr_kernel import realize
from algorithms.cfr.cfr_kernel import update_set
from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.rule_kernel import KernelRule
from algorithms.cfr.rule_kernel import iteration_weights
from algorithms.tree.tree_layout import SweepLayout


@kernel
def entry_weights(sweep: SweepLayout, weights: np.ndarray) -> np.ndarray:
  """(E,) w_p(z) = u_p(z) pi_c(z) of every entry (p, z), in entry order."""
  out = np.empty(len(sweep.entry_terminal))
  for e in range(len(out)):
    out[e] = weights[sweep.entry_terminal[e], sweep.entry_player[e]]  # w_p(z) of entry (p, z)
  return out


@kernel
def sweep_pass(sweep: SweepLayout, rule: KernelRule, wts: np.ndarray, x: np.ndarray,
               sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
               memory: np.ndarray, q: np.ndarray, v: np.ndarray, t: int, lo: int,
               hi: int) -> None:
  """Steps 2-5 at ``pass_infosets[lo:hi]`` in one bottom-up sweep (module docstring).

  At each set, once its q and v are known, ``cfr_kernel.update_set`` updates its regrets,
  numerators and policy: nothing later in the sweep reads them (a parent's q takes the child's
  v, computed before the update; the entries read the other players' x, which only the next
  ``realize`` changes), so updating set by set gives ``update_blocks``' numbers.

  Args:
    sweep: the layout.
    rule: the update rule.
    wts: ``entry_weights``.
    x: (G,) the plans of the current policy.
    sigma: (G,) the current policy; the updated sets' new policy on return.
    regrets: (G,) cumulative regrets, updated at the sets.
    cumulative: (G,) average-policy numerators, updated at the sets.
    memory: the rule's state (``UpdateRule.memory``), updated at the sets.
    q: (G,) scratch: q(I, a) on the sets' sequences.
    v: (K,) scratch: v(I) of the sets.
    t: the iteration of the pass.
    lo: the first set in ``pass_infosets``.
    hi: one past the last.
  """
  w, positive, negative = iteration_weights(rule, t)  # w_t and the discounts of iteration t
  infosets, starts, sizes = sweep.pass_infosets, sweep.infoset_start, sweep.infoset_num_actions
  entry_ptr, others = sweep.seq_entry_ptr, sweep.entry_others
  child_ptr, children = sweep.child_ptr, sweep.child_infosets
  width = sweep.num_players - 1  # Other players per entry.
  for m in range(hi - 1, lo - 1, -1):  # Bottom-up: every child set J before its parent.
    k = infosets[m]
    start, size = starts[k], sizes[k]
    for s in range(start, start + size):
      total = 0.0
      if width == 1:  # Two players, without the inner loop.
        for e in range(entry_ptr[s], entry_ptr[s + 1]):
          total += wts[e] * x[others[e]]  # w_i(z) x[seq_{1-i}(z)]
      else:
        for e in range(entry_ptr[s], entry_ptr[s + 1]):
          value = wts[e]  # w_i(z)
          for j in range(e * width, e * width + width):
            value = value * x[others[j]]  # * x[seq_j(z)], j != i in increasing j
          total += value  # w_i(z) prod_{j != i} x[seq_j(z)]
      value = 0.0 + total  # c_i[s], added to c = 0 as in cfr_kernel
      if child_ptr[s + 1] > child_ptr[s]:
        acc = 0.0
        for j in range(child_ptr[s], child_ptr[s + 1]):
          acc += v[children[j]]  # sum_{J: parent(J) = s} v(J), in increasing J
        value += acc  # q(I, a) = c_i[(I, a)] + sum_{J: parent(J) = (I, a)} v(J)
      q[s] = value
    rest = 0.0
    for s in range(start + 1, start + size):
      rest += sigma[s] * q[s]  # sum_{a > 0} sigma(I, a) q(I, a)
    v[k] = sigma[start] * q[start] + rest  # v(I) = sum_a sigma(I, a) q(I, a)
    # Steps 4-5 at I, n(I) = 1: S += w_t x; R += q - v; RM+, discounts; sigma.
    update_set(sweep, rule, k, q, v[k], x, 1.0, w, positive, negative, sigma, regrets,
               cumulative, memory)


@kernel
def fused_iterations(sweep: SweepLayout, rule: KernelRule, weights: np.ndarray,
                     sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                     memory: np.ndarray, iteration: int, count: int) -> None:
  """Iterations ``iteration + 1`` .. ``iteration + count`` of full-width CFR, in place.

  The iterations of ``cfr_kernel.exact_iterations`` (``weights`` (T, N) the terminal weights
  u_p(z) pi_c(z)), with steps 2-3 of each pass in one ``values`` sweep. Under RM+ every regret
  is clipped after the first pass only, where ``exact_iterations`` clips all after every pass:
  the same numbers, as from then on every regret stays clipped (an update clips its set's).
  """
  n = sweep.num_players
  ptr = sweep.pass_infoset_ptr
  wts = entry_weights(sweep, weights)  # w_p(z) = u_p(z) pi_c(z)
  x = np.empty(len(sigma))
  x[:n] = 1.0  # x[empty_p] = 1
  realize(sweep, sigma, x, sweep.pass_infosets, ptr[n], ptr[n + 1])  # Step 1: x, top-down
  q = np.empty(len(sigma))
  v = np.empty(len(sweep.infoset_start))
  passes = n if rule.alternating else 1
  for it in range(count):
    t = iteration + it + 1  # t of w_t and the discounts
    for p in range(passes):
      group = p if rule.alternating else n  # Player p's sets, or every set (group N).
      lo, hi = ptr[group], ptr[group + 1]
      # Steps 2-5: c_i, q, v bottom-up; at each set R += q - v, S += w_t x, clip, discount,
      # sigma.
      sweep_pass(sweep, rule, wts, x, sigma, regrets, cumulative, memory, q, v, t, lo, hi)
      if it == 0 and p == 0:
        clip_others(rule, regrets, n)  # RM+: every regret clipped after the first pass
      realize(sweep, sigma, x, sweep.pass_infosets, lo, hi)  # x of the new sigma
