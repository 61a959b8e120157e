"""The depth-limited cut of a game over its public states: the trunk and the leaf subgames.

Depth-limited solving over public states (Burch, Johanson, Bowling, "Solving imperfect
information games using decomposition" (CFR-D), AAAI 2014; Brown, Bakhtin, Lerer, Gong, ReBeL,
NeurIPS 2020, arXiv 2007.13544) splits a game after k player actions:

* the trunk is every history with fewer than k player actions (chance moves are not counted),
  plus the terminals reached by the k-th action;
* every other history lies below a leaf root, the first history after the k-th player action;
  leaf roots are grouped by their public state, read from OpenSpiel's public observation
  ``make_observation(game, IIGObservationType(perfect_recall=True, public_info=True,
  private_info=NONE))``, and each public state with the histories below its roots is one leaf
  subgame.

The cut is valid when every information set lies wholly in the trunk or wholly in one leaf; this
is checked, so a game whose player actions are not public (or whose public observation does not
separate the leaves) gets a ``ValueError`` instead of a wrong decomposition.

A leaf subgame with belief beta over its root histories h (the PBS) is the two-player zero-sum
game that starts with a chance move drawing h with probability beta(h); each player's
information sets in it are the game's own. ``LeafSubgame.tree`` is that game as a
``GameTree`` whose root is a chance node and whose ``chance_reach`` is the chance probability
below the root, pi_c(z) / pi_c(h); ``LeafSubgame.weighted_utility(beta)`` gives the terminal
weights u(z) beta(h) pi_c(z | h) of the engine's ``TreeArrays`` for a given belief, so the
sequence-form matrices and the flat arrays are built once and only the belief changes.

The cut is defined for two-player games only (a PBS of more players is not a two-player
zero-sum subgame); ``PublicTree.cut`` refuses other games.
"""

import copy
import dataclasses
from typing import Optional, Tuple

import numpy as np
import pyspiel

from algorithms.cfr import tree_passes
from algorithms.rebel import public_views
from algorithms.tree import game_shortcuts
from algorithms.tree.game_shortcuts import PublicBeliefs
from algorithms.tree.game_tree import CHANCE
from algorithms.tree.game_tree import TERMINAL
from algorithms.tree.game_tree import GameTree
from algorithms.tree.sequence_form import PlayerSequences
from algorithms.tree.sequence_form import player_sequences
from algorithms.tree.tree_layout import TreeArrays


@dataclasses.dataclass(frozen=True)
class LeafSubgame:
  """One leaf public state and the game below it.

  Attributes:
    index: position of the leaf in ``PublicTree.leaves``.
    public_state: the public observation string of the leaf (e.g. the betting "pb" in Kuhn).
    root_nodes: int array (R,), the full tree's nodes of the leaf's root histories.
    root_seq: int array (R, 2), each player's trunk sequence at each root (full ``TreeArrays``
      global index).
    root_chance: float array (R,), chance reach pi_c(h) of each root.
    tree: the leaf game as a ``GameTree`` with a chance root (array-level use only: its ``game``
      is the full game, so ``state_at`` and ``tabular_policy`` do not apply to it).
    arrays: ``TreeArrays(tree)``.
    terminal_root: int array (T_leaf,), root index of each leaf terminal.
    full_terminal: int array (T_leaf,), the terminal's index in the full tree.
    full_seq: int array (G_leaf,), full global sequence of each leaf sequence (-1 for the empty
      ones).
    node_root: int array, root index of each leaf node (-1 for the chance root).
    node_chance: float array, chance probability from the node's root, pi_c(n) / pi_c(h).
    acting_players: the players with an information set in the leaf.
    private_states: int array (R, 2), each player's private state at each root (its index in
      ``PublicTree.private_labels``; ``public_views.private_states``).
    deals: int array (R,), each root's deal: the index of its pair of private states in
      ``deal_states``.
    deal_states: int array (D, 2), the cut's deals, each a pair of private states, in
      lexicographic order (Kuhn poker: ``KuhnRules.deals()``, every ordered pair of cards).
    beliefs: for a game with registered public beliefs (``game_shortcuts``; Kuhn poker), its
      ``PublicBeliefs``, else None.
  """

  index: int
  public_state: str
  root_nodes: np.ndarray
  root_seq: np.ndarray
  root_chance: np.ndarray
  tree: GameTree
  arrays: TreeArrays
  terminal_root: np.ndarray
  full_terminal: np.ndarray
  full_seq: np.ndarray
  node_root: np.ndarray
  node_chance: np.ndarray
  acting_players: Tuple[int, ...]
  private_states: np.ndarray
  deals: np.ndarray
  deal_states: np.ndarray
  beliefs: Optional[PublicBeliefs]

  @property
  def num_roots(self) -> int:
    return len(self.root_nodes)

  def weighted_utility(self, belief: np.ndarray) -> np.ndarray:
    """(T_leaf, 2): u_p(z) beta(h(z)) pi_c(z | h(z)), the terminal weights at belief beta.

    Any per-root weights can stand for beta, e.g. counterfactual ones (chance times the
    opponent's trunk reach).
    """
    return self.tree.utility * (belief[self.terminal_root] * self.tree.chance_reach)[:, None]

  def arrays_at(self, belief: np.ndarray) -> TreeArrays:
    """``arrays`` with the terminal weights of belief beta (``weighted_utility``): the leaf game
    at that PBS, for ``CFREngine`` or ``TreeEvaluator``.

    The copy is shallow: it shares the index arrays with ``arrays``; only the weights differ.
    """
    arrays = copy.copy(self.arrays)
    arrays.weighted_utility = self.weighted_utility(belief)
    return arrays

  def root_values(self, policy: np.ndarray) -> np.ndarray:
    """Player 0's expected utility from each root under ``policy`` (leaf global layout).

    u_0(h) = sum_{z below h} u_0(z) pi_c(z | h) x_0(z) x_1(z), with x the leaf realization plans.
    """
    a = self.arrays
    x = tree_passes.realization(a, policy)
    reach = x[a.terminal_seq[:, 0]] * x[a.terminal_seq[:, 1]] * self.tree.chance_reach
    return np.bincount(self.terminal_root, weights=reach * self.tree.utility[:, 0],
                       minlength=self.num_roots)

  def pbs(self, belief: np.ndarray) -> object:
    """The belief as the game's own belief-state object (for Kuhn poker the referee game's
    ``PublicBeliefState``).

    Raises:
      ValueError: if the game registered no public beliefs (``game_shortcuts``).
    """
    if self.beliefs is None:
      raise ValueError(f"pbs() needs a game with registered public beliefs (Kuhn poker: "
                       f"kuhn_poker or kuhn_poker_ante), got {self.tree.game}")
    return self.beliefs.belief_state(self.public_state, self.deals, belief)


@dataclasses.dataclass(frozen=True)
class PublicTree:
  """The cut of a game at ``depth_limit`` player actions.

  Attributes:
    tree: the full ``GameTree``.
    arrays: its ``TreeArrays``.
    depth_limit: k.
    leaves: the leaf subgames, in order of their first root in the tree walk.
    private_labels: each player's private states at the leaf roots, as labels
      (``public_views.private_states``), in their natural order (Kuhn poker: the cards).
    deal_states: int array (D, 2), the deals of the leaf roots (``LeafSubgame.deal_states``).
    seq_leaf: int array (G,), leaf of each global sequence (-1 for the trunk and the empty ones).
    trunk_terminals: int array, the terminals in the trunk.
  """

  tree: GameTree
  arrays: TreeArrays
  depth_limit: int
  leaves: Tuple[LeafSubgame, ...]
  private_labels: Tuple[Tuple[str, ...], Tuple[str, ...]]
  deal_states: np.ndarray
  seq_leaf: np.ndarray
  trunk_terminals: np.ndarray

  @property
  def trunk_mask(self) -> np.ndarray:
    """Float array (G,): 1 on trunk sequences (non-empty), 0 elsewhere."""
    return ((self.seq_leaf < 0) & (np.arange(len(self.seq_leaf)) >= 2)).astype(np.float64)

  @classmethod
  def cut(cls, arrays: TreeArrays, depth_limit: int) -> "PublicTree":
    """Cuts the game of ``arrays`` after ``depth_limit`` player actions.

    Raises:
      ValueError: if ``depth_limit`` is not an integer >= 1, the game has not two players or no
        public observation, or an information set straddles the cut or two leaves.
    """
    if isinstance(depth_limit, bool) or not isinstance(depth_limit, (int, np.integer)) or \
        depth_limit < 1:
      raise ValueError(f"depth_limit must be None or an integer >= 1, got {depth_limit!r}")
    if arrays.num_players != 2:
      raise ValueError(f"{arrays.tree.game.get_type().short_name}: a public-state cut needs "
                       f"exactly 2 players, got {arrays.num_players}")
    return _cut(arrays, int(depth_limit))

  @classmethod
  def from_game(cls, game: pyspiel.Game, depth_limit: int) -> "PublicTree":
    """The cut of ``game`` after ``depth_limit`` player actions: ``cut`` of the game's
    ``TreeArrays`` (its tree walked, or built by the game's registered shortcut).

    Raises:
      ValueError: as ``cut``.
    """
    return cls.cut(TreeArrays(GameTree.from_game(game)), depth_limit)

  def union(self, leaves: Tuple[LeafSubgame, ...]) -> LeafSubgame:
    """The leaves' subgames as ONE ``LeafSubgame`` whose chance root draws any of their roots.

    Its information sets are the leaves' own, each wholly in one leaf, so an algorithm that
    updates information sets from their own counterfactual values (CFR) runs on every leaf at
    once, each leaf as if alone, whatever weight the union's belief gives the leaf. Its roots are
    the leaves' roots in the order given (``root_nodes`` concatenated); its ``index`` is -1 and
    its ``public_state`` the leaves' joined by "|".
    """
    tree = self.tree
    roots = np.concatenate([leaf.root_nodes for leaf in leaves])
    member = np.full(tree.num_nodes, -1, dtype=np.int64)
    root_of = np.full(tree.num_nodes, -1, dtype=np.int64)
    member[roots], root_of[roots] = 0, roots
    for n in range(int(roots.min()) + 1, tree.num_nodes):  # Preorder: parents come first.
      parent = int(tree.node_parent[n])
      if member[n] < 0 and member[parent] >= 0:
        member[n], root_of[n] = 0, root_of[parent]
    beliefs = leaves[0].beliefs if leaves else None
    private = _RootPrivateStates(
        np.concatenate([leaf.private_states for leaf in leaves]).reshape(-1, 2),
        np.concatenate([leaf.deals for leaf in leaves]).astype(np.int64), self.deal_states)
    return _leaf(self.arrays, 0, "|".join(leaf.public_state for leaf in leaves), roots, member,
                 root_of, tree.node_chance_reach, beliefs, private, name=-1)


def _cut(arrays: TreeArrays, k: int) -> PublicTree:
  tree = arrays.tree
  game = tree.game
  name = game.get_type().short_name
  parent = tree.node_parent
  is_player = (tree.node_player == 0) | (tree.node_player == 1)
  action_depth = np.zeros(tree.num_nodes, dtype=np.int64)
  for n in range(1, tree.num_nodes):
    action_depth[n] = action_depth[parent[n]] + int(is_player[parent[n]])
  roots = [n for n in range(1, tree.num_nodes)
           if action_depth[n] == k and is_player[parent[n]] and tree.node_player[n] != TERMINAL]
  public_of_root, states = [], [tree.state_at(n) for n in roots]
  if roots:
    try:
      public_state = public_views.public_state_function(game)
    except ValueError as e:
      raise ValueError(f"a depth limit needs the game's public states: {e}") from None
    public_of_root = [public_state(state) for state in states]
  labels, private = _private_states(tree, roots, states, public_of_root, name)
  leaf_index = {s: i for i, s in enumerate(dict.fromkeys(public_of_root))}
  leaf_of = np.full(tree.num_nodes, -1, dtype=np.int64)
  root_of = np.full(tree.num_nodes, -1, dtype=np.int64)
  for n, s in zip(roots, public_of_root):
    leaf_of[n] = leaf_index[s]
    root_of[n] = n
  for n in range(1, tree.num_nodes):
    if leaf_of[n] < 0 and leaf_of[parent[n]] >= 0:
      leaf_of[n] = leaf_of[parent[n]]
      root_of[n] = root_of[parent[n]]

  # Every information set wholly in the trunk or in one leaf.
  seq_leaf = np.full(arrays.num_sequences, -1, dtype=np.int64)
  for pl, p in enumerate(tree.players):
    nodes = np.flatnonzero(tree.node_player == pl)
    sets = tree.node_infoset[nodes]
    lo = np.full(p.num_infosets, np.iinfo(np.int64).max)
    hi = np.full(p.num_infosets, np.iinfo(np.int64).min)
    np.minimum.at(lo, sets, leaf_of[nodes])
    np.maximum.at(hi, sets, leaf_of[nodes])
    bad = np.flatnonzero(lo != hi)
    if len(bad):
      raise ValueError(f"{name}: information set {p.infoset_keys[bad[0]]!r} of player {pl} lies "
                       f"on both sides of the cut after {k} actions or in two public states; "
                       "the game's public states cannot be cut there")
    seq_leaf[arrays.global_seq[pl][1:]] = lo[p.seq_infoset[1:]]

  shortcuts = game_shortcuts.for_game(game)
  beliefs = shortcuts.public_beliefs(game) if shortcuts else None
  leaves = []
  for public_state, index in leaf_index.items():
    mine = np.array([s == public_state for s in public_of_root])
    leaves.append(_leaf(arrays, index, public_state, np.array(roots)[mine], leaf_of, root_of,
                        tree.node_chance_reach, beliefs, private.of(mine)))
  terminal_leaf = leaf_of[tree.terminal_node]
  return PublicTree(tree=tree, arrays=arrays, depth_limit=k, leaves=tuple(leaves),
                    private_labels=labels, deal_states=private.deal_states,
                    seq_leaf=seq_leaf, trunk_terminals=np.flatnonzero(terminal_leaf < 0))


@dataclasses.dataclass(frozen=True)
class _RootPrivateStates:
  """Roots' private states (R, 2), their deals (R,) and the cut's deals (D, 2)."""

  private_states: np.ndarray
  deals: np.ndarray
  deal_states: np.ndarray

  def of(self, mine: np.ndarray) -> "_RootPrivateStates":
    return _RootPrivateStates(self.private_states[mine], self.deals[mine], self.deal_states)


def _private_states(tree: GameTree, roots, states, public_of_root,
                    name: str) -> Tuple[Tuple[Tuple[str, ...], ...], _RootPrivateStates]:
  """Each player's private state at every root (``public_views.private_states``): the labels of
  each player in natural order, and the roots' states and deals.

  Raises:
    ValueError: if at some public state the labels are not the roots' information states minus
      the public part (two roots of one public state share player i's label exactly when they
      share player i's information state).
  """
  private_of = public_views.private_state_function(tree.game)
  root_labels = [private_of(tree.history(int(n)))[:2] for n in roots]
  labels, columns = [], []
  for i in (0, 1):
    own = sorted({r[i] for r in root_labels}, key=public_views.natural_key)
    index = {label: j for j, label in enumerate(own)}
    labels.append(tuple(own))
    columns.append(np.array([index[r[i]] for r in root_labels], dtype=np.int64))
    infostates = [state.information_state_string(i) for state in states]
    pairs = set(zip(public_of_root, (r[i] for r in root_labels), infostates))
    if len(pairs) != len({(p, s) for p, _, s in pairs}) or \
        len(pairs) != len({(p, label) for p, label, _ in pairs}):
      raise ValueError(f"{name}: player {i}'s private states at the cut's roots are not its "
                       "information states less the public state (private information dealt "
                       "after the opening chance moves is not supported)")
  private = np.stack(columns, axis=1) if roots else np.zeros((0, 2), dtype=np.int64)
  deal_states, deals = np.unique(private, axis=0, return_inverse=True)
  return (labels[0], labels[1]), _RootPrivateStates(private, deals.reshape(-1), deal_states)


def _leaf(arrays: TreeArrays, index: int, public_state: str, roots: np.ndarray,
          leaf_of: np.ndarray, root_of: np.ndarray, chance_reach: np.ndarray,
          beliefs: Optional[PublicBeliefs], private: _RootPrivateStates,
          name: Optional[int] = None) -> LeafSubgame:
  """Builds the leaf's ``GameTree`` (chance root + the subtrees of its roots) and mappings: the
  nodes where ``leaf_of`` is ``index``; ``name`` is the leaf's index (``index`` if None)."""
  tree = arrays.tree
  full_nodes = np.flatnonzero(leaf_of == index)  # Preorder; each root's subtree is contiguous.
  local_of = {int(n): i + 1 for i, n in enumerate(full_nodes)}
  root_index = {int(n): r for r, n in enumerate(roots)}
  num = len(full_nodes) + 1
  node_parent = np.array([-1] + [0 if n in root_index else local_of[int(tree.node_parent[n])]
                                 for n in full_nodes], dtype=np.int64)
  node_player = np.concatenate([[CHANCE], tree.node_player[full_nodes]])
  node_action = np.concatenate([[-1], tree.node_action[full_nodes]])
  node_depth = np.concatenate([[0], tree.node_depth[full_nodes] -
                               tree.node_depth[root_of[full_nodes]] + 1])
  node_prob = np.concatenate([[1.0], tree.node_prob[full_nodes]])
  node_prob[1:][np.isin(full_nodes, roots)] = 1.0 / len(roots)  # Nominal: the belief replaces it.
  node_root = np.concatenate([[-1], [root_index[int(root_of[n])] for n in full_nodes]])
  node_chance = np.concatenate([[1.0], chance_reach[full_nodes] /
                                chance_reach[root_of[full_nodes]]])

  node_infoset = np.full(num, -1, dtype=np.int64)
  node_seq = np.zeros((num, 2), dtype=np.int64)
  players = []
  seq_maps = []
  for pl, p in enumerate(tree.players):
    acting = full_nodes[tree.node_player[full_nodes] == pl]
    sets = np.unique(tree.node_infoset[acting])  # Full order: parents before children.
    offset = players[0].num_infosets if pl == 1 else 0
    seq_full_to_local, set_full_to_local, local_players, full_seqs = _local_sequences(
        p, sets, offset)
    players.append(local_players)
    seq_maps.append(full_seqs)
    for j, n in enumerate(full_nodes):
      if tree.node_player[n] == pl:
        node_infoset[j + 1] = set_full_to_local[int(tree.node_infoset[n])]
      node_seq[j + 1, pl] = seq_full_to_local.get(int(tree.node_seq[n, pl]), 0)

  terminal_nodes = np.flatnonzero(node_player == TERMINAL)
  node_terminal = np.full(num, -1, dtype=np.int64)
  node_terminal[terminal_nodes] = np.arange(len(terminal_nodes))
  full_terminal = tree.node_terminal[full_nodes[terminal_nodes - 1]]
  leaf_tree = GameTree(
      game=tree.game, players=(players[0], players[1]), node_parent=node_parent,
      node_player=node_player, node_infoset=node_infoset, node_action=node_action,
      node_depth=node_depth, node_prob=node_prob, node_seq=node_seq, node_terminal=node_terminal,
      node_chance_reach=node_chance, terminal_node=terminal_nodes,
      utility=tree.utility[full_terminal], terminal_seq=node_seq[terminal_nodes],
      utility_sum=tree.utility_sum,
      _representative_node=(np.zeros(0, dtype=np.int64),) * 2)
  leaf_arrays = TreeArrays(leaf_tree)
  full_seq = np.full(leaf_arrays.num_sequences, -1, dtype=np.int64)
  for pl in (0, 1):
    full_seq[leaf_arrays.global_seq[pl][1:]] = arrays.global_seq[pl][seq_maps[pl]]
  root_seq = np.stack([arrays.global_seq[pl][tree.node_seq[roots, pl]] for pl in (0, 1)], axis=1)
  return LeafSubgame(
      index=index if name is None else name, public_state=public_state, root_nodes=roots,
      root_seq=root_seq,
      root_chance=chance_reach[roots], tree=leaf_tree, arrays=leaf_arrays,
      terminal_root=node_root[terminal_nodes], full_terminal=full_terminal, full_seq=full_seq,
      node_root=node_root, node_chance=node_chance,
      acting_players=tuple(pl for pl in (0, 1) if players[pl].num_infosets),
      private_states=private.private_states, deals=private.deals,
      deal_states=private.deal_states, beliefs=beliefs)


def _local_sequences(p: PlayerSequences, sets: np.ndarray, row_offset: int):
  """The leaf's ``PlayerSequences`` for the player's leaf information sets ``sets``.

  A set whose parent sequence lies in the trunk starts the leaf game (depth 0, parent = the
  local empty sequence).

  Args:
    p: the player's sequences in the full tree.
    sets: the player's information sets in the leaf, in full order (parents first).
    row_offset: first row of the player's sets in the leaf's tabular numbering.

  Returns:
    (map full sequence -> local sequence, map full set -> local set, the local
    ``PlayerSequences``, int array of the full sequence of each local non-empty sequence).
  """
  position = {int(s): i for i, s in enumerate(sets)}
  parent_infoset = np.full(len(sets), -1, dtype=np.int64)
  parent_action = np.zeros(len(sets), dtype=np.int64)
  for i, s in enumerate(sets):
    parent_seq = int(p.parent_seq[s])
    parent_set = int(p.seq_infoset[parent_seq]) if parent_seq > 0 else -1
    if parent_set in position:
      parent_infoset[i] = position[parent_set]
      parent_action[i] = parent_seq - p.seq_start[parent_set]
  local, local_of_given = player_sequences(
      p.player, [p.infoset_keys[s] for s in sets], [p.legal_actions[s] for s in sets],
      parent_infoset, parent_action, row_offset + np.arange(len(sets)))
  full_seqs = np.empty(local.num_sequences - 1, dtype=np.int64)
  for s, i in zip(sets, local_of_given):
    count = int(p.num_actions[s])
    full_seqs[local.seq_start[i] - 1:local.seq_start[i] - 1 + count] = \
        p.seq_start[s] + np.arange(count)
  full_to_local = {int(f): k + 1 for k, f in enumerate(full_seqs)}
  set_to_local = {int(s): int(i) for s, i in zip(sets, local_of_given)}
  return full_to_local, set_to_local, local, full_seqs
