"""The sequence form of a game tree: per-player sequences, their blocks and each node's sequences.

Sequence form (von Stengel, "Efficient computation of behavior strategies", GEB 1996; Koller,
Megiddo, von Stengel, "Fast algorithms for finding randomized strategies in game trees", STOC
1994): a sequence of player p is the empty sequence or a pair (I, a) of one of p's information
sets and a legal action there. With perfect recall each information set I has one parent
sequence parent(I), the last own action before I, and a behavioural policy sigma_p becomes the
realization plan

  x_p[empty] = 1,   x_p[(I, a)] = x_p[parent(I)] sigma_p(I, a).

``PlayerSequences`` holds one player's information sets ordered by depth (the number of the
player's own earlier actions), each set's sequences one contiguous block (``Blocks``); it is built
only by ``player_sequences``, for a walked or generated game (``game_tree``, ``kuhn_tree``) and
for a leaf subgame (``algorithms.rebel.public_tree``). ``node_sequences`` gives every player's
sequence at every node. The global layout that interleaves all players' sequences for the engine
is ``tree_layout.TreeArrays``; both are described in ``docs/tree_layout.md``.
"""

import dataclasses
from typing import Sequence, Tuple

import numpy as np


@dataclasses.dataclass(frozen=True)
class Blocks:
  """Contiguous blocks of items, one block per information set.

  Attributes:
    starts: int array (num_blocks,), first item of each block (increasing, starts[0] = 0).
    sizes: int array (num_blocks,), number of items (actions) of each block (>= 1).
    block_of: int array (num_items,), the block of each item.
  """

  starts: np.ndarray
  sizes: np.ndarray
  block_of: np.ndarray

  @classmethod
  def from_sizes(cls, sizes: np.ndarray) -> "Blocks":
    sizes = np.asarray(sizes, dtype=np.int64)
    if np.any(sizes < 1):
      raise ValueError("every block needs at least one item")
    return cls(starts=np.cumsum(sizes) - sizes, sizes=sizes,
               block_of=np.repeat(np.arange(len(sizes), dtype=np.int64), sizes))


@dataclasses.dataclass(frozen=True)
class PlayerSequences:
  """One player's information sets and sequences (build it with ``player_sequences``).

  Attributes:
    player: the player id.
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


def player_sequences(player: int, keys: Sequence[str], legal_actions: Sequence[Tuple[int, ...]],
                     parent_infoset: np.ndarray, parent_action: np.ndarray,
                     tabular_row: np.ndarray) -> Tuple[PlayerSequences, np.ndarray]:
  """Builds a player's ``PlayerSequences`` from its information sets in any parents-first order.

  The sets are ordered by depth, stably (so, within a depth, in the order given), and numbered
  0..K-1; set I's sequences are ``seq_start[I] + k`` for its k-th legal action, after the empty
  sequence 0.

  Args:
    player: the player id.
    keys: the information-state string of each set.
    legal_actions: each set's legal actions.
    parent_infoset: int array, the set of the player's last own action before each set, or -1
      if there is none; every parent comes before its children.
    parent_action: int array, the position of that action among the parent set's legal actions
      (ignored where ``parent_infoset`` is -1).
    tabular_row: int array, each set's row in the game's ``TabularPolicy``.

  Returns:
    (the ``PlayerSequences``, int array mapping each given set to its index in it).
  """
  count = len(keys)
  parent_infoset = np.asarray(parent_infoset, dtype=np.int64).reshape(count)
  parent_action = np.asarray(parent_action, dtype=np.int64).reshape(count)
  depth_given = np.zeros(count, dtype=np.int64)
  for i, parent in enumerate(parent_infoset.tolist()):
    if parent >= 0:
      depth_given[i] = depth_given[parent] + 1
  order = np.argsort(depth_given, kind="stable")  # New index -> given index.
  new_of_given = np.empty(count, dtype=np.int64)
  new_of_given[order] = np.arange(count)
  num_actions = np.array([len(legal_actions[g]) for g in order], dtype=np.int64)
  seq_start = 1 + np.cumsum(num_actions) - num_actions  # Sequence 0 is the empty one.
  parents = parent_infoset[order]
  has_parent = parents >= 0
  parent_seq = np.zeros(count, dtype=np.int64)
  parent_seq[has_parent] = (seq_start[new_of_given[parents[has_parent]]] +
                            parent_action[order][has_parent])
  num_sequences = 1 + int(num_actions.sum())
  seq_infoset = np.full(num_sequences, -1, dtype=np.int64)
  seq_action = np.full(num_sequences, -1, dtype=np.int64)
  if count:
    seq_infoset[1:] = np.repeat(np.arange(count), num_actions)
    seq_action[1:] = np.concatenate([legal_actions[g] for g in order])
  sequences = PlayerSequences(
      player=player, infoset_keys=tuple(keys[g] for g in order),
      legal_actions=tuple(tuple(legal_actions[g]) for g in order), num_actions=num_actions,
      seq_start=seq_start, parent_seq=parent_seq, depth=depth_given[order],
      seq_infoset=seq_infoset, seq_action=seq_action,
      tabular_row=np.asarray(tabular_row, dtype=np.int64).reshape(count)[order])
  return sequences, new_of_given


def node_sequences(node_parent: np.ndarray, node_player: np.ndarray, node_infoset: np.ndarray,
                   node_depth: np.ndarray, position: np.ndarray,
                   players: Sequence[PlayerSequences]) -> np.ndarray:
  """Each player's sequence at each node (num_nodes, num_players), depth level by level.

  A node has its parent's sequences, except below a decision node of player p, where p's is
  the parent's (I, a): ``seq_start[I]`` plus the action's position among I's legal actions.
  """
  node_seq = np.zeros((len(node_parent), len(players)), dtype=np.int64)
  seq_start = np.zeros(len(node_parent), dtype=np.int64)  # At decision nodes: of their set.
  for pl, p in enumerate(players):
    acting = node_player == pl
    seq_start[acting] = p.seq_start[node_infoset[acting]]
  order = np.argsort(node_depth, kind="stable")
  bounds = np.searchsorted(node_depth[order], np.arange(1, node_depth.max() + 2))
  for lo, hi in zip(bounds[:-1], bounds[1:]):
    nodes = order[lo:hi]
    parents = node_parent[nodes]
    node_seq[nodes] = node_seq[parents]
    below = node_player[parents] >= 0
    nodes, parents = nodes[below], parents[below]
    node_seq[nodes, node_player[parents]] = seq_start[parents] + position[nodes]
  return node_seq
