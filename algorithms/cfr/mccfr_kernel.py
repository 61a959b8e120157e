"""Compiled Monte Carlo CFR: external- and outcome-sampling passes over a tree's node arrays.

Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret minimization in extensive
games", NeurIPS 2009 (below: the paper). A pass of player i samples a set Q of terminal
histories with probability q(z) and estimates player i's counterfactual value of an information
set I by the sampled counterfactual value (the paper's Section 3; its Lemma 1: E[v~] = v)

  v~_i(sigma, I) = sum_{z in Q, z through I} u_i(z) pi_{-i}(z[I]) pi^sigma(z[I], z) / q(z),

and adds the sampled regret r~(I, a) = v~_i(sigma_{I->a}, I) - v~_i(sigma, I) to R(I, a); the
next policy is regret matching of R (Hart and Mas-Colell 2000). The passes here make exactly
the updates of OpenSpiel's Python ``external_sampling_mccfr`` and ``outcome_sampling_mccfr``
(the module ``mccfr`` states which, with the citations) and draw the same random numbers in the
same order: numpy's legacy Mersenne Twister (``RandomState``, which ``np.random.choice``
draws from) is run here, one uniform number per ``choice`` call, turned into an index by the
inverse-CDF rule of ``choice(..., p=p)`` (``sample_index``).

The tree is walked over its node arrays (``NodeTables``) with an explicit stack; the states
(regrets R, average numerators S, current policy sigma) are global per-sequence arrays of
``tree_layout.TreeArrays``, sigma(I, .) kept equal to regret matching of R(I, .) by
``rule_kernel.match_block`` after every update of R(I, .). A pass visits each information set
of the updated player at most once (perfect recall: two histories of one set part at a chance
or opponent node, where a pass follows one branch), so reading sigma where OpenSpiel
recomputes regret matching at each visit gives the same policy.
"""

from typing import NamedTuple

import numpy as np

from algorithms.cfr.cfr_kernel import realize
from algorithms.cfr.kernel_compiler import kernel
from algorithms.cfr.rule_kernel import match_block
from algorithms.tree.game_tree import CHANCE
from algorithms.tree.game_tree import TERMINAL
from algorithms.tree.tree_layout import KernelLayout

# MT19937's parameters (Matsumoto and Nishimura, "Mersenne twister: a 623-dimensionally
# equidistributed uniform pseudo-random number generator", ACM TOMACS 1998): degree n, middle
# word m, the twist matrix's last row a, the masks of the upper bit and the lower 31 bits, and
# the tempering masks b and c.
_MT_N = 624
_MT_M = 397
_MT_A = 0x9908B0DF
_MT_UPPER = 0x80000000
_MT_LOWER = 0x7FFFFFFF
_MT_B = 0x9D2C5680
_MT_C = 0xEFC60000


class NodeTables(NamedTuple):
  """A ``GameTree``'s nodes as the passes walk them (built by ``mccfr.node_tables``).

  Attributes (H nodes, T terminals, K global information sets):
    node_player: (H,) int64, the acting player, ``CHANCE`` (-1) or ``TERMINAL`` (-4).
    node_infoset: (H,) int64, the global information set of a decision node (-1 elsewhere).
    node_terminal: (H,) int64, the terminal index of a terminal node (-1 elsewhere).
    child_ptr: (H + 1,) int64, node h's children are ``children[child_ptr[h]:child_ptr[h + 1]]``,
      in OpenSpiel's order (legal actions, so child j of a decision node is the set's j-th
      sequence; ``chance_outcomes`` at a chance node).
    children: (H - 1,) int64.
    child_prob: (H - 1,) float64, the chance probability of each child's edge (1 after a
      decision).
    utility: (T, N) float64, ``state.returns()``.
    infoset_histories: (K,) float64, the number of histories of each information set.
    max_depth: the number of nodes on the longest path from the root.
    max_actions: the largest number of actions of an information set.
  """

  node_player: np.ndarray
  node_infoset: np.ndarray
  node_terminal: np.ndarray
  child_ptr: np.ndarray
  children: np.ndarray
  child_prob: np.ndarray
  utility: np.ndarray
  infoset_histories: np.ndarray
  max_depth: int
  max_actions: int


# Random numbers: numpy's legacy generator --------------------------------------------------


@kernel
def _mt_twist(key: np.ndarray) -> None:
  """MT19937's state transition: the next 624 words of the recurrence, in place.

  x_{k+n} = x_{k+m} xor ((upper(x_k) | lower(x_{k+1})) A), where multiplying a word y by A is
  y >> 1, xor a if y is odd (Matsumoto and Nishimura 1998, Eq. 2.1); computed in place in
  increasing k, so that words k + 1 and k + m past the end are the new ones.
  """
  for k in range(_MT_N):
    y = (np.int64(key[k]) & _MT_UPPER) | (np.int64(key[(k + 1) % _MT_N]) & _MT_LOWER)
    word = np.int64(key[(k + _MT_M) % _MT_N]) ^ (y >> 1)  # x_{k+m} xor (y >> 1)
    if y & 1:
      word ^= _MT_A  # xor a when y is odd: y A
    key[k] = np.uint32(word)


@kernel
def _mt_next(key: np.ndarray, pos: np.ndarray) -> int:
  """The next 32-bit output of MT19937 with state (``key``, ``pos[0]``), advancing it.

  The state is numpy's (``RandomState.get_state()[1:3]``): 624 words and the position of the
  next one, 624 when the words are used up (then the state is twisted first). The output is the
  tempered word (Matsumoto and Nishimura 1998, Eq. 2.2-2.5).
  """
  if pos[0] >= _MT_N:
    _mt_twist(key)
    pos[0] = 0
  y = np.int64(key[pos[0]])
  pos[0] += 1
  y ^= y >> 11  # tempering: y xor (y >> u)
  y ^= (y << 7) & _MT_B  # y xor ((y << s) and b)
  y ^= (y << 15) & _MT_C  # y xor ((y << t) and c)
  return y ^ (y >> 18)  # y xor (y >> l)


@kernel
def uniform(key: np.ndarray, pos: np.ndarray) -> float:
  """A uniform number in [0, 1) as numpy's ``RandomState.random_sample()`` draws it.

  Two outputs a, b of MT19937 give (a >> 5) 2^26 + (b >> 6), a 53-bit integer, divided by 2^53.
  """
  a = _mt_next(key, pos) >> 5  # the upper 27 bits of a
  b = _mt_next(key, pos) >> 6  # the upper 26 bits of b
  return (a * 67108864.0 + b) / 9007199254740992.0  # (a 2^26 + b) / 2^53


@kernel
def sample_index(p: np.ndarray, start: int, size: int, u: float) -> int:
  """The index j in 0..size-1 that ``np.random.choice(size, p=p[start:start + size])`` takes.

  With the uniform number u of that call, ``choice`` forms the cumulative sums
  c_j = p_0 + ... + p_j (left to right, as ``cumsum``) and takes the first j with
  c_j / c_{size-1} > u, so P(j) = p_j / sum_k p_k.
  """
  total = 0.0
  for j in range(size):
    total += p[start + j]  # c_{size-1}, the last cumulative sum
  running = 0.0
  for j in range(size - 1):
    running += p[start + j]  # c_j
    if running / total > u:  # the first j with c_j / c_{size-1} > u
      return j
  return size - 1  # c_{size-1} / c_{size-1} = 1 > u


# External sampling ---------------------------------------------------------------------------


@kernel
def external_pass(lay: KernelLayout, tables: NodeTables, player: int, simple_average: bool,
                  sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                  key: np.ndarray, pos: np.ndarray, frame_node: np.ndarray,
                  frame_action: np.ndarray, child_values: np.ndarray) -> float:
  """One external-sampling pass of ``player`` i (the paper's Section 3.2), in place.

  Depth first from the root, in OpenSpiel's order: a chance node draws one outcome with its
  probability, a node of another player one action from sigma, and a node of i follows every
  action. The value of a node is the sampled counterfactual value divided by pi_{-i}:

    v~(h) = u_i(h) at a terminal; v~(h a~) for the sampled child at chance and opponent nodes;
    v~(h) = sum_a sigma(I, a) v~(h a) at a node of i,

  and at i's set I of h, R(I, a) += v~(h a) - v~(h): here q(z) = pi_{-i}(z) for every sampled
  z, so the sampled value's weight pi_{-i}(z[I]) / q(z) is 1 / pi_{-i}(z[I], z), which cancels
  the sampled tail, and v~(h a) - v~(h) is the paper's sampled regret r~(I, a). With
  ``simple_average``, each visited node of player j = i + 1 mod N adds S(J, a) += sigma(J, a):
  j's reach pi_j(h) over j's part of the probability of sampling h, pi_j(h) (stochastically-
  weighted averaging, Lanctot's thesis, 2013, Chapter 4). A history h of J is visited with
  probability pi_c(h) prod_{k != i} pi_k(h), so in two players S(J, a) gains
  pi_j(J) sigma(J, a) sum_{h in J} pi_c(h) in expectation, a constant per set times the
  average's numerator; with more players the other opponents' reach weighs in as well (the
  bias OpenSpiel's comment on its ``AverageType`` describes).

  Args:
    lay: the layout (information sets' sequences).
    tables: the nodes.
    player: i.
    simple_average: update S at player i + 1 mod N's nodes as above.
    sigma: (G,) the current policy, regret matching of ``regrets``; updated at i's sets.
    regrets: (G,) R, updated at i's visited sets.
    cumulative: (G,) S.
    key: (624,) uint32, the generator's words; advanced.
    pos: (1,) int64, the generator's position; advanced.
    frame_node: (max_depth,) int64 scratch: the node of each stack frame.
    frame_action: (max_depth,) int64 scratch: the action a frame follows.
    child_values: (max_depth, max_actions) float64 scratch: v~(h a) of i's frames.

  Returns:
    v~(root).
  """
  averaged = (player + 1) % lay.num_players  # simple averaging's player i + 1 mod N
  top = 0
  frame_node[0] = 0
  descending = True  # entering frame_node[top], or returning to it with a child's value
  value = 0.0
  while top >= 0:
    node = frame_node[top]
    who = tables.node_player[node]
    first_child = tables.child_ptr[node]
    if who == TERMINAL:
      value = tables.utility[tables.node_terminal[node], player]  # v~(z) = u_i(z)
      descending = False
      top -= 1
      continue
    if who == CHANCE:
      if descending:  # Sample outcome e with probability p_e.
        e = sample_index(tables.child_prob, first_child,
                         tables.child_ptr[node + 1] - first_child, uniform(key, pos))
        top += 1
        frame_node[top] = tables.children[first_child + e]
      else:  # v~(h) = v~(h e), the sampled outcome's.
        top -= 1
      continue
    k = tables.node_infoset[node]
    start = lay.infoset_start[k]
    size = lay.infoset_num_actions[k]
    if descending:
      # Sample a ~ sigma(J, .) at another player's node; at i's, follow a = 0, 1, ...
      a = 0 if who == player else sample_index(sigma, start, size, uniform(key, pos))
      frame_action[top] = a
      top += 1
      frame_node[top] = tables.children[first_child + a]
      continue
    a = frame_action[top]
    if who != player:  # v~(h) = v~(h a~); simple averaging at i + 1's nodes
      if simple_average and who == averaged:
        for s in range(start, start + size):
          cumulative[s] += sigma[s]  # S(J, a) += sigma(J, a)
      top -= 1
      continue
    child_values[top, a] = value  # v~(h a)
    if a + 1 < size:  # Next action of i.
      frame_action[top] = a + 1
      top += 1
      frame_node[top] = tables.children[first_child + a + 1]
      descending = True
      continue
    value = 0.0
    for b in range(size):
      value += sigma[start + b] * child_values[top, b]  # v~(h) = sum_a sigma(I, a) v~(h a)
    for b in range(size):
      regrets[start + b] += child_values[top, b] - value  # R(I, a) += v~(h a) - v~(h)
    match_block(regrets, sigma, start, size)  # sigma(I, .) = regret matching of R(I, .)
    top -= 1
  return value


@kernel
def full_average(lay: KernelLayout, tables: NodeTables, sigma: np.ndarray,
                 cumulative: np.ndarray, x: np.ndarray) -> None:
  """OpenSpiel's "full" averaging: S(I, a) += sum_{h in I} pi_i(h) sigma(I, a), every history.

  By perfect recall pi_i(h) = x_i(I) for every h in I, so the sum is n(I) x_i(I, a) with n(I)
  the number of histories of I and x the realization plans of sigma (``cfr_kernel.realize``).
  This is the unweighted (no chance reach) full-width average that OpenSpiel adds after the
  regret passes of an iteration.

  Args:
    lay: the layout.
    tables: the nodes (their ``infoset_histories`` n(I)).
    sigma: (G,) the current policy.
    cumulative: (G,) S, added to.
    x: (G,) scratch.
  """
  n = lay.num_players
  x[:n] = 1.0  # x[empty_p] = 1
  realize(lay, sigma, x, lay.pass_infosets, lay.pass_infoset_ptr[n], lay.pass_infoset_ptr[n + 1])
  for k in range(len(lay.infoset_start)):
    count = tables.infoset_histories[k]  # n(I)
    start = lay.infoset_start[k]
    for s in range(start, start + lay.infoset_num_actions[k]):
      cumulative[s] += count * x[s]  # S(I, a) += n(I) x_i(I, a)


@kernel
def external_iterations(lay: KernelLayout, tables: NodeTables, simple_average: bool,
                        sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                        key: np.ndarray, pos: np.ndarray, count: int) -> None:
  """``count`` iterations of external-sampling MCCFR, in place.

  An iteration is one ``external_pass`` per player 0, 1, ..., N - 1, each against the policy
  the previous one left, then ``full_average`` unless ``simple_average``.
  """
  frame_node = np.empty(tables.max_depth, dtype=np.int64)
  frame_action = np.empty(tables.max_depth, dtype=np.int64)
  child_values = np.empty((tables.max_depth, tables.max_actions))
  x = np.empty(len(sigma))
  for _ in range(count):
    for player in range(lay.num_players):
      external_pass(lay, tables, player, simple_average, sigma, regrets, cumulative, key, pos,
                    frame_node, frame_action, child_values)
    if not simple_average:
      full_average(lay, tables, sigma, cumulative, x)


# Outcome sampling ----------------------------------------------------------------------------


@kernel
def outcome_pass(lay: KernelLayout, tables: NodeTables, player: int, epsilon: float,
                 sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                 key: np.ndarray, pos: np.ndarray, path_node: np.ndarray,
                 path_action: np.ndarray, path_reach: np.ndarray,
                 sample_policy: np.ndarray) -> float:
  """One outcome-sampling pass of ``player`` i (the paper's Section 3.1), in place.

  Down: one terminal z is sampled, chance by its probabilities, other players by sigma, and i
  by the epsilon-on-policy sigma'(I, a) = epsilon / |A(I)| + (1 - epsilon) sigma(I, a), so
  q(z) = pi^{sigma'}(z). Each node h on the path keeps pi_i(h), pi_{-i}(h) (chance included)
  and q(h). Up, with the baseline-free estimator (OpenSpiel's baseline 0 in the baseline form
  of Schmid et al., "Variance reduction in Monte Carlo counterfactual regret minimization
  (VR-MCCFR) for extensive form games using baselines", AAAI 2019, Eq. 9): the sampled child
  a~ of h gets v~(h a~) = v~(child) / sigma'(a~) (sigma(a~) at another player's node), the
  other children 0, and v~(h) = sum_a sigma(I, a) v~(h a) = sigma(I, a~) v~(h a~), v~(z) =
  u_i(z): v~(h) = u_i(z) pi^sigma(h, z) / q(h, z). At i's set I of h, with
  W = pi_{-i}(h) / q(h), the paper's sampled regret and the stochastically-weighted average
  (Lanctot's thesis, 2013, Chapter 4; h is visited with probability q(h), so S(I, a) gains
  sum_{h in I} pi_i(h) sigma(I, a) in expectation):

    R(I, a) += W v~(h a) - W v~(h),    S(I, a) += pi_i(h) sigma(I, a) / q(h).

  Args:
    lay: the layout.
    tables: the nodes.
    player: i.
    epsilon: the exploration of i's sampling policy, in (0, 1].
    sigma: (G,) the current policy, regret matching of ``regrets``; updated at i's sets.
    regrets: (G,) R, updated at i's sets on the path.
    cumulative: (G,) S, updated at i's sets on the path.
    key: (624,) uint32, the generator's words; advanced.
    pos: (1,) int64, the generator's position; advanced.
    path_node: (max_depth,) int64 scratch: the nodes of the path.
    path_action: (max_depth,) int64 scratch: the child sampled at each.
    path_reach: (max_depth, 4) float64 scratch: pi_i(h), pi_{-i}(h), q(h) and the sampled
      child's sampling probability.
    sample_policy: (max_actions,) float64 scratch: sigma' at a node of i.

  Returns:
    v~(root).
  """
  node = 0
  depth = 0
  mine, others, sampled = 1.0, 1.0, 1.0  # pi_i(h), pi_{-i}(h), q(h)
  while tables.node_player[node] != TERMINAL:
    who = tables.node_player[node]
    first_child = tables.child_ptr[node]
    path_node[depth] = node
    path_reach[depth, 0] = mine
    path_reach[depth, 1] = others
    path_reach[depth, 2] = sampled
    if who == CHANCE:  # e with probability p_e: pi_{-i} and q gain p_e
      e = sample_index(tables.child_prob, first_child, tables.child_ptr[node + 1] - first_child,
                       uniform(key, pos))
      probability = tables.child_prob[first_child + e]
      others = probability * others
      sampled = probability * sampled
    else:
      k = tables.node_infoset[node]
      start = lay.infoset_start[k]
      size = lay.infoset_num_actions[k]
      if who == player:  # a ~ sigma'(I, .) = epsilon uniform + (1 - epsilon) sigma(I, .)
        for b in range(size):
          sample_policy[b] = epsilon * (1.0 / size) + (1.0 - epsilon) * sigma[start + b]
        e = sample_index(sample_policy, 0, size, uniform(key, pos))
        probability = sample_policy[e]
        mine = mine * sigma[start + e]  # pi_i(h a) = pi_i(h) sigma(I, a)
      else:  # a ~ sigma(J, .)
        e = sample_index(sigma, start, size, uniform(key, pos))
        probability = sigma[start + e]
        others = others * probability  # pi_{-i}(h a) = pi_{-i}(h) sigma(J, a)
      sampled = sampled * probability  # q(h a) = q(h) sigma'(a)
      path_reach[depth, 3] = probability
    path_action[depth] = e
    node = tables.children[first_child + e]
    depth += 1
  value = tables.utility[tables.node_terminal[node], player]  # v~(z) = u_i(z)
  for d in range(depth - 1, -1, -1):
    node = path_node[d]
    who = tables.node_player[node]
    if who == CHANCE:
      continue  # v~(h) = v~(h e): the chance probability cancels in pi^sigma / q
    k = tables.node_infoset[node]
    start = lay.infoset_start[k]
    size = lay.infoset_num_actions[k]
    e = path_action[d]
    child = value / path_reach[d, 3]  # v~(h a~) = v~(child) / sigma'(a~)
    value = sigma[start + e] * child  # v~(h) = sigma(I, a~) v~(h a~)
    if who == player:
      mine, others, sampled = path_reach[d, 0], path_reach[d, 1], path_reach[d, 2]
      counterfactual = value * others / sampled  # W v~(h)
      for b in range(size):
        action_value = child if b == e else 0.0  # v~(h a)
        # R(I, a) += W v~(h a) - W v~(h)
        regrets[start + b] += action_value * others / sampled - counterfactual
        cumulative[start + b] += mine * sigma[start + b] / sampled  # pi_i(h) sigma(I, a) / q(h)
      match_block(regrets, sigma, start, size)  # sigma(I, .) = regret matching of R(I, .)
  return value


@kernel
def outcome_iterations(lay: KernelLayout, tables: NodeTables, epsilon: float,
                       sigma: np.ndarray, regrets: np.ndarray, cumulative: np.ndarray,
                       key: np.ndarray, pos: np.ndarray, count: int) -> None:
  """``count`` iterations of outcome-sampling MCCFR: one ``outcome_pass`` per player 0..N-1."""
  path_node = np.empty(tables.max_depth, dtype=np.int64)
  path_action = np.empty(tables.max_depth, dtype=np.int64)
  path_reach = np.empty((tables.max_depth, 4))
  sample_policy = np.empty(tables.max_actions)
  for _ in range(count):
    for player in range(lay.num_players):
      outcome_pass(lay, tables, player, epsilon, sigma, regrets, cumulative, key, pos, path_node,
                   path_action, path_reach, sample_policy)
