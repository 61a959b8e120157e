"""The compiled range-vector passes of three-player Kuhn poker: CFR and best responses.

The games are those of ``tree.card_tree3.CardTree3``: each of three players holds one private
card of an ordered deck of N >= 3 cards (distinct cards, every ordered deal equally likely,
pi = 1 / (N (N - 1) (N - 2)) per deal), the betting is public, and at a terminal the highest
card among the players still in wins. An information set is a pair (decision node d, card c);
its two actions are the block (d, c) of the flat arrays sigma, R and S, so the per-block update
rules of ``cfr_kernel`` apply unchanged, through ``range_kernel.apply_update``.

Terminal values (the only new mathematics; the rest is ``range_kernel``'s with three reach
vectors). Player i holds card c; its opponents j = i + 1 and k = i + 2 (mod 3) reach terminal t
with the range vectors y_j, y_k (their reach by card, X at their last sequence before t, 1 if
they have not acted). i's counterfactual value is

  v(c) = pi sum over deals (c_j, c_k), c_j != c_k, both != c, of y_j[c_j] y_k[c_k] u_i(c, c_j, c_k),

with u_i = W = (sum of the others' contributions) if i wins and -L = -(i's contribution)
otherwise (``KuhnRules.returns``). Writing E(c) for the reach mass of the deals i wins and M(c)
for the mass of all deals, v(c) = pi ((W + L) E(c) - L M(c)). The deals are drawn without
replacement, and every mass below is inclusion-exclusion over the one coincidence two
opponents' cards can have (c_j = c_k); with the totals Y_j = sum y_j, Y_k = sum y_k,
P = sum_c' y_j[c'] y_k[c'], and the sums below c, B_j(c) = sum_{c' < c} y_j[c'],
B_k(c) likewise, Q(c) = sum_{c' < c} y_j[c'] y_k[c']:

* all deals: M(c) = sum_{c_j != c} y_j[c_j] (Y_k - y_k[c] - y_k[c_j])
  = (Y_j - y_j[c]) (Y_k - y_k[c]) - (P - y_j[c] y_k[c]);
* three-way showdown (nobody folded): i wins when both cards are below c,
  E(c) = sum_{c_j < c} y_j[c_j] (B_k(c) - y_k[c_j]) = B_j(c) B_k(c) - Q(c), the product of the
  two masses below c minus the pairs in which both hold the same card;
* two-way showdown of i and j (k folded): i wins when c_j < c, whatever k holds (any card but
  c and c_j): E(c) = sum_{c_j < c} y_j[c_j] (Y_k - y_k[c] - y_k[c_j])
  = B_j(c) (Y_k - y_k[c]) - Q(c): one prefix sum of j's range against k's complement, minus
  the card-removal term; of i and k (j folded) symmetrically, B_k(c) (Y_j - y_j[c]) - Q(c);
* fold-out, i alone in the hand: i takes the pot, E(c) = M(c), v(c) = pi W M(c);
* i folded: v(c) = -pi L M(c), L its ante (a player folds only facing a bet, never after
  betting).

One ascending sweep over the cards gives every B and Q, so a terminal costs O(N), against the
flat tree's O(N^2) deals per card.

One pass for player i against sigma (``range_kernel``'s steps; DeepStack's range vectors,
Moravcik et al., Science 2017; Johanson, Waugh, Bowling, Zinkevich, "Accelerating best response
calculation in large extensive games", IJCAI 2011):

1. reach, top-down, for each player p: r_p(root, c) = 1, r_p(child(d, a), c) = r_p(d, c)
   sigma(d, c, a) where p acts, else r_p(d, c) (``range_kernel.reaches``);
2. terminal values above;
3. bottom-up: q(d, c, a) = value of the child, v(d, c) = sum_a sigma(d, c, a) q(d, c, a) where
   i acts (max_a q(d, c, a) for a best response), v(d, c) = sum_a q(d, c, a) where an opponent
   acts (its reach is in its range);
4. at i's blocks: S += w_t r_i(d, c) sigma(d, c, a), then ``cfr_kernel.end_block_update``
   (``range_kernel.apply_update``).

Alternating updates run the passes of players 0, 1 and 2 in turn, each against the policy the
previous one left; simultaneous updates compute all three players' values from one policy, then
update all three: the flat engine's iterations for three players (``cfr_engine``) with every sum
over deals regrouped. Work and memory are O(N |tree|) per pass, against O(N^3 |tree|) for the
flat engine.

Best responses are exact on range vectors because player i's information set is (d, c): with
the opponents' ranges in y_j, y_k, v(d, c) = max_a q(d, c, a) at i's nodes is i's best-response
value per card, and sum_c v(root, c) its best-response value BR_i (Johanson et al. 2011), in
O(N |tree|) per player.
"""

from typing import NamedTuple, Tuple

import numpy as np

from algorithms.cfr.cfr_kernel import KernelRule
from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.range_kernel import apply_update
from algorithms.cfr.range_kernel import reach_array
from algorithms.cfr.range_kernel import reaches
from algorithms.cfr.range_kernel import sequence_range

NUM_PLAYERS = 3


class CardTables3(NamedTuple):
  """A ``CardTree3``'s structure in the kernel's types.

  The fields ``node_player``, ``node_sequence`` and ``num_cards`` are those of
  ``range_kernel.CardTables``, so its reach and update helpers serve both.

  Attributes:
    node_player: (D,) the acting player of each decision node, nodes top-down.
    child: (D, 2) the node after each action: a decision node d >= 0, or terminal t as -(t + 1).
    node_sequence: (D,) the acting player's last sequence before d, as 2 d' + a', or 2 D for
      the empty sequence (the player has not acted), whose reach is 1.
    terminal_sequence: (3, T) each player's last sequence before terminal t, likewise.
    in_hand: (T, 3) bool, the players who have not folded at t.
    contribution: (T, 3) float64, each player's chips in the pot at t.
    num_cards: N.
  """

  node_player: np.ndarray
  child: np.ndarray
  node_sequence: np.ndarray
  terminal_sequence: np.ndarray
  in_hand: np.ndarray
  contribution: np.ndarray
  num_cards: int


@kernel(inline=True)
def terminal_values(tab: CardTables3, t: int, player: int, x: np.ndarray,
                    out: np.ndarray) -> None:
  """Step 2: v(c) of ``player`` at terminal t into out[c] (a view of N entries).

  v(c) = pi ((W + L) E(c) - L M(c)) with the masses of the module docstring.
  """
  n = tab.num_cards
  j, k = (player + 1) % NUM_PLAYERS, (player + 2) % NUM_PLAYERS
  yj = sequence_range(tab, x, tab.terminal_sequence[j, t])
  yk = sequence_range(tab, x, tab.terminal_sequence[k, t])
  scale = 1.0 / (n * (n - 1.0) * (n - 2.0))  # pi, the probability of each ordered deal
  lose = tab.contribution[t, player]  # L: i's own contribution
  win = tab.contribution[t, j] + tab.contribution[t, k]  # W: the others' contributions
  total_j, total_k, pairs = 0.0, 0.0, 0.0
  for c in range(n):
    total_j += yj[c]  # Y_j
    total_k += yk[c]  # Y_k
    pairs += yj[c] * yk[c]  # P = sum_c' y_j[c'] y_k[c']
  mine, in_j, in_k = tab.in_hand[t, player], tab.in_hand[t, j], tab.in_hand[t, k]
  below_j, below_k, below_pairs = 0.0, 0.0, 0.0  # B_j(c), B_k(c), Q(c): sums over c' < c
  for c in range(n):
    # M(c) = (Y_j - y_j[c]) (Y_k - y_k[c]) - (P - y_j[c] y_k[c]): deals without c, c_j != c_k
    rest_j, rest_k = total_j - yj[c], total_k - yk[c]
    mass = rest_j * rest_k - (pairs - yj[c] * yk[c])
    if not mine:
      out[c] = -scale * lose * mass  # i folded: -pi L M(c)
    elif not (in_j or in_k):
      out[c] = scale * win * mass  # i alone takes the pot: pi W M(c)
    else:
      if in_j and in_k:
        beaten = below_j * below_k - below_pairs  # E = B_j B_k - Q: both below c
      elif in_j:
        beaten = below_j * rest_k - below_pairs  # E = B_j (Y_k - y_k[c]) - Q: j below c
      else:
        beaten = below_k * rest_j - below_pairs  # E = B_k (Y_j - y_j[c]) - Q: k below c
      out[c] = scale * ((win + lose) * beaten - lose * mass)  # pi (W E - L (M - E))
    below_j += yj[c]
    below_k += yk[c]
    below_pairs += yj[c] * yk[c]


@kernel(inline=True)
def backup(tab: CardTables3, player: int, best: bool, sigma: np.ndarray, x: np.ndarray,
           q: np.ndarray, v: np.ndarray) -> None:
  """Steps 2-3 for ``player``, bottom-up: q (D N 2,) and v (D, N), nothing updated.

  At the player's nodes v(d, c) = sum_a sigma(d, c, a) q(d, c, a), or max_a q(d, c, a) with
  ``best``; at an opponent's v(d, c) = sum_a q(d, c, a). ``range_kernel.apply_update`` then
  updates from q and v as ``range_kernel.player_pass`` does node by node: a node's update never
  enters its parent's value, so updating after the whole backup gives the same numbers.
  """
  n = tab.num_cards
  for d in range(len(tab.node_player) - 1, -1, -1):  # children before parents
    for a in range(2):
      target = tab.child[d, a]
      if target >= 0:
        for c in range(n):
          q[(d * n + c) * 2 + a] = v[target, c]  # q(d, c, a) = v(child, c)
      else:  # q(d, ., a): every other entry of the node's block of q
        terminal_values(tab, -target - 1, player, x, q[d * n * 2 + a:(d + 1) * n * 2:2])
    mine = tab.node_player[d] == player
    for c in range(n):
      s = (d * n + c) * 2
      if not mine:
        v[d, c] = q[s] + q[s + 1]  # the opponent's reach is in its range
      elif best:
        v[d, c] = max(q[s], q[s + 1])  # a best response picks the better action
      else:
        v[d, c] = sigma[s] * q[s] + sigma[s + 1] * q[s + 1]  # v(I) = sum_a sigma(I, a) q(I, a)


@kernel
def iterations(tab: CardTables3, rule: KernelRule, sigma: np.ndarray, regrets: np.ndarray,
               cumulative: np.ndarray, iteration: int, count: int) -> None:
  """Iterations ``iteration + 1`` .. ``iteration + count`` (module docstring), in place."""
  n, d = tab.num_cards, len(tab.node_player)
  x = reach_array(tab)
  q = np.empty((NUM_PLAYERS, d * n * 2))
  v = np.empty((NUM_PLAYERS, d, n))
  for p in range(NUM_PLAYERS):
    reaches(tab, sigma, p, x)
  for it in range(count):
    t = iteration + it + 1  # t of w_t and the discounts
    if rule.alternating:
      for p in range(NUM_PLAYERS):  # players 0, 1, 2, each against the policy left before
        backup(tab, p, False, sigma, x, q[p], v[p])
        apply_update(tab, rule, t, p, sigma, x, regrets, cumulative, q[p], v[p])
        reaches(tab, sigma, p, x)  # only p's policy changed
    else:
      for p in range(NUM_PLAYERS):  # every player's values from the same sigma, then updates
        backup(tab, p, False, sigma, x, q[p], v[p])
      for p in range(NUM_PLAYERS):
        apply_update(tab, rule, t, p, sigma, x, regrets, cumulative, q[p], v[p])
      for p in range(NUM_PLAYERS):
        reaches(tab, sigma, p, x)


@kernel
def policy_values(tab: CardTables3, policy: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
  """(BR_i, u_i) for i = 0, 1, 2 of a flat policy (D N 2,).

  BR_i = sum_c v_i(root, c) with i best-responding to the others' ``policy``; u_i the same sum
  with i on ``policy`` too (its expected payoff).
  """
  n, d = tab.num_cards, len(tab.node_player)
  x = reach_array(tab)
  for p in range(NUM_PLAYERS):
    reaches(tab, policy, p, x)
  q = np.empty(d * n * 2)
  v = np.empty((d, n))
  best = np.empty(NUM_PLAYERS)
  expected = np.empty(NUM_PLAYERS)
  for p in range(NUM_PLAYERS):
    backup(tab, p, True, policy, x, q, v)
    best[p] = v[0].sum()  # BR_p = sum_c max-values at the root
    backup(tab, p, False, policy, x, q, v)
    expected[p] = v[0].sum()  # u_p
  return best, expected
