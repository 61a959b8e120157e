"""A two-player zero-sum game tree walked once into flat numpy arrays (sequence form).

``GameTree.from_game(game)`` enumerates every history of an OpenSpiel game through its public
API (``new_initial_state``, ``child``, ``chance_outcomes``, ``legal_actions``,
``information_state_string``, ``returns``) and stores two views of it:

* the node level: one entry per history (chance, decision or terminal node) in depth-first
  preorder, so that ``node_parent[n] < n``;
* the sequence form (von Stengel, "Efficient computation of behavior strategies", GEB 1996;
  Koller, Megiddo, von Stengel, "Fast algorithms for finding randomized strategies in game trees",
  STOC 1994): per player p in (0, 1) the information sets, the sequences (sequence 0 is the empty
  sequence, the sequences (I, a) of one information set I form the contiguous block
  ``seq_start[I] .. seq_start[I] + num_actions[I] - 1``), the parent sequence of each information
  set, and per terminal z the utility u_p(z), the chance reach pi_c(z) and each player's sequence
  seq_p(z) leading to z.

With realization plans x_p (x_p[0] = 1, x_p[seq(I, a)] = x_p[parent(I)] sigma_p(I, a)) the
expected utility of player 0 is the bilinear form
``sum_z u_0(z) pi_c(z) x_0[seq_0(z)] x_1[seq_1(z)]``.

Information sets of a player are ordered by their depth (the number of the player's own earlier
actions, ``PlayerSequences.depth``) and, within a depth, by first visit; so ``parent_seq[I] <
seq_start[I]`` and each depth level is one contiguous range of information sets and of sequences.
``PlayerSequences.tabular_row[I]`` is the row of the information set in
``policy.TabularPolicy(game)``; ``GameTree.tabular_policy()`` builds that policy without walking
the game a second time.
"""

import dataclasses
import functools
from typing import List, Optional, Sequence, Tuple

import numpy as np
import pyspiel

from open_spiel.python import policy as policy_lib

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
DEFAULT_MAX_NODES = 2_000_000

_SUPPORTED_UTILITY = (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM)
_SUPPORTED_CHANCE = (pyspiel.GameType.ChanceMode.DETERMINISTIC,
                     pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC)


@dataclasses.dataclass(frozen=True)
class PlayerSequences:
  """One player's information sets and sequences.

  Attributes:
    player: 0 or 1.
    infoset_keys: ``information_state_string(player)`` of each information set.
    legal_actions: the legal actions of each information set, in OpenSpiel's order.
    num_actions: int array (num_infosets,).
    seq_start: int array (num_infosets,): first sequence of the information set's block.
    parent_seq: int array (num_infosets,): the player's sequence leading to the information set
      (0 = empty); ``parent_seq[I] < seq_start[I]``.
    depth: int array (num_infosets,): number of the player's own actions before the set;
      non-decreasing.
    seq_infoset: int array (num_sequences,): information set of each sequence (-1 for seq 0).
    seq_action: int array (num_sequences,): OpenSpiel action of each sequence (-1 for seq 0).
    tabular_row: int array (num_infosets,): row in ``policy.TabularPolicy(game)``.
  """

  player: int
  infoset_keys: Tuple[str, ...]
  legal_actions: Tuple[Tuple[int, ...], ...]
  num_actions: np.ndarray
  seq_start: np.ndarray
  parent_seq: np.ndarray
  depth: np.ndarray
  seq_infoset: np.ndarray
  seq_action: np.ndarray
  tabular_row: np.ndarray

  @property
  def num_infosets(self) -> int:
    return len(self.infoset_keys)

  @property
  def num_sequences(self) -> int:
    return len(self.seq_infoset)

  def level_bounds(self) -> np.ndarray:
    """Information-set index bounds of each depth level: level d is ``[b[d], b[d+1])``."""
    num_levels = int(self.depth.max()) + 1 if self.num_infosets else 0
    return np.searchsorted(self.depth, np.arange(num_levels + 1), side="left")


@dataclasses.dataclass(frozen=True)
class GameTree:
  """A game tree in flat arrays; build it with ``GameTree.from_game``.

  Node level (one entry per history, depth-first preorder, ``node_parent[n] < n``):
    node_parent: int array, -1 for the root.
    node_player: int array, 0 or 1 for decisions, ``CHANCE`` (-1) or ``TERMINAL`` (-4).
    node_infoset: int array, the acting player's information set index (-1 if none).
    node_action: int array, the action that led to the node (-1 for the root).
    node_depth: int array, number of actions (chance included) from the root.
    node_prob: float array, chance probability of the edge into the node (1 after a decision).
    node_seq: int array (num_nodes, 2), each player's sequence at the node.
    node_terminal: int array, terminal index of the node (-1 if not terminal).
    node_chance_reach: float array, product of the chance probabilities on the path to the node.

  Terminals:
    terminal_node: int array (num_terminals,), the node of each terminal.
    utility: float array (num_terminals, 2), ``state.returns()``.
    chance_reach: float array (num_terminals,), ``node_chance_reach`` of the terminals.
    terminal_seq: int array (num_terminals, 2), each player's sequence leading to the terminal.

  Other:
    players: the two ``PlayerSequences``.
    game: the game.
    utility_sum: the constant u_0 + u_1 (0 for zero-sum games).
  """

  game: pyspiel.Game
  players: Tuple[PlayerSequences, PlayerSequences]
  node_parent: np.ndarray
  node_player: np.ndarray
  node_infoset: np.ndarray
  node_action: np.ndarray
  node_depth: np.ndarray
  node_prob: np.ndarray
  node_seq: np.ndarray
  node_terminal: np.ndarray
  node_chance_reach: np.ndarray
  terminal_node: np.ndarray
  utility: np.ndarray
  terminal_seq: np.ndarray
  utility_sum: float
  _representative_node: Tuple[np.ndarray, np.ndarray]

  @functools.cached_property
  def chance_reach(self) -> np.ndarray:
    return self.node_chance_reach[self.terminal_node]

  @property
  def num_nodes(self) -> int:
    return len(self.node_parent)

  @property
  def num_terminals(self) -> int:
    return len(self.terminal_node)

  @property
  def utility0(self) -> np.ndarray:
    """Utility of player 0 at each terminal."""
    return self.utility[:, 0]

  @property
  def num_tabular_rows(self) -> int:
    return self.players[0].num_infosets + self.players[1].num_infosets

  @classmethod
  def from_game(cls, game: pyspiel.Game, max_nodes: int = DEFAULT_MAX_NODES) -> "GameTree":
    """Walks ``game`` once and returns its tree.

    Args:
      game: a two-player, zero- or constant-sum, sequential OpenSpiel game with perfect recall
        and explicit (or no) chance, Python or C++.
      max_nodes: the walk stops with an error when the tree has more histories than this.

    Returns:
      The ``GameTree``.

    Raises:
      ValueError: if the game is not supported or the tree exceeds ``max_nodes``; checked on the
        game type before the walk, and during the walk for imperfect recall, information sets
        whose legal actions differ, and terminals whose utilities do not sum to a constant.
    """
    check_supported(game)
    if max_nodes < 1:
      raise ValueError(f"max_nodes must be >= 1, got {max_nodes}")
    return _walk(game, max_nodes)

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """A uniform ``policy.TabularPolicy(game)``, built from one state per information set.

    ``TabularPolicy`` numbers information sets per player in the order of the smallest
    ``history_str()`` among their states; handing it exactly those states reproduces the
    numbering of a full walk, which is asserted against ``tabular_row``.
    """
    states = {}
    for player in (0, 1):
      for node in self._representative_node[player]:
        state = self.state_at(int(node))
        states[state.history_str()] = state
    tabular = policy_lib.TabularPolicy(self.game, states=states)
    for p in self.players:
      rows = [tabular.state_lookup.get(k, -1) for k in p.infoset_keys]
      if not np.array_equal(rows, p.tabular_row):
        raise AssertionError("TabularPolicy numbering differs from GameTree.tabular_row")
    return tabular

  def history(self, node: int) -> List[int]:
    """The actions from the root to ``node``."""
    actions = []
    while node > 0:
      actions.append(int(self.node_action[node]))
      node = int(self.node_parent[node])
    return actions[::-1]

  def state_at(self, node: int) -> pyspiel.State:
    """A fresh OpenSpiel state for ``node``, by replaying its history."""
    state = self.game.new_initial_state()
    for action in self.history(node):
      state.apply_action(action)
    return state

  def behavioural_from_tabular(self, tabular: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Per player, sigma_p[seq(I, a)] = tabular[tabular_row[I], a] (sigma_p[0] = 1).

    Args:
      tabular: ``action_probability_array`` of a ``TabularPolicy`` of this game.
    """
    if tabular.shape[0] != self.num_tabular_rows:
      raise ValueError(f"policy has {tabular.shape[0]} rows, the game has "
                       f"{self.num_tabular_rows} information sets")
    out = []
    for p in self.players:
      sigma = np.ones(p.num_sequences)
      rows = p.tabular_row[p.seq_infoset[1:]]
      sigma[1:] = tabular[rows, p.seq_action[1:]]
      out.append(sigma)
    return out[0], out[1]

  def tabular_from_behavioural(self, sigmas: Sequence[np.ndarray],
                               out: Optional[np.ndarray] = None) -> np.ndarray:
    """Inverse of ``behavioural_from_tabular``: writes the sigmas into a tabular array.

    Args:
      sigmas: per player, an array over the player's sequences.
      out: the array to fill (e.g. a ``TabularPolicy.action_probability_array``); a zero array
        of shape (num_tabular_rows, num_distinct_actions) if None. Entries of illegal actions
        are left as they are.
    """
    if out is None:
      out = np.zeros((self.num_tabular_rows, self.game.num_distinct_actions()))
    for p, sigma in zip(self.players, sigmas):
      rows = p.tabular_row[p.seq_infoset[1:]]
      out[rows, p.seq_action[1:]] = sigma[1:]
    return out


def check_supported(game: pyspiel.Game) -> None:
  """Raises ValueError naming the problem if the game type is outside what the tree handles."""
  game_type = game.get_type()
  name = game_type.short_name
  if game.num_players() != 2:
    raise ValueError(f"{name}: needs exactly 2 players, got {game.num_players()}")
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise ValueError(f"{name}: needs sequential dynamics, got {game_type.dynamics} "
                     "(wrap simultaneous games with turn_based_simultaneous_game)")
  if game_type.utility not in _SUPPORTED_UTILITY:
    raise ValueError(f"{name}: needs a zero-sum or constant-sum game, got {game_type.utility}")
  if game_type.chance_mode not in _SUPPORTED_CHANCE:
    raise ValueError(f"{name}: needs deterministic or explicit stochastic chance, got "
                     f"{game_type.chance_mode}")
  if not game_type.provides_information_state_string:
    raise ValueError(f"{name}: needs information_state_string (perfect recall information sets)")


def _walk(game: pyspiel.Game, max_nodes: int) -> GameTree:
  """Depth-first walk of every history; see ``GameTree.from_game``."""
  name = game.get_type().short_name
  parent, player_of, infoset_tmp, action_of, depth_of, prob_of = [], [], [], [], [], []
  reach_of = []
  last = ([], [])  # Per player: (tmp infoset, action position) of the last own action, per node.
  terminal_nodes, utilities = [], []
  # Per player, per temporary (first-visit) information set.
  keys = ([], [])
  index = ({}, {})
  legal = ([], [])
  parent_tmp = ([], [])  # (tmp infoset, action position) of the parent sequence, or (-1, 0).
  depth_tmp = ([], [])
  best_hist = ([], [])  # Smallest history string and its node, for TabularPolicy's order.
  utility_sum = None

  # Stack entries: state, parent node, action, depth, chance prob, history string, last seqs.
  stack = [(game.new_initial_state(), -1, -1, 0, 1.0, "", (-1, 0), (-1, 0))]
  while stack:
    state, par, action, depth, prob, hist, last0, last1 = stack.pop()
    node = len(parent)
    if node >= max_nodes:
      raise ValueError(f"{name}: tree has more than max_nodes={max_nodes} histories")
    parent.append(par)
    action_of.append(action)
    depth_of.append(depth)
    prob_of.append(prob)
    reach_of.append(prob * reach_of[par] if par >= 0 else prob)
    last[0].append(last0)
    last[1].append(last1)
    prefix = hist + ", " if hist else ""
    if state.is_terminal():
      player_of.append(TERMINAL)
      infoset_tmp.append(-1)
      returns = state.returns()
      total = returns[0] + returns[1]
      if utility_sum is None:
        utility_sum = total
      elif abs(total - utility_sum) > 1e-9 * max(1.0, abs(utility_sum)):
        raise ValueError(f"{name}: utilities sum to {utility_sum} and {total} at two terminals; "
                         "only zero-sum or constant-sum games are supported")
      terminal_nodes.append(node)
      utilities.append((returns[0], returns[1]))
      continue
    if state.is_chance_node():
      player_of.append(CHANCE)
      infoset_tmp.append(-1)
      outcomes = state.chance_outcomes()
      total = sum(p for _, p in outcomes)
      if abs(total - 1.0) > 1e-9:
        raise ValueError(f"{name}: chance probabilities at history [{hist}] sum to {total}")
      for a, p in reversed(outcomes):
        if p > 0:
          stack.append((state.child(a), node, a, depth + 1, p, prefix + str(a), last0, last1))
      continue
    if state.is_simultaneous_node() or state.is_mean_field_node():
      raise ValueError(f"{name}: history [{hist}] is not a sequential decision node")
    pl = state.current_player()
    key = state.information_state_string(pl)
    actions = tuple(state.legal_actions(pl))
    own = last0 if pl == 0 else last1
    tmp = index[pl].get(key)
    if tmp is None:
      tmp = len(keys[pl])
      index[pl][key] = tmp
      keys[pl].append(key)
      legal[pl].append(actions)
      parent_tmp[pl].append(own)
      depth_tmp[pl].append(0 if own[0] < 0 else depth_tmp[pl][own[0]] + 1)
      best_hist[pl].append((hist, node))
    else:
      if parent_tmp[pl][tmp] != own:
        raise ValueError(f"{name}: imperfect recall: information set {key!r} of player {pl} is "
                         "reached after different own sequences")
      if legal[pl][tmp] != actions:
        raise ValueError(f"{name}: information set {key!r} has legal actions "
                         f"{legal[pl][tmp]} and {actions} in two histories")
      if hist < best_hist[pl][tmp][0]:
        best_hist[pl][tmp] = (hist, node)
    player_of.append(pl)
    infoset_tmp.append(tmp)
    for k in range(len(actions) - 1, -1, -1):
      a = actions[k]
      child_last = (tmp, k)
      stack.append((state.child(a), node, a, depth + 1, 1.0, prefix + str(a),
                    child_last if pl == 0 else last0, child_last if pl == 1 else last1))

  if not terminal_nodes:
    raise ValueError(f"{name}: the game tree has no terminal history")

  node_player = np.array(player_of, dtype=np.int64)
  node_parent = np.array(parent, dtype=np.int64)
  node_prob = np.array(prob_of, dtype=np.float64)
  node_infoset = np.array(infoset_tmp, dtype=np.int64)
  players = []
  node_seq = np.zeros((len(parent), 2), dtype=np.int64)
  representative = []
  for pl in (0, 1):
    n_inf = len(keys[pl])
    depth = np.array(depth_tmp[pl], dtype=np.int64)
    order = np.argsort(depth, kind="stable")  # final index -> tmp index
    final_of_tmp = np.empty(n_inf, dtype=np.int64)
    final_of_tmp[order] = np.arange(n_inf)
    num_actions = np.array([len(legal[pl][t]) for t in order], dtype=np.int64)
    seq_start = 1 + np.cumsum(num_actions) - num_actions  # Sequence 0 is the empty one.
    start_of_tmp = seq_start[final_of_tmp]

    def to_seq(pairs, start_of_tmp=start_of_tmp):
      arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
      out = np.zeros(len(arr), dtype=np.int64)
      has = arr[:, 0] >= 0
      out[has] = start_of_tmp[arr[has, 0]] + arr[has, 1]
      return out

    parent_seq = to_seq([parent_tmp[pl][t] for t in order])
    num_seq = 1 + int(num_actions.sum())
    seq_infoset = np.full(num_seq, -1, dtype=np.int64)
    seq_action = np.full(num_seq, -1, dtype=np.int64)
    if n_inf:
      seq_infoset[1:] = np.repeat(np.arange(n_inf), num_actions)
      seq_action[1:] = np.concatenate([legal[pl][t] for t in order])
    # TabularPolicy rows: player 0's sets first, each player's in order of smallest history_str.
    hist_order = sorted(range(n_inf), key=lambda t: best_hist[pl][t][0])
    tabular_row = np.empty(n_inf, dtype=np.int64)
    offset = 0 if pl == 0 else len(keys[0])
    tabular_row[final_of_tmp[hist_order]] = offset + np.arange(n_inf)
    representative.append(np.array([best_hist[pl][t][1] for t in order], dtype=np.int64))
    players.append(PlayerSequences(
        player=pl,
        infoset_keys=tuple(keys[pl][t] for t in order),
        legal_actions=tuple(legal[pl][t] for t in order),
        num_actions=num_actions,
        seq_start=seq_start,
        parent_seq=parent_seq,
        depth=depth[order],
        seq_infoset=seq_infoset,
        seq_action=seq_action,
        tabular_row=tabular_row))
    node_seq[:, pl] = to_seq(last[pl])
    acting = node_player == pl
    node_infoset[acting] = final_of_tmp[node_infoset[acting]]

  terminal_node = np.array(terminal_nodes, dtype=np.int64)
  node_terminal = np.full(len(parent), -1, dtype=np.int64)
  node_terminal[terminal_node] = np.arange(len(terminal_node))
  return GameTree(
      game=game,
      players=(players[0], players[1]),
      node_parent=node_parent,
      node_player=node_player,
      node_infoset=node_infoset,
      node_action=np.array(action_of, dtype=np.int64),
      node_depth=np.array(depth_of, dtype=np.int64),
      node_prob=node_prob,
      node_seq=node_seq,
      node_terminal=node_terminal,
      node_chance_reach=np.array(reach_of, dtype=np.float64),
      terminal_node=terminal_node,
      utility=np.array(utilities, dtype=np.float64),
      terminal_seq=node_seq[terminal_node],
      utility_sum=float(utility_sum),
      _representative_node=(representative[0], representative[1]))
