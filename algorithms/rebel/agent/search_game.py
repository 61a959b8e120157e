"""The game below a public state, cut a few actions further: what one search of the agent solves.

ReBeL's agent (Brown, Bakhtin, Lerer, Gong, "Combining deep reinforcement learning and search for
imperfect-information games", NeurIPS 2020, arXiv 2007.13544, Section 6) searches at a public
state s, reached after k player actions, from a public belief state beta over the histories h of
s (its roots): the subgame that starts with chance drawing h with probability beta(h). Its search
looks d actions ahead: its trunk is the subgame's first d player actions, and every public state
at k + d actions below s is a leaf of the search, whose values come from a leaf solver.

``PublicCuts`` holds the full game's cuts at every depth (``public_tree.PublicTree.cut``): the
public states at depth k are the leaves of the cut at k, each a ``LeafSubgame`` whose tree is the
subgame below it, and the leaves of a search from s are the leaves of the cut at k + d that lie
below s. So the leaf solvers and value functions see the same ``LeafSubgame`` objects as in
``CFRAvgSolver``, and the next search at a leaf of this one is built from that very leaf.

``SearchGame`` is that subgame in the project's flat arrays, with the maps between its sequences
and the full game's (the agent's play is written into the full game's layout,
``agent.behaviour``). The game root (k = 0) is the search game of the full tree with one root,
the initial history, and belief (1,).
"""

import dataclasses
from typing import Dict, Optional, Tuple

import numpy as np

from algorithms.rebel.public_tree import LeafSubgame
from algorithms.rebel.public_tree import PublicTree
from algorithms.tree.tree_layout import TreeArrays


@dataclasses.dataclass(frozen=True)
class SearchLeaf:
  """A leaf of a search: a public state of the cut at k + d below the search's public state.

  Attributes:
    leaf: the ``LeafSubgame`` of the full game's cut at k + d.
    search_root: int array (R_L,), the search root (index into ``SearchGame.root_nodes``) above
      each of the leaf's roots.
    chance: float array (R_L,), chance's probability from that search root to the leaf root,
      pi_c(h) / pi_c(root).
    local_seq: int array (R_L, 2), each player's sequence at the leaf root in the search game's
      global layout (the player's empty sequence if it has not acted since the search root).
  """

  leaf: LeafSubgame
  search_root: np.ndarray
  chance: np.ndarray
  local_seq: np.ndarray


@dataclasses.dataclass(frozen=True)
class SearchGame:
  """The subgame below one public state, cut ``lookahead`` actions below it.

  Attributes:
    public_state: the public observation string of the state ("" at the game root).
    depth: k, the player actions before the state.
    arrays: the subgame's ``TreeArrays`` (root: chance over the roots, weights from the belief).
    root_nodes: int array (R,), the full tree's nodes of the roots.
    root_chance: float array (R,), chance's probability of each root in the full game.
    terminal_root: int array (T_s,), the root above each terminal of the subgame.
    chance: float array (T_s,), chance's probability from the root to each terminal.
    full_seq: int array (G_s,), the full game's global sequence of each sequence (-1 for the two
      empty ones).
    anchor: int array (G_s,), for each non-empty sequence the full sequence of the same player
      at the search root that precedes it (-1 for the empty ones).
    trunk_mask: float array (G_s,), 1 on the non-empty sequences of the trunk.
    leaf_mask: bool array (G_s,), the sequences below the leaves.
    trunk_terminals: int array, the subgame's terminals in the trunk.
    leaves: the search's ``SearchLeaf`` objects.
    cut: the full game's cut whose leaves these are (None without leaves).
  """

  public_state: str
  depth: int
  arrays: TreeArrays
  root_nodes: np.ndarray
  root_chance: np.ndarray
  terminal_root: np.ndarray
  chance: np.ndarray
  full_seq: np.ndarray
  anchor: np.ndarray
  trunk_mask: np.ndarray
  leaf_mask: np.ndarray
  trunk_terminals: np.ndarray
  leaves: Tuple[SearchLeaf, ...]
  cut: Optional[PublicTree] = None

  @property
  def num_roots(self) -> int:
    return len(self.root_nodes)

  @property
  def trunk(self) -> np.ndarray:
    """The non-empty trunk sequences (int array)."""
    return np.flatnonzero(self.trunk_mask)

  def weighted_utility(self, belief: np.ndarray) -> np.ndarray:
    """(T_s, 2): u_p(z) beta(root(z)) pi_c(z | root(z)), the terminal weights at belief beta."""
    return self.arrays.tree.utility * (belief[self.terminal_root] * self.chance)[:, None]

  def prior(self) -> np.ndarray:
    """Chance's belief over the roots, pi_c(h) / sum pi_c (the belief with no information)."""
    return self.root_chance / self.root_chance.sum()


class PublicCuts:
  """The full game's cuts at every depth and the search games built on them (memoized).

  Args:
    arrays: the full game's ``TreeArrays`` (a two-player game with public observations).
    lookahead: d >= 1, the player actions a search looks ahead.
  """

  def __init__(self, arrays: TreeArrays, lookahead: int):
    if isinstance(lookahead, bool) or not isinstance(lookahead, (int, np.integer)) or \
        lookahead < 1:
      raise ValueError(f"lookahead must be an integer >= 1, got {lookahead!r}")
    self.arrays = arrays
    self.lookahead = int(lookahead)
    self._cuts: Dict[int, PublicTree] = {}
    self._games: Dict[Tuple[int, str], SearchGame] = {}
    self._max_depth = int(arrays.tree.node_depth.max())

  def cut(self, depth: int) -> PublicTree:
    """The full game's ``PublicTree`` at ``depth`` player actions."""
    if depth not in self._cuts:
      self._cuts[depth] = PublicTree.cut(self.arrays, depth)
    return self._cuts[depth]

  def root(self) -> SearchGame:
    """The search game at the game root (one root, belief (1,))."""
    return self._game(0, "", None)

  def at(self, leaf: LeafSubgame, depth: int) -> SearchGame:
    """The search game at a public state: ``leaf`` of the cut at ``depth``."""
    return self._game(depth, leaf.public_state, leaf)

  def _game(self, depth: int, public_state: str, leaf: Optional[LeafSubgame]) -> SearchGame:
    key = (depth, public_state)
    if key not in self._games:
      self._games[key] = self._build(depth, public_state, leaf)
    return self._games[key]

  def _build(self, depth: int, public_state: str, leaf: Optional[LeafSubgame]) -> SearchGame:
    full, tree = self.arrays, self.arrays.tree
    if leaf is None:  # The whole game: one root, every sequence its own.
      arrays, roots = full, np.zeros(1, dtype=np.int64)
      terminal_root, chance = np.zeros(full.num_terminals, dtype=np.int64), tree.chance_reach
      full_seq = np.arange(full.num_sequences)
      full_seq[:2] = -1
      full_terminal = np.arange(full.num_terminals)
    else:
      arrays, roots = leaf.arrays, leaf.root_nodes
      terminal_root, chance = leaf.terminal_root, leaf.tree.chance_reach
      full_seq, full_terminal = leaf.full_seq, leaf.full_terminal
    horizon = depth + self.lookahead
    # Beyond the deepest history the cut has no leaf: the search reaches the end of the game.
    cut = self.cut(horizon) if horizon <= self._max_depth else None
    local_of = {int(f): s for s, f in enumerate(full_seq) if f >= 0}
    anchor = np.full(arrays.num_sequences, -1, dtype=np.int64)
    for s in range(2, arrays.num_sequences):  # Up the full parents to the first one outside.
      f = int(full_seq[s])
      while f in local_of:
        f = int(full.seq_parent[f])
      anchor[s] = f
    seq_leaf = cut.seq_leaf if cut is not None else np.full(full.num_sequences, -1)
    leaf_mask = np.zeros(arrays.num_sequences, dtype=bool)
    leaf_mask[2:] = seq_leaf[full_seq[2:]] >= 0
    trunk_mask = ((~leaf_mask) & (np.arange(arrays.num_sequences) >= 2)).astype(np.float64)
    in_trunk = np.ones(full.num_terminals, dtype=bool)
    leaves = ()
    if cut is not None:
      in_trunk[:] = False
      in_trunk[cut.trunk_terminals] = True
      leaves = self._leaves(cut, roots, local_of)
    return SearchGame(
        public_state=public_state, depth=depth, arrays=arrays, root_nodes=roots,
        root_chance=tree.node_chance_reach[roots], terminal_root=terminal_root, chance=chance,
        full_seq=full_seq, anchor=anchor, trunk_mask=trunk_mask, leaf_mask=leaf_mask,
        trunk_terminals=np.flatnonzero(in_trunk[full_terminal]), leaves=leaves,
        cut=cut if leaves else None)

  def _leaves(self, cut: PublicTree, roots: np.ndarray,
              local_of: Dict[int, int]) -> Tuple[SearchLeaf, ...]:
    """The cut's leaves below the search roots, with each leaf root's search root and plans."""
    tree = self.arrays.tree
    position = {int(n): r for r, n in enumerate(roots)}
    out = []
    for leaf in cut.leaves:
      above = np.array([_ancestor_in(tree.node_parent, int(n), position)
                        for n in leaf.root_nodes])
      if np.any(above < 0):
        continue  # Below another public state.
      local = np.array([[local_of.get(int(f), player) for player, f in enumerate(row)]
                        for row in leaf.root_seq], dtype=np.int64).reshape(-1, 2)
      out.append(SearchLeaf(leaf=leaf, search_root=above,
                            chance=leaf.root_chance / tree.node_chance_reach[roots[above]],
                            local_seq=local))
    return tuple(out)


def _ancestor_in(parent: np.ndarray, node: int, position: Dict[int, int]) -> int:
  """The position of ``node``'s nearest ancestor (itself included) among ``position``, or -1."""
  while node >= 0:
    if node in position:
      return position[node]
    node = int(parent[node])
  return -1
