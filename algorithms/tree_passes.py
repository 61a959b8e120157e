"""The passes of a CFR iteration and of a best response over the flat ``TreeArrays`` layout.

Each function is one pass over plain arrays of the layout (named in its docstring), vectorised
with numpy one depth level at a time; a compiled kernel can replace any of them one for one.
With G global sequences, K information sets and T terminals (``docs/tree_layout.md``):

1. ``realization``, top-down over the levels: x[(I, a)] = x[parent(I)] sigma(I, a), x[empty] = 1.
2. ``terminal_values``: c_i[s] = sum_{z: seq_i(z) = s} w_i(z) prod_{j != i} x[seq_j(z)], with
   terminal weights w_i(z) = u_i(z) pi_c(z) for the exact pass (``TreeArrays.weighted_utility``).
3. ``backup``, bottom-up over the levels: q(I, a) = c[(I, a)] + sum_{J: parent(J) = (I, a)} v(J),
   v(I) = sum_a sigma(I, a) q(I, a); ``best_response_backup`` takes v(I) = max_a q(I, a).
4. ``counterfactual_regrets``: r(I, a) = q(I, a) - v(I).

q and v are counterfactual values (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization
in games with incomplete information", NeurIPS 2007): they carry the reach of chance and of the
other players, not of the player who owns I. Regret matching and the cumulative updates are in
``regret_matching``.
"""

from typing import Optional

import numpy as np

from algorithms.tree_layout import TreeArrays


def realization(layout: TreeArrays, sigma: np.ndarray) -> np.ndarray:
  """Every player's realization plan of the behavioural policy ``sigma`` (G,), in one array.

  x[s] = 1 on the empty sequences, x[(I, a)] = x[parent(I)] sigma(I, a) level by level, parents
  first. Reads ``level_sequences`` and ``seq_parent`` (through ``numpy_levels``).
  """
  x = np.empty(layout.num_sequences)
  x[:layout.num_players] = 1.0
  for _, _, sa, sb, _, _, seq_parent, _, _ in layout.numpy_levels:
    np.multiply(x[seq_parent], sigma[sa:sb], out=x[sa:sb])
  return x


def terminal_values(layout: TreeArrays, x: np.ndarray, weights: np.ndarray,
                    player: Optional[int], terminals: Optional[np.ndarray] = None) -> np.ndarray:
  """Terminal counterfactual values c (G,) of ``player``, or of every player if None.

  c[s] = sum_{z: seq_i(z) = s} w_i(z) prod_{j != i} x[seq_j(z)] on player i's sequences (its
  empty sequence included), summed over the players i asked for; 0 elsewhere. Reads
  ``terminal_columns``.

  Args:
    layout: the tree layout.
    x: realization plans (G,).
    weights: (T, N) terminal weights w_p(z), e.g. ``weighted_utility``; with ``terminals``, one
      row per listed terminal.
    player: the player i, or None for all players.
    terminals: if given, only these terminals enter the sums (the others weigh 0).
  """
  n, g = layout.num_players, layout.num_sequences
  seqs = layout.terminal_columns
  if terminals is not None:
    seqs = seqs.take(terminals, axis=1)  # take: far cheaper than fancy indexing on 2-D.
  c = None
  for i in range(n) if player is None else (player,):
    others = weights[:, i]
    for j in range(n):
      if j != i:
        others = others * x[seqs[j]]
    ci = np.bincount(seqs[i], weights=others, minlength=g)
    c = ci if c is None else c + ci
  return c.astype(np.float64, copy=False)  # bincount of no terminal is int64.


def backup(layout: TreeArrays, c: np.ndarray, sigma: np.ndarray) -> np.ndarray:
  """Bottom-up counterfactual values; ``c`` becomes q in place, returns v (K,).

  q(I, a) = c[(I, a)] + sum_{J: parent(J) = (I, a)} v(J), v(I) = sum_a sigma(I, a) q(I, a).
  The empty sequences end with the root values sum_{J at depth 0} v(J) + c[empty]. Reads
  ``level_infosets``, ``level_sequences``, ``infoset_offset``, ``infoset_parent_offset``
  (through ``numpy_levels``).
  """
  return _backup(layout, c, sigma)


def best_response_backup(layout: TreeArrays, c: np.ndarray) -> np.ndarray:
  """As ``backup`` with v(I) = max_a q(I, a): best-response values; returns v (K,).

  With c the terminal values of player i against the others' plans, player i's empty sequence
  ends with i's best-response value (the sequence-form best response; e.g. Johanson, Waugh,
  Bowling, Zinkevich, "Accelerating best response calculation in large extensive games", IJCAI
  2011).
  """
  return _backup(layout, c, None)


def _backup(layout: TreeArrays, c: np.ndarray, sigma: Optional[np.ndarray]) -> np.ndarray:
  """``backup`` (sigma given) or ``best_response_backup`` (sigma None)."""
  v = np.empty(layout.num_infosets)
  for ia, ib, sa, sb, pa, pb, _, offset, parent_offset in reversed(layout.numpy_levels):
    if sigma is None:
      vl = np.maximum.reduceat(c[sa:sb], offset, out=v[ia:ib])
    else:
      vl = np.add.reduceat(sigma[sa:sb] * c[sa:sb], offset, out=v[ia:ib])
    c[pa:pb] += np.bincount(parent_offset, weights=vl, minlength=pb - pa)
  return v


def counterfactual_regrets(layout: TreeArrays, c: np.ndarray, sigma: np.ndarray) -> np.ndarray:
  """Instantaneous counterfactual regrets r(I, a) = q(I, a) - v(I) from terminal values c.

  ``c`` is consumed (it becomes r in place and is returned); r is 0 on the empty sequences and
  on every sequence whose c and descendants' c are 0, e.g. those of the players not updated.
  Reads what ``backup`` reads and ``seq_infoset``.
  """
  n = layout.num_players
  v = backup(layout, c, sigma)
  c[:n] = 0.0
  c[n:] -= v[layout.seq_infoset[n:]]
  return c
