"""The compiled range-vector passes: CFR on a public tree with one vector per player per node.

The games are two-player zero-sum games of the ``tree.card_tree.CardTree`` form: each player
holds one private card of an ordered deck of N cards (distinct cards, every ordered deal
equally likely, pi_c = 1 / (N (N - 1)) per deal), the betting is public, and a terminal is a
showdown (the higher card wins) or a fold (a fixed payoff). An information set is a pair
(decision node d, card c); its two actions are the block (d, c) of the flat arrays sigma, R
and S (``card_tree.CardTree.block``), so the per-block update rules of ``cfr_kernel`` apply
unchanged.

One pass updating player i against sigma (the flat engine's steps, ``cfr_engine``, on ranges;
DeepStack's range vectors, Moravcik et al., Science 2017; Johanson et al., "Accelerating best
response calculation in large extensive games", IJCAI 2011, for the sorted-strength showdown):

1. reach, top-down: r_p(root, c) = 1, r_p(child(d, a), c) = r_p(d, c) sigma(d, c, a) if p acts
   at d, else r_p(d, c);
2. terminal counterfactual values of player i with card c against the opponent's range y:
   fold with player-i payoff u: v(c) = pi_c u (Y - y[c]), Y = sum y (card removal: the
   opponent cannot hold c); showdown for a stake s: v(c) = pi_c s (B(c) - A(c)) with
   B(c) = sum_{c' < c} y[c'] and A(c) = Y - B(c) - y[c]; one prefix sum, O(N), where the
   history form sums N - 1 opponent cards per card, O(N^2);
3. bottom-up: q(d, c, a) = value of the child, v(d, c) = sum_a sigma(d, c, a) q(d, c, a) where
   i acts, v(d, c) = sum_a q(d, c, a) where the opponent acts (its reach is in y);
4. at i's blocks: S += w_t r_i(d, c) sigma(d, c, a), then ``end_block_update`` (R += q - v,
   RM+, discounting, regret matching, the prediction of PCFR+ and PDCFR+: the only definition
   of each rule).

Alternating updates run the pass of player 0, then of player 1 against the refreshed policy;
simultaneous updates compute both players' values from one policy, then update both. These are
the flat engine's iterations with every sum over deals regrouped, so both engines give the same
policies up to rounding. Work and memory are O(N |tree|) per pass, against O(N^2 |tree|) for the
flat engine.
"""

from typing import NamedTuple

import numpy as np

from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.rule_kernel import KernelRule
from algorithms.cfr.rule_kernel import end_block_update
from algorithms.cfr.rule_kernel import iteration_weights


class CardTables(NamedTuple):
  """A ``CardTree``'s structure in the kernel's types (one game of a batch).

  A sequence (d, a) of the player acting at d has its reach vector in the flat (D N 2,) array
  X, X[(d N + c) 2 + a] = r(d, c) sigma(d, c, a), the layout of sigma, R and S.

  Attributes:
    node_player: (D,) the acting player of each decision node, nodes top-down (parents first).
    child: (D, 2) the node after each action: a decision node d >= 0, or terminal t as -(t + 1).
    node_sequence: (D,) the acting player's last sequence before d, as 2 d' + a', or 2 D for
      the empty sequence (the player has not acted), whose reach X is 1 (``reach_array``).
    terminal_sequence: (2, T) each player's last sequence before terminal t, likewise.
    showdown: (T,) True where terminal t is a showdown, False for a fold.
    payoff: (T,) player 0's payoff at t: the stake s of a showdown (+s with the higher card,
      -s with the lower), or player 0's payoff u_0 at a fold; player 1 gets the opposite.
    num_cards: N.
  """

  node_player: np.ndarray
  child: np.ndarray
  node_sequence: np.ndarray
  terminal_sequence: np.ndarray
  showdown: np.ndarray
  payoff: np.ndarray
  num_cards: int


@kernel
def reach_array(tab: CardTables) -> np.ndarray:
  """X for every sequence, (D + 1) N 2: the empty sequence's block (2 D) holds reach 1."""
  n, d = tab.num_cards, len(tab.node_player)
  x = np.empty((d + 1) * n * 2)
  x[d * n * 2:] = 1.0  # X(empty, c) = 1
  return x


@kernel(inline=True)
def reaches(tab: CardTables, sigma: np.ndarray, player: int, x: np.ndarray) -> None:
  """Step 1 for ``player``: X at its sequences, top-down, in place (others' entries kept)."""
  n = tab.num_cards
  for d in range(len(tab.node_player)):
    if tab.node_player[d] != player:
      continue
    parent = tab.node_sequence[d]
    base = (parent >> 1) * n * 2 + (parent & 1)
    for c in range(n):
      r = x[base + 2 * c]  # r(d, c) = X at the player's last sequence (1 if none)
      s = (d * n + c) * 2
      x[s] = r * sigma[s]  # X(d, c, a) = r(d, c) sigma(d, c, a)
      x[s + 1] = r * sigma[s + 1]


@kernel(inline=True)
def sequence_range(tab: CardTables, x: np.ndarray, sequence: int) -> np.ndarray:
  """The reach vector (N,) of ``sequence`` (2 d + a): a strided view of X."""
  n = tab.num_cards
  base = (sequence >> 1) * n * 2 + (sequence & 1)
  return x[base:base + 2 * n:2]  # X(d, c, a) for c = 0 .. N - 1


@kernel(inline=True)
def terminal_values(tab: CardTables, t: int, player: int, x: np.ndarray,
                    out: np.ndarray) -> None:
  """Step 2: v(c) of ``player`` at terminal t into out[c] (a view of N entries).

  The opponent's range y is X at its last sequence before t (1 if it has not acted).
  """
  n = tab.num_cards
  scale = tab.payoff[t] / (n * (n - 1.0))  # pi_c s (or pi_c u_0) of this terminal
  if player == 1 and not tab.showdown[t]:
    scale = -scale  # a fold: player 1 gets -u_0 (at a showdown the higher card wins s)
  y = sequence_range(tab, x, tab.terminal_sequence[1 - player, t])
  if tab.showdown[t]:
    below = 0.0  # B(c) = sum_{c' < c} y[c'], the hands c beats
    for c in range(n):
      out[c] = below
      below += y[c]
    # B(c) - A(c) with A(c) = Y - B(c) - y[c], the hands that beat c, and Y = B(N)
    for c in range(n):
      out[c] = scale * (2.0 * out[c] + y[c] - below)  # pi_c s (B(c) - A(c))
  else:
    total = 0.0
    for c in range(n):
      total += y[c]  # Y = sum_c' y[c']
    for c in range(n):
      out[c] = scale * (total - y[c])  # pi_c u (Y - y[c]): the opponent holds any other card


@kernel(inline=True)
def player_pass(tab: CardTables, rule: KernelRule, t: int, player: int, best: bool,
                update: bool, sigma: np.ndarray, x: np.ndarray, regrets: np.ndarray,
                cumulative: np.ndarray, q: np.ndarray, v: np.ndarray) -> None:
  """Steps 2-4 for ``player``, bottom-up: q, v (D, N), and with ``update`` R, S and sigma.

  At the player's nodes v(d, c) = sum_a sigma(d, c, a) q(d, c, a), or max_a q(d, c, a) with
  ``best`` (a best response's values); at the opponent's v(d, c) = sum_a q(d, c, a). A node's
  update (S += w_t X, then ``end_block_update``: R += q - v, ...) runs as soon as its v is
  known: its parent's value uses v, never the updated sigma, and X was computed before the pass.
  """
  n = tab.num_cards
  w, positive, negative = iteration_weights(rule, t)  # w_t = t^gamma, DCFR's discounts
  for d in range(len(tab.node_player) - 1, -1, -1):  # children before parents
    for a in range(2):
      target = tab.child[d, a]
      if target >= 0:
        for c in range(n):
          q[(d * n + c) * 2 + a] = v[target, c]  # q(d, c, a) = v(child, c)
      else:
        # q(d, ., a): every other entry of the node's block of q
        terminal_values(tab, -target - 1, player, x, q[d * n * 2 + a:(d + 1) * n * 2:2])
    if tab.node_player[d] != player:
      for c in range(n):
        v[d, c] = q[(d * n + c) * 2] + q[(d * n + c) * 2 + 1]  # the opponent's reach has sigma
      continue
    base = (tab.node_sequence[d] >> 1) * n * 2 + (tab.node_sequence[d] & 1)
    for c in range(n):
      s = (d * n + c) * 2
      if best:
        v[d, c] = max(q[s], q[s + 1])  # a best response picks the better action
        continue
      value = sigma[s] * q[s] + sigma[s + 1] * q[s + 1]  # v(I) = sum_a sigma(I, a) q(I, a)
      v[d, c] = value
      if update:
        r = x[base + 2 * c]  # r_i(d, c)
        for b in range(s, s + 2):
          cumulative[b] += w * (r * sigma[b])  # S(I, a) += w_t x[(I, a)]
        # R(I, a) += q(I, a) - v(I); RM+, discounts; sigma (of R + r if predictive)
        end_block_update(rule, q, value, regrets, sigma, s, 2, positive, negative)


@kernel
def iterations(tab: CardTables, rule: KernelRule, sigma: np.ndarray, regrets: np.ndarray,
               cumulative: np.ndarray, iteration: int, count: int) -> None:
  """Iterations ``iteration + 1`` .. ``iteration + count`` (module docstring), in place."""
  n, d = tab.num_cards, len(tab.node_player)
  x = reach_array(tab)
  q = np.empty((2, d * n * 2))
  v = np.empty((2, d, n))
  for p in range(2):
    reaches(tab, sigma, p, x)
  for it in range(count):
    t = iteration + it + 1  # t of w_t and the discounts
    if rule.alternating:
      for p in range(2):  # player 0's pass, then player 1's against the new sigma
        player_pass(tab, rule, t, p, False, True, sigma, x, regrets, cumulative, q[p], v[p])
        reaches(tab, sigma, p, x)  # only p's policy changed
    else:
      for p in range(2):  # both players' values from the same sigma, then both updates
        player_pass(tab, rule, t, p, False, False, sigma, x, regrets, cumulative, q[p], v[p])
      for p in range(2):
        apply_update(tab, rule, t, p, sigma, x, regrets, cumulative, q[p], v[p])
      for p in range(2):
        reaches(tab, sigma, p, x)


@kernel(inline=True)
def apply_update(tab: CardTables, rule: KernelRule, t: int, player: int, sigma: np.ndarray,
                 x: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray, q: np.ndarray,
                 v: np.ndarray) -> None:
  """Step 4 at every block of ``player`` from a pass's q and v (simultaneous updates)."""
  n = tab.num_cards
  w, positive, negative = iteration_weights(rule, t)  # w_t = t^gamma, DCFR's discounts
  for d in range(len(tab.node_player)):
    if tab.node_player[d] != player:
      continue
    base = (tab.node_sequence[d] >> 1) * n * 2 + (tab.node_sequence[d] & 1)
    for c in range(n):
      s = (d * n + c) * 2
      value = v[d, c]
      r = x[base + 2 * c]  # r_i(d, c)
      for b in range(s, s + 2):
        cumulative[b] += w * (r * sigma[b])  # S(I, a) += w_t x[(I, a)]
      # R(I, a) += q(I, a) - v(I); RM+, discounts; sigma (of R + r if predictive)
      end_block_update(rule, q, value, regrets, sigma, s, 2, positive, negative)


@kernel
def root_values(tab: CardTables, rule: KernelRule, policy: np.ndarray, player: int,
                best: bool) -> np.ndarray:
  """``player``'s counterfactual values at the root per card (N,) against ``policy``.

  With ``best`` the player best-responds (its sum over cards is its best-response value);
  otherwise it plays ``policy`` too (the sum is its expected payoff under ``policy``).
  """
  n, d = tab.num_cards, len(tab.node_player)
  x = reach_array(tab)
  for p in range(2):
    reaches(tab, policy, p, x)
  v = np.empty((d, n))
  player_pass(tab, rule, 0, player, best, False, policy, x, x, x, np.empty(d * n * 2), v)
  return v[0].copy()
