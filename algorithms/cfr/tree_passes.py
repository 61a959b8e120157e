"""The passes of a CFR iteration and of a best response over the flat ``TreeArrays`` layout.

The passes are compiled in ``cfr_kernel``; the functions here run them on a whole tree for
callers outside the kernel (CFR-AVG, leaf solvers, public trees, tests). With G global
sequences, K information sets and T terminals (``docs/tree_layout.md``):

1. ``realization``, top-down over the levels: x[(I, a)] = x[parent(I)] sigma(I, a), x[empty] = 1
   (``cfr_kernel.realize``).
2. ``terminal_values``: c_i[s] = sum_{z: seq_i(z) = s} w_i(z) prod_{j != i} x[seq_j(z)], with
   terminal weights w_i(z) = u_i(z) pi_c(z) for the exact pass (``TreeArrays.weighted_utility``)
   (``cfr_kernel.add_all_terminal_values``, ``add_terminal_values``).
3. ``backup_values``, bottom-up over the levels: q(I, a) = c[(I, a)] + sum_{J: parent(J) = (I, a)}
   v(J), v(I) = sum_a sigma(I, a) q(I, a); ``best_response_backup`` takes v(I) = max_a q(I, a)
   (``cfr_kernel.backup``).
4. ``counterfactual_regrets``: r(I, a) = q(I, a) - v(I).

q and v are counterfactual values (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization
in games with incomplete information", NeurIPS 2007): they carry the reach of chance and of the
other players, not of the player who owns I. The best-response backup is the sequence-form best
response (e.g. Johanson, Waugh, Bowling, Zinkevich, "Accelerating best response calculation in
large extensive games", IJCAI 2011). Regret matching and the cumulative updates are in
``cfr_kernel`` (``regret_matching`` for Python callers).
"""

from typing import Optional

import numpy as np

from algorithms.cfr import cfr_kernel
from algorithms.tree.tree_layout import TreeArrays


def _all_infosets(layout: TreeArrays):
  lay = layout.kernel
  n = lay.num_players
  return lay.pass_infosets, int(lay.pass_infoset_ptr[n]), int(lay.pass_infoset_ptr[n + 1])


def realization(layout: TreeArrays, sigma: np.ndarray) -> np.ndarray:
  """Every player's realization plan of the behavioural policy ``sigma`` (G,), in one array."""
  x = np.empty(layout.num_sequences)
  x[:layout.num_players] = 1.0  # x[empty_p] = 1
  # Top-down: x[(I, a)] = x[parent(I)] sigma(I, a).
  cfr_kernel.realize(layout.kernel, np.ascontiguousarray(sigma, dtype=np.float64), x,
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
    table[terminals] = weights  # w_p(z) = 0 off the listed terminals
  c = np.zeros(layout.num_sequences)
  x = np.ascontiguousarray(x, dtype=np.float64)
  player = -1 if player is None else int(player)
  if terminals is lay.all_terminals:
    # c_i[s] += sum_{z: seq_i(z) = s} w_i(z) prod_{j != i} x[seq_j(z)], per player i.
    cfr_kernel.add_all_terminal_values(lay, x, cfr_kernel.player_weights(lay, table), player, c)
  else:  # The same sums over the listed terminals only.
    cfr_kernel.add_terminal_values(lay, x, table, player, terminals, 0, len(terminals), c)
  return c


def _backup(layout: TreeArrays, c: np.ndarray, sigma: Optional[np.ndarray]) -> np.ndarray:
  if c.dtype != np.float64 or not c.flags.c_contiguous:
    raise ValueError("c must be a contiguous float64 array (it is updated in place)")
  v = np.empty(layout.num_infosets)
  best = sigma is None
  # The max backup never reads sigma (c stands in for it).
  sigma = c if best else np.ascontiguousarray(sigma, dtype=np.float64)
  # Bottom-up: q(I, a) = c[(I, a)] + sum_{J: parent(J) = (I, a)} v(J);
  # v(I) = sum_a sigma(I, a) q(I, a), or max_a q(I, a) if best.
  cfr_kernel.backup(layout.kernel, c, sigma, v, np.zeros(layout.num_sequences),
                    *_all_infosets(layout), best)
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
  cfr_kernel.regrets_from_values(layout.kernel, c, v)  # r(I, a) = q(I, a) - v(I)
  return c

