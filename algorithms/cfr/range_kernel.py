"""The compiled range-vector passes: CFR on a public tree with one vector per player per node.

The games are the one-card games of ``tree.card_tree.CardTree`` (two players) and
``tree.card_tree3.CardTree3`` (three-player Kuhn poker): each of P players holds one private
card of an ordered deck of N >= P cards (distinct cards, every ordered deal equally likely,
pi = 1 / (N (N - 1) ... (N - P + 1)) per deal), the betting is public, and at a terminal the
highest card among the players still in the hand wins. An information set is a pair (decision
node d, card c); its A actions (the tree's, ``CardTables.actions``: pass and bet in Kuhn poker)
are the block (d, c) of the flat arrays sigma, R and S (``card_tree.CardTree.block``), so the
per-block update rules of ``rule_kernel`` apply unchanged. One pass, one update and one
evaluation serve every P and every A; only the terminal values (step 2) differ with P.

One pass updating player i against sigma (the flat engine's steps, ``cfr_engine``, on ranges;
DeepStack's range vectors, Moravcik et al., Science 2017; Johanson, Waugh, Bowling, Zinkevich,
"Accelerating best response calculation in large extensive games", IJCAI 2011, for the
sorted-strength showdown):

1. reach, top-down, for each player p: r_p(root, c) = 1, r_p(child(d, a), c) = r_p(d, c)
   sigma(d, c, a) if p acts at d, else r_p(d, c);
2. terminal counterfactual values v(c) of player i with card c against the opponents' ranges
   (their reach by card at their last sequence before the terminal, 1 if they have not acted);
   a terminal is described by the players still in the hand and each player's contribution to
   the pot (``CardTables``); the winner gains the others' contributions, every other player
   loses its own (``KuhnRules.returns``). Below, one ascending sweep over the cards, O(N) per
   terminal where the history form sums over the opponents' deals, O(N^(P - 1)) per card;
3. bottom-up: q(d, c, a) = value of the child, v(d, c) = sum_a sigma(d, c, a) q(d, c, a) where
   i acts (max_a q(d, c, a) for a best response), v(d, c) = sum_a q(d, c, a) where an opponent
   acts (its reach is in its range);
4. at i's blocks: S += w_t r_i(d, c) sigma(d, c, a), then ``end_block_update`` (R += q - v,
   RM+, discounting, regret matching, the prediction of PCFR+ and PDCFR+: the only definition
   of each rule).

Terminal values, two players (``two_player_values``): the opponent's range y, Y = sum y.

* fold with player-i payoff u (+ the folder's contribution for the player in the hand, minus
  its own for the folder): v(c) = pi u (Y - y[c]) (card removal: the opponent cannot hold c);
* showdown for a stake s (both contributions): v(c) = pi s (B(c) - A(c)) with
  B(c) = sum_{c' < c} y[c'] and A(c) = Y - B(c) - y[c]: one prefix sum.

Terminal values, three players (``three_player_values``): opponents j = i + 1, k = i + 2
(mod 3) with ranges y_j, y_k; i's contribution L, the others' W. Then
v(c) = pi sum over deals (c_j, c_k), c_j != c_k, both != c, of y_j[c_j] y_k[c_k] u_i(c, c_j,
c_k) with u_i = W if i wins and -L otherwise, so v(c) = pi ((W + L) E(c) - L M(c)), E(c) the
reach mass of the deals i wins and M(c) that of all deals. The deals are drawn without
replacement, and every mass is inclusion-exclusion over the one coincidence the two opponents'
cards can have (c_j = c_k); with the totals Y_j, Y_k, P = sum_c' y_j[c'] y_k[c'], the sums
below c, B_j(c) = sum_{c' < c} y_j[c'], B_k(c) likewise, Q(c) = sum_{c' < c} y_j[c'] y_k[c']:

* all deals: M(c) = (Y_j - y_j[c]) (Y_k - y_k[c]) - (P - y_j[c] y_k[c]);
* three-way showdown: i wins when both cards are below c, E(c) = B_j(c) B_k(c) - Q(c), the
  product of the two masses below c minus the pairs in which both hold the same card;
* two-way showdown of i and j (k folded): i wins when c_j < c, whatever k holds,
  E(c) = B_j(c) (Y_k - y_k[c]) - Q(c): one prefix sum of j's range against k's complement,
  minus the card-removal term; of i and k, symmetrically, B_k(c) (Y_j - y_j[c]) - Q(c);
* i alone in the hand: E(c) = M(c), v(c) = pi W M(c); i folded: v(c) = -pi L M(c).

Alternating updates run the passes of players 0, 1, ... in turn, each against the policy the
previous one left; simultaneous updates compute every player's values from one policy, then
update all. These are the flat engine's iterations with every sum over deals regrouped, so both
engines give the same policies up to rounding. Work and memory are O(N |tree|) per pass.

Best responses are exact on range vectors because player i's information set is (d, c): with
the opponents' ranges fixed, v(d, c) = max_a q(d, c, a) at i's nodes is i's best-response value
per card, and sum_c v(root, c) its best-response value BR_i (Johanson et al. 2011).
"""

from typing import NamedTuple, Tuple

import numpy as np

from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.rule_kernel import KernelRule
from algorithms.cfr.rule_kernel import end_block_update
from algorithms.cfr.rule_kernel import iteration_weights


class CardTables(NamedTuple):
  """A card tree's structure in the kernel's types (one game of a batch), for P players.

  With A actions per decision node, a sequence (d, a) of the player acting at d has its reach
  vector in the flat (D N A,) array X, X[(d N + c) A + a] = r(d, c) sigma(d, c, a), the layout
  of sigma, R and S.

  Attributes:
    node_player: (D,) the acting player of each decision node, nodes top-down (parents first).
    child: (D, A) the node after each action: a decision node d >= 0, or terminal t as -(t + 1).
    node_sequence: (D,) the acting player's last sequence before d, as A d' + a', or A D for
      the empty sequence (the player has not acted), whose reach X is 1 (``reach_array``).
    terminal_sequence: (P, T) each player's last sequence before terminal t, likewise; P is
      the number of players.
    in_hand: (T, P) bool, the players who have not folded at t.
    contribution: (T, P) float64, what each player loses at t if it does not win (its chips in
      the pot); a winner gains the other players' entries.
    num_cards: N.
    players: (0, 1, ..., P - 1). A tuple, not an array: its length P is part of the tables'
      numba type, so each number of players compiles to machine code of its own, with the
      other player counts' terminal values and loop bounds folded away.
    actions: (0, 1, ..., A - 1), A >= 2, the actions of every decision node (the tree's
      ``child`` columns); a tuple for the same reason: A is a constant of the compiled code.
      The per-card sums over actions write the first two terms out, then loop over the rest
      (none for A = 2): the loop from the first term measured 5 to 8 percent slower.
  """

  node_player: np.ndarray
  child: np.ndarray
  node_sequence: np.ndarray
  terminal_sequence: np.ndarray
  in_hand: np.ndarray
  contribution: np.ndarray
  num_cards: int
  players: Tuple[int, ...]
  actions: Tuple[int, ...]


@kernel
def reach_array(tab: CardTables) -> np.ndarray:
  """X for every sequence, (D + 1) N A: the empty sequence's block (A D) holds reach 1."""
  n, d, na = tab.num_cards, len(tab.node_player), len(tab.actions)
  x = np.empty((d + 1) * n * na)
  x[d * n * na:] = 1.0  # X(empty, c) = 1
  return x


@kernel(inline=True)
def reaches(tab: CardTables, sigma: np.ndarray, player: int, x: np.ndarray) -> None:
  """Step 1 for ``player``: X at its sequences, top-down, in place (others' entries kept)."""
  n, na = tab.num_cards, len(tab.actions)
  for d in range(len(tab.node_player)):
    if tab.node_player[d] != player:
      continue
    base = sequence_base(tab, tab.node_sequence[d])
    for c in range(n):
      r = x[base + na * c]  # r(d, c) = X at the player's last sequence (1 if none)
      s = (d * n + c) * na
      for a in range(na):
        x[s + a] = r * sigma[s + a]  # X(d, c, a) = r(d, c) sigma(d, c, a)


@kernel(inline=True)
def sequence_base(tab: CardTables, sequence: int) -> int:
  """The index in X of card 0 of ``sequence`` (A d + a): (d N + 0) A + a."""
  na = len(tab.actions)
  return (sequence // na) * tab.num_cards * na + sequence % na


@kernel(inline=True)
def sequence_range(tab: CardTables, x: np.ndarray, sequence: int) -> np.ndarray:
  """The reach vector (N,) of ``sequence`` (A d + a): a strided view of X."""
  na = len(tab.actions)
  base = sequence_base(tab, sequence)
  return x[base:base + na * tab.num_cards:na]  # X(d, c, a) for c = 0 .. N - 1


@kernel(inline=True)
def two_player_values(tab: CardTables, t: int, player: int, x: np.ndarray,
                      out: np.ndarray) -> None:
  """Step 2 with two players: v(c) of ``player`` at terminal t into out[c] (module docstring)."""
  n = tab.num_cards
  other = 1 - player
  y = sequence_range(tab, x, tab.terminal_sequence[other, t])
  if tab.in_hand[t, player] and tab.in_hand[t, other]:
    scale = tab.contribution[t, other] / (n * (n - 1.0))  # pi s, s the stake of the showdown
    below = 0.0  # B(c) = sum_{c' < c} y[c'], the hands c beats
    for c in range(n):
      out[c] = below
      below += y[c]
    # B(c) - A(c) with A(c) = Y - B(c) - y[c], the hands that beat c, and Y = B(N)
    for c in range(n):
      out[c] = scale * (2.0 * out[c] + y[c] - below)  # pi s (B(c) - A(c))
  else:
    if tab.in_hand[t, player]:
      scale = tab.contribution[t, other] / (n * (n - 1.0))  # pi u: the folder's chips
    else:
      scale = -tab.contribution[t, player] / (n * (n - 1.0))  # pi u: its own chips lost
    total = 0.0
    for c in range(n):
      total += y[c]  # Y = sum_c' y[c']
    for c in range(n):
      out[c] = scale * (total - y[c])  # pi u (Y - y[c]): the opponent holds any other card


@kernel(inline=True)
def three_player_values(tab: CardTables, t: int, player: int, x: np.ndarray,
                        out: np.ndarray) -> None:
  """Step 2 with three players: v(c) = pi ((W + L) E(c) - L M(c)) into out[c], with the masses
  of the module docstring."""
  n = tab.num_cards
  j, k = (player + 1) % 3, (player + 2) % 3
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
def player_pass(tab: CardTables, rule: KernelRule, t: int, player: int, best: bool,
                update: bool, sigma: np.ndarray, x: np.ndarray, regrets: np.ndarray,
                cumulative: np.ndarray, memory: np.ndarray, q: np.ndarray,
                v: np.ndarray) -> None:
  """Steps 2-4 for ``player``, bottom-up: q, v (D, N), and with ``update`` R, S, sigma and
  the rule's state ``memory`` (``UpdateRule.memory``).

  At the player's nodes v(d, c) = sum_a sigma(d, c, a) q(d, c, a), or max_a q(d, c, a) with
  ``best`` (a best response's values); at an opponent's v(d, c) = sum_a q(d, c, a). A node's
  update (S += w_t X, then ``end_block_update``: R += q - v, ...) runs as soon as its v is
  known: its parent's value uses v, never the updated sigma, and X was computed before the pass.
  """
  n, na = tab.num_cards, len(tab.actions)
  two_players = len(tab.players) == 2  # a constant of the compiled code
  w, positive, negative = iteration_weights(rule, t)  # w_t = t^gamma, DCFR's discounts
  for d in range(len(tab.node_player) - 1, -1, -1):  # children before parents
    for a in range(na):
      target = tab.child[d, a]
      if target >= 0:
        for c in range(n):
          q[(d * n + c) * na + a] = v[target, c]  # q(d, c, a) = v(child, c)
      elif two_players:  # q(d, ., a): every A-th entry of the node's block of q
        two_player_values(tab, -target - 1, player, x, q[d * n * na + a:(d + 1) * n * na:na])
      else:
        three_player_values(tab, -target - 1, player, x, q[d * n * na + a:(d + 1) * n * na:na])
    if tab.node_player[d] != player:
      for c in range(n):
        s = (d * n + c) * na
        total = q[s] + q[s + 1]  # the opponent's reach has sigma (A >= 2 actions)
        for a in range(2, na):
          total += q[s + a]
        v[d, c] = total
      continue
    base = sequence_base(tab, tab.node_sequence[d])
    for c in range(n):
      s = (d * n + c) * na
      if best:
        top = max(q[s], q[s + 1])  # a best response picks the best action
        for a in range(2, na):
          top = max(top, q[s + a])
        v[d, c] = top
        continue
      value = sigma[s] * q[s] + sigma[s + 1] * q[s + 1]  # v(I) = sum_a sigma(I, a) q(I, a)
      for a in range(2, na):
        value += sigma[s + a] * q[s + a]
      v[d, c] = value
      if update:
        r = x[base + na * c]  # r_i(d, c)
        for a in range(na):
          cumulative[s + a] += w * (r * sigma[s + a])  # S(I, a) += w_t x[(I, a)]
        # R(I, a) += q(I, a) - v(I); RM+, discounts; sigma (of R + r if predictive)
        end_block_update(rule, q, value, regrets, sigma, memory, s, na, positive, negative)


@kernel
def iterations(tab: CardTables, rule: KernelRule, sigma: np.ndarray, regrets: np.ndarray,
               cumulative: np.ndarray, memory: np.ndarray, iteration: int, count: int,
               x: np.ndarray, q: np.ndarray, v: np.ndarray) -> None:
  """Iterations ``iteration + 1`` .. ``iteration + count`` (module docstring), in place.

  x, q, v: work arrays, ``reach_array(tab)``, (P, D N A) and (P, D, N), whose contents are
  rewritten before they are read (but for x's empty sequence, 1): kept by the caller across
  calls, so that a call per iteration does not allocate (and fault in) three vectors per node.
  """
  players = len(tab.players)
  for p in range(players):
    reaches(tab, sigma, p, x)
  for it in range(count):
    t = iteration + it + 1  # t of w_t and the discounts
    if rule.alternating:
      for p in range(players):  # players 0, 1, ... in turn, each against the policy left before
        player_pass(tab, rule, t, p, False, True, sigma, x, regrets, cumulative, memory, q[p],
                    v[p])
        reaches(tab, sigma, p, x)  # only p's policy changed
    else:
      for p in range(players):  # every player's values from the same sigma, then the updates
        player_pass(tab, rule, t, p, False, False, sigma, x, regrets, cumulative, memory, q[p],
                    v[p])
      for p in range(players):
        apply_update(tab, rule, t, p, sigma, x, regrets, cumulative, memory, q[p], v[p])
      for p in range(players):
        reaches(tab, sigma, p, x)


@kernel(inline=True)
def apply_update(tab: CardTables, rule: KernelRule, t: int, player: int, sigma: np.ndarray,
                 x: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                 memory: np.ndarray, q: np.ndarray, v: np.ndarray) -> None:
  """Step 4 at every block of ``player`` from a pass's q and v (simultaneous updates)."""
  n, na = tab.num_cards, len(tab.actions)
  w, positive, negative = iteration_weights(rule, t)  # w_t = t^gamma, DCFR's discounts
  for d in range(len(tab.node_player)):
    if tab.node_player[d] != player:
      continue
    base = sequence_base(tab, tab.node_sequence[d])
    for c in range(n):
      s = (d * n + c) * na
      value = v[d, c]
      r = x[base + na * c]  # r_i(d, c)
      for a in range(na):
        cumulative[s + a] += w * (r * sigma[s + a])  # S(I, a) += w_t x[(I, a)]
      # R(I, a) += q(I, a) - v(I); RM+, discounts; sigma (of R + r if predictive)
      end_block_update(rule, q, value, regrets, sigma, memory, s, na, positive, negative)


@kernel
def root_values(tab: CardTables, rule: KernelRule, policy: np.ndarray) -> np.ndarray:
  """Every player's counterfactual values at the root per card against ``policy``, (2, P, N).

  [0, i]: player i best-responds to the others' ``policy`` (its sum over cards is i's
  best-response value BR_i); [1, i]: i plays ``policy`` too (the sum is its expected payoff).
  ``rule`` is not used: the passes update nothing.
  """
  n, d, players = tab.num_cards, len(tab.node_player), len(tab.players)
  x = reach_array(tab)
  for p in range(players):
    reaches(tab, policy, p, x)
  q = np.empty(d * n * len(tab.actions))
  v = np.empty((d, n))
  out = np.empty((2, players, n))
  for p in range(players):
    for k in range(2):
      player_pass(tab, rule, 0, p, k == 0, False, policy, x, x, x, x, q, v)
      out[k, p] = v[0]
  return out
