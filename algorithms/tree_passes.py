"""The passes of a CFR iteration and of a best response, compiled, over the flat layout.

Each pass reads the flat arrays of ``tree_layout.KernelLayout`` and runs over a list of
information sets in increasing global index (by depth level, parents first) and a list of
terminals: the whole tree for a full-width pass, the visited part for a sampled one
(``cfr_kernel``). With G global sequences, K information sets and T terminals
(``docs/tree_layout.md``):

1. ``realize``, top-down: x[(I, a)] = x[parent(I)] sigma(I, a), x[empty] = 1.
2. ``add_terminal_values``: c_i[s] += sum_{z: seq_i(z) = s} w_i(z) prod_{j != i} x[seq_j(z)],
   with terminal weights w_i(z) = u_i(z) pi_c(z) for the exact pass
   (``TreeArrays.weighted_utility``) and u_i(z) for a chance-sampled one.
3. ``backup``, bottom-up level by level: q(I, a) = c[(I, a)] + sum_{J: parent(J) = (I, a)} v(J),
   v(I) = sum_a sigma(I, a) q(I, a), or v(I) = max_a q(I, a) for a best response.
4. regrets r(I, a) = q(I, a) - v(I) (``cfr_kernel``).

q and v are counterfactual values (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization
in games with incomplete information", NeurIPS 2007): they carry the reach of chance and of the
other players, not of the player who owns I. The best-response backup is the sequence-form best
response (e.g. Johanson, Waugh, Bowling, Zinkevich, "Accelerating best response calculation in
large extensive games", IJCAI 2011). Regret matching and the cumulative updates are in
``regret_matching`` and ``cfr_kernel``.

Sums run in a fixed order: terminals in list order, a block's actions as
``regret_matching.block_sum``, children of a sequence in increasing index per level, added to
the sequence's own value at the end of the level; so the kernel reproduces the numpy engine it
replaced bit for bit (``tests/numpy_reference.py``).

The Python functions at the end (``realization``, ``terminal_values``, ``backup``,
``best_response_backup``, ``counterfactual_regrets``) run these passes on a whole
``TreeArrays`` for callers outside the kernel (CFR-AVG, leaf solvers, the evaluator).
"""

from typing import Optional

import numba
import numpy as np

from algorithms.tree_layout import KernelLayout, TreeArrays


@numba.njit(cache=True, error_model="numpy")
def realize(lay: KernelLayout, sigma: np.ndarray, x: np.ndarray, infosets: np.ndarray, lo: int,
            hi: int) -> None:
  """x[(I, a)] = x[parent(I)] sigma(I, a) for I in ``infosets[lo:hi]``, in that order.

  The list must put every set after the set of its parent sequence (increasing global index
  does); x must hold 1 on the empty sequences.
  """
  for m in range(lo, hi):
    k = infosets[m]
    parent = x[lay.infoset_parent[k]]
    start = lay.infoset_start[k]
    for s in range(start, start + lay.infoset_num_actions[k]):
      x[s] = parent * sigma[s]


@numba.njit(cache=True, error_model="numpy")
def add_terminal_values(lay: KernelLayout, x: np.ndarray, weights: np.ndarray, player: int,
                        terminals: np.ndarray, lo: int, hi: int, c: np.ndarray) -> None:
  """c[seq_i(z)] += w_i(z) prod_{j != i} x[seq_j(z)] for z in ``terminals[lo:hi]``.

  Args:
    lay: the layout.
    x: realization plans (G,).
    weights: (T, N) terminal weights w_p(z), indexed by terminal.
    player: the player i, or -1 for every player (their sequences are disjoint).
    terminals, lo, hi: the terminals, in the order their terms are added.
    c: (G,) the values, added to.
  """
  n = lay.num_players
  seq = lay.terminal_seq
  for m in range(lo, hi):
    z = terminals[m]
    for i in range(n):
      if player >= 0 and i != player:
        continue
      value = weights[z, i]
      for j in range(n):
        if j != i:
          value = value * x[seq[z, j]]
      c[seq[z, i]] += value


@numba.njit(cache=True, error_model="numpy")
def player_weights(lay: KernelLayout, weights: np.ndarray) -> np.ndarray:
  """(N, T): row i is w_i(z) of the terminals in player i's order (``player_terminals``)."""
  n = lay.num_players
  order = lay.player_terminals
  out = np.empty(order.shape)
  for i in range(n):
    for m in range(order.shape[1]):
      out[i, m] = weights[order[i, m], i]
  return out


@numba.njit(cache=True, error_model="numpy")
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
    seq = lay.player_terminal_seq[i]
    weights = sorted_weights[i]
    count = seq.shape[0]
    m = 0
    while m < count:
      s = seq[m, i]
      total = 0.0
      if n == 2:  # The common case without the inner loop.
        while m < count and seq[m, i] == s:
          total += weights[m] * x[seq[m, 1 - i]]
          m += 1
      else:
        while m < count and seq[m, i] == s:
          value = weights[m]
          for j in range(n):
            if j != i:
              value = value * x[seq[m, j]]
          total += value
          m += 1
      c[s] += total


@numba.njit(cache=True, error_model="numpy")
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
  while m > lo:
    level = lay.infoset_level[infosets[m - 1]]
    first = m - 1
    while first > lo and lay.infoset_level[infosets[first - 1]] == level:
      first -= 1
    for q in range(first, m):
      k = infosets[q]
      start = lay.infoset_start[k]
      size = lay.infoset_num_actions[k]
      if best:
        value = c[start]
        for s in range(start + 1, start + size):
          value = max(value, c[s])
      else:
        rest = 0.0
        for s in range(start + 1, start + size):
          rest += sigma[s] * c[s]
        value = sigma[start] * c[start] + rest
      v[k] = value
      acc[lay.infoset_parent[k]] += value
    for q in range(first, m):
      parent = lay.infoset_parent[infosets[q]]
      c[parent] += acc[parent]
      acc[parent] = 0.0
    m = first


@numba.njit(cache=True, error_model="numpy")
def _regrets(lay: KernelLayout, c: np.ndarray, v: np.ndarray) -> None:
  """c[(I, a)] -= v(I) on every sequence, 0 on the empty ones: q becomes r."""
  c[:lay.num_players] = 0.0
  for k in range(len(lay.infoset_start)):
    start = lay.infoset_start[k]
    for s in range(start, start + lay.infoset_num_actions[k]):
      c[s] -= v[k]


@numba.njit(cache=True, error_model="numpy")
def policy_values(lay: KernelLayout, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
  """Each player's expected utility sum_z w_i(z) prod_p x[seq_p(z)] (N,), terminals in order."""
  n = lay.num_players
  seq = lay.terminal_seq
  out = np.zeros(n)
  for z in range(seq.shape[0]):
    reach = 1.0
    for p in range(n):
      reach *= x[seq[z, p]]
    for i in range(n):
      out[i] += weights[z, i] * reach
  return out


@numba.njit(cache=True, error_model="numpy")
def best_response_values(lay: KernelLayout, weights: np.ndarray, sigma: np.ndarray
                         ) -> np.ndarray:
  """Each player's best-response value against the others' part of ``sigma`` (N,).

  Player i's terminal values against the others' plans, the best-response backup over i's
  information sets, and the value of i's empty sequence (global sequence i).
  """
  n = lay.num_players
  g = len(sigma)
  x = np.empty(g)
  x[:n] = 1.0
  ptr = lay.pass_infoset_ptr
  realize(lay, sigma, x, lay.pass_infosets, ptr[n], ptr[n + 1])
  c = np.empty(g)
  v = np.empty(len(lay.infoset_start))
  acc = np.zeros(g)
  out = np.empty(n)
  sorted_weights = player_weights(lay, weights)
  for i in range(n):
    c[:] = 0.0
    add_all_terminal_values(lay, x, sorted_weights, i, c)
    backup(lay, c, sigma, v, acc, lay.pass_infosets, ptr[i], ptr[i + 1], True)
    out[i] = c[i]
  return out


# Whole-tree passes for Python callers ------------------------------------------------------


def _all_infosets(layout: TreeArrays):
  lay = layout.kernel
  n = lay.num_players
  return lay.pass_infosets, int(lay.pass_infoset_ptr[n]), int(lay.pass_infoset_ptr[n + 1])


def realization(layout: TreeArrays, sigma: np.ndarray) -> np.ndarray:
  """Every player's realization plan of the behavioural policy ``sigma`` (G,), in one array."""
  x = np.empty(layout.num_sequences)
  x[:layout.num_players] = 1.0
  realize(layout.kernel, np.ascontiguousarray(sigma, dtype=np.float64), x,
          *_all_infosets(layout))
  return x


def terminal_values(layout: TreeArrays, x: np.ndarray, weights: np.ndarray,
                    player: Optional[int], terminals: Optional[np.ndarray] = None) -> np.ndarray:
  """Terminal counterfactual values c (G,) of ``player``, or of every player if None.

  c[s] = sum_{z: seq_i(z) = s} w_i(z) prod_{j != i} x[seq_j(z)] on player i's sequences (its
  empty sequence included), summed over the players i asked for; 0 elsewhere.

  Args:
    layout: the tree layout.
    x: realization plans (G,).
    weights: (T, N) terminal weights w_p(z), e.g. ``weighted_utility``; with ``terminals``, one
      row per listed terminal.
    player: the player i, or None for all players.
    terminals: if given, only these terminals enter the sums (the others weigh 0).
  """
  lay = layout.kernel
  weights = np.asarray(weights, dtype=np.float64)
  if terminals is None:
    terminals = lay.all_terminals
    table = np.ascontiguousarray(weights)
  else:
    terminals = np.asarray(terminals, dtype=np.int64)
    table = np.zeros((layout.num_terminals, layout.num_players))
    table[terminals] = weights
  c = np.zeros(layout.num_sequences)
  x = np.ascontiguousarray(x, dtype=np.float64)
  player = -1 if player is None else int(player)
  if terminals is lay.all_terminals:
    add_all_terminal_values(lay, x, player_weights(lay, table), player, c)
  else:
    add_terminal_values(lay, x, table, player, terminals, 0, len(terminals), c)
  return c


def _backup(layout: TreeArrays, c: np.ndarray, sigma: Optional[np.ndarray]) -> np.ndarray:
  if c.dtype != np.float64 or not c.flags.c_contiguous:
    raise ValueError("c must be a contiguous float64 array (it is updated in place)")
  v = np.empty(layout.num_infosets)
  best = sigma is None
  sigma = c if best else np.ascontiguousarray(sigma, dtype=np.float64)
  backup(layout.kernel, c, sigma, v, np.zeros(layout.num_sequences), *_all_infosets(layout),
         best)
  return v


def backup_values(layout: TreeArrays, c: np.ndarray, sigma: np.ndarray) -> np.ndarray:
  """Bottom-up counterfactual values over the whole tree; ``c`` becomes q in place, returns v.

  The empty sequences end with the root values sum_{J at depth 0} v(J) + c[empty].
  """
  return _backup(layout, c, sigma)


def best_response_backup(layout: TreeArrays, c: np.ndarray) -> np.ndarray:
  """As ``backup_values`` with v(I) = max_a q(I, a); returns v (K,).

  With c the terminal values of player i against the others' plans, player i's empty sequence
  ends with i's best-response value.
  """
  return _backup(layout, c, None)


def counterfactual_regrets(layout: TreeArrays, c: np.ndarray, sigma: np.ndarray) -> np.ndarray:
  """Instantaneous counterfactual regrets r(I, a) = q(I, a) - v(I) from terminal values c.

  ``c`` is consumed (it becomes r in place and is returned); r is 0 on the empty sequences and
  on every sequence whose c and descendants' c are 0, e.g. those of the players not updated.
  """
  v = _backup(layout, c, sigma)
  _regrets(layout.kernel, c, v)
  return c

