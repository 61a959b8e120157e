"""The global array layout of a game tree: every player's sequences in one array, by depth level.

The index spaces (nodes, terminals, per player, global, tabular, leaf) and the maps between them
are described on one page, ``docs/tree_layout.md``. Each player's own sequence form is
``sequence_form.PlayerSequences``.

Each terminal history z is reached by exactly one sequence seq_p(z) of every player p, so with
chance reach pi_c(z), utilities u_p(z) and realization plans x_p (``sequence_form``) the expected
utility of player i in an n-player game is

  v_i = sum_z u_i(z) pi_c(z) prod_p x_p[seq_p(z)],

and player i's terminal counterfactual value of a sequence s is

  c_i[s] = sum_{z: seq_i(z) = s} u_i(z) pi_c(z) prod_{j != i} x_j[seq_j(z)].

``TreeArrays`` keeps every player's sequences in one global array, ordered by depth level and,
within a level, by player; each level is one contiguous range of information sets and of
sequences, so the top-down and bottom-up passes (``algorithms.cfr.tree_passes``) are one slice per
level. Every index structure is a flat int64 or float64 numpy array and the levels are offset
arrays; ``KernelLayout`` bundles the ones the compiled passes read (``tree_passes``,
``cfr_kernel``), and ``SweepLayout`` the uint32 ones of the fused full-width iterations
(``fused_kernel``).
"""

from typing import List, NamedTuple, Sequence

import numpy as np

from algorithms.tree.game_tree import GameTree
from algorithms.tree.sequence_form import Blocks


class KernelLayout(NamedTuple):
  """The arrays of a ``TreeArrays`` that the compiled passes read (one argument for numba).

  Attributes (int64 arrays; N players, K information sets, T terminals):
    num_players: N.
    infoset_player, infoset_start, infoset_num_actions, infoset_parent, infoset_level: (K,)
      as in ``TreeArrays``.
    pass_infoset_ptr, pass_infosets: the information sets a pass updates, in increasing global
      index (so by level, parents first): player p's are
      ``pass_infosets[pass_infoset_ptr[p]:pass_infoset_ptr[p + 1]]``, and group N holds all.
    terminal_seq: (T, N) as in ``TreeArrays``.
    all_terminals: (T,) 0..T-1.
    player_terminals: (N, T) per player i, the terminals ordered by seq_i(z), stably (so by
      index among equal sequences).
    player_terminal_seq: (N, T, N) ``terminal_seq`` in each player's order:
      ``player_terminal_seq[i, m] = terminal_seq[player_terminals[i, m]]``.
  """

  num_players: int
  infoset_player: np.ndarray
  infoset_start: np.ndarray
  infoset_num_actions: np.ndarray
  infoset_parent: np.ndarray
  infoset_level: np.ndarray
  pass_infoset_ptr: np.ndarray
  pass_infosets: np.ndarray
  terminal_seq: np.ndarray
  all_terminals: np.ndarray
  player_terminals: np.ndarray
  player_terminal_seq: np.ndarray


class SweepLayout(NamedTuple):
  """The index arrays of ``fused_kernel``'s bottom-up sweep (uint32 unless stated).

  An entry is a pair (p, z) of a player and a terminal; entries are sorted by the global
  sequence seq_p(z), stably (so by terminal index among equal sequences), and sequence s owns
  the entries ``seq_entry_ptr[s]:seq_entry_ptr[s + 1]``: its terminal values
  c_p[s] = sum_{(p, z) of s} u_p(z) pi_c(z) prod_{j != p} x[seq_j(z)] are one contiguous run.
  Unsigned 32-bit indices halve the index bandwidth of the int64 ``KernelLayout`` and spare
  numba's negative-index check (measured: leduc_poker's terminal values 2.3x faster than with
  int64 or int32 indices); G and N T must be below 2^32.

  Attributes (N players, K information sets, G sequences, T terminals, E = N T entries):
    num_players: N.
    infoset_start, infoset_num_actions, infoset_parent, pass_infoset_ptr, pass_infosets: as
      in ``KernelLayout`` (``pass_infoset_ptr`` int64).
    seq_entry_ptr: (G + 1,) the entries of each sequence.
    entry_terminal, entry_player: (E,) z and p of each entry.
    entry_others: (E (N - 1),) seq_j(z) of the other players j != p of entry e, in increasing
      j, at ``e (N - 1) .. e (N - 1) + N - 2``.
    child_ptr: (G + 1,) the child information sets of sequence s (parent(J) = s) are
      ``child_infosets[child_ptr[s]:child_ptr[s + 1]]``, in increasing global index.
    child_infosets: (K,) the information sets by parent sequence.
  """

  num_players: int
  infoset_start: np.ndarray
  infoset_num_actions: np.ndarray
  infoset_parent: np.ndarray
  pass_infoset_ptr: np.ndarray
  pass_infosets: np.ndarray
  seq_entry_ptr: np.ndarray
  entry_terminal: np.ndarray
  entry_player: np.ndarray
  entry_others: np.ndarray
  child_ptr: np.ndarray
  child_infosets: np.ndarray


def sweep_layout(arrays: "TreeArrays") -> SweepLayout:
  """The ``SweepLayout`` of ``arrays``."""
  n, g, t = arrays.num_players, arrays.num_sequences, arrays.num_terminals
  if max(g, n * t) >= 2**32:
    raise ValueError(f"{arrays.tree.game}: {g:,} sequences and {n * t:,} terminal entries; the "
                     "fused sweep's 32-bit indices allow fewer than 2^32 of each")
  lay = arrays.kernel
  keys = arrays.terminal_seq.T.ravel()  # Entry p T + z: seq_p(z).
  order = np.argsort(keys, kind="stable")  # By sequence, then terminal.
  players, terminals = np.divmod(order, max(t, 1))
  others = arrays.terminal_seq[terminals]  # (E, N): every player's sequence at z.
  others = others[np.arange(n)[None, :] != players[:, None]]  # Without p's, row by row.

  def index(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.uint32)

  def offsets(counts: np.ndarray) -> np.ndarray:
    return index(np.concatenate([[0], np.cumsum(counts)]))

  return SweepLayout(
      num_players=n, infoset_start=index(arrays.infoset_start),
      infoset_num_actions=index(arrays.infoset_num_actions),
      infoset_parent=index(arrays.infoset_parent), pass_infoset_ptr=lay.pass_infoset_ptr,
      pass_infosets=index(lay.pass_infosets),
      seq_entry_ptr=offsets(np.bincount(keys, minlength=g)), entry_terminal=index(terminals),
      entry_player=index(players), entry_others=index(others),
      child_ptr=offsets(np.bincount(arrays.infoset_parent, minlength=g)),
      child_infosets=index(np.argsort(arrays.infoset_parent, kind="stable")))


class TreeArrays:
  """Every player's sequence form of a ``GameTree`` in one level-interleaved global layout.

  Global sequences 0..n-1 are the empty sequences of players 0..n-1. Then come the depth levels
  d = 0, 1, ...: level d holds the depth-d information sets of player 0, then of player 1, ...,
  and their sequences in the same order; each information set's sequences are contiguous. The
  parent sequence of a level-d set lies in level d - 1 (in 0..n-1 for level 0).

  Attributes (N = num_players, G = num_sequences, K = num_infosets, T = num_terminals,
  L = num_levels; all arrays int64 unless stated):
    tree: the ``GameTree``.
    num_players, num_sequences, num_infosets, num_terminals, num_levels: the sizes.
    level_infosets: (L + 1,) level d's information sets are ``[level_infosets[d],
      level_infosets[d + 1])``.
    level_sequences: (L + 1,) level d's sequences are ``[level_sequences[d],
      level_sequences[d + 1])``; ``level_sequences[0] = N``.
    infoset_player, infoset_start, infoset_num_actions, infoset_parent, infoset_tabular_row:
      (K,) owner, first global sequence, number of actions, global parent sequence, row in the
      game's ``TabularPolicy``.
    infoset_level: (K,) the depth level of each information set.
    blocks: ``Blocks`` of the non-empty sequences (global index - N), one per set.
    player_mask: float64 (N, G), row p is 1 on player p's non-empty sequences.
    seq_infoset, seq_player, seq_action, seq_parent: (G,) information set (-1 for the empty
      sequences), owner, OpenSpiel action (-1), global parent sequence of the set (-1).
    global_infoset: per player, int array mapping its information sets to global ones.
    global_seq: per player, int array mapping its sequences to global ones.
    terminal_seq: (T, N) the global sequence of each player leading to each terminal.
    weighted_utility: float64 (T, N), u_p(z) pi_c(z).
    kernel: the ``KernelLayout`` of these arrays.
    sweep: the ``SweepLayout`` of these arrays.
  """

  def __init__(self, tree: GameTree):
    self.tree = tree
    players = tree.players
    n = len(players)
    self.num_players = n
    bounds = [p.level_bounds() for p in players]
    self.num_levels = max((len(b) - 1 for b in bounds), default=0)
    global_infoset = [np.empty(p.num_infosets, dtype=np.int64) for p in players]
    global_seq = [np.empty(p.num_sequences, dtype=np.int64) for p in players]
    for pl in range(n):
      global_seq[pl][0] = pl
    level_infosets, level_sequences = [0], [n]
    k, g = 0, n
    for d in range(self.num_levels):
      for pl, p in enumerate(players):
        if d + 1 >= len(bounds[pl]):
          continue
        lo, hi = bounds[pl][d], bounds[pl][d + 1]
        global_infoset[pl][lo:hi] = np.arange(k, k + hi - lo)
        k += hi - lo
        if hi > lo:
          s_lo, s_hi = p.seq_start[lo], p.seq_start[hi - 1] + p.num_actions[hi - 1]
          global_seq[pl][s_lo:s_hi] = np.arange(g, g + s_hi - s_lo)
          g += s_hi - s_lo
      level_infosets.append(k)
      level_sequences.append(g)
    self.num_infosets, self.num_sequences = k, g
    self.level_infosets = np.array(level_infosets, dtype=np.int64)
    self.level_sequences = np.array(level_sequences, dtype=np.int64)
    self.global_infoset = tuple(global_infoset)
    self.global_seq = tuple(global_seq)

    self.infoset_player = np.empty(k, dtype=np.int64)
    self.infoset_start = np.empty(k, dtype=np.int64)
    self.infoset_num_actions = np.empty(k, dtype=np.int64)
    self.infoset_parent = np.empty(k, dtype=np.int64)
    self.infoset_tabular_row = np.empty(k, dtype=np.int64)
    self.seq_infoset = np.full(g, -1, dtype=np.int64)
    self.seq_player = np.empty(g, dtype=np.int64)
    self.seq_action = np.full(g, -1, dtype=np.int64)
    self.seq_player[:n] = np.arange(n)
    for pl, p in enumerate(players):
      gi = global_infoset[pl]
      self.infoset_player[gi] = pl
      self.infoset_start[gi] = global_seq[pl][p.seq_start]
      self.infoset_num_actions[gi] = p.num_actions
      self.infoset_parent[gi] = global_seq[pl][p.parent_seq]
      self.infoset_tabular_row[gi] = p.tabular_row
      gs = global_seq[pl][1:]
      self.seq_infoset[gs] = gi[p.seq_infoset[1:]]
      self.seq_player[gs] = pl
      self.seq_action[gs] = p.seq_action[1:]
    self.seq_parent = np.full(g, -1, dtype=np.int64)
    self.seq_parent[n:] = self.infoset_parent[self.seq_infoset[n:]]
    self.infoset_level = np.repeat(np.arange(self.num_levels), np.diff(self.level_infosets))
    self.blocks = Blocks.from_sizes(self.infoset_num_actions)
    self.player_mask = np.zeros((n, g))
    self.player_mask[self.seq_player[n:], np.arange(n, g)] = 1.0
    self.terminal_seq = np.stack(
        [global_seq[pl][tree.terminal_seq[:, pl]] for pl in range(n)], axis=1).reshape(-1, n)
    self.weighted_utility = tree.utility * tree.chance_reach[:, None]
    by_player = [np.flatnonzero(self.infoset_player == pl) for pl in range(n)]
    player_terminals = np.stack([np.argsort(self.terminal_seq[:, pl], kind="stable")
                                 for pl in range(n)]).reshape(n, -1)
    self.kernel = KernelLayout(
        num_players=n, infoset_player=self.infoset_player, infoset_start=self.infoset_start,
        infoset_num_actions=self.infoset_num_actions, infoset_parent=self.infoset_parent,
        infoset_level=self.infoset_level,
        pass_infoset_ptr=np.cumsum([0] + [len(b) for b in by_player] + [k]),
        pass_infosets=np.concatenate(by_player + [np.arange(k)]).astype(np.int64),
        terminal_seq=self.terminal_seq, all_terminals=np.arange(len(self.terminal_seq)),
        player_terminals=player_terminals,
        player_terminal_seq=self.terminal_seq[player_terminals])
    self.sweep = sweep_layout(self)

  @property
  def num_terminals(self) -> int:
    return len(self.terminal_seq)

  # Maps between the index spaces (docs/tree_layout.md) -------------------------------------

  def from_tabular(self, tabular: np.ndarray) -> np.ndarray:
    """Global per-sequence array (1 on the empty sequences) from a tabular array.

    Args:
      tabular: (rows, actions), e.g. ``TabularPolicy.action_probability_array`` of the game.
    """
    if tabular.shape[0] != self.num_infosets:
      raise ValueError(f"policy has {tabular.shape[0]} rows, the game has "
                       f"{self.num_infosets} information sets")
    n = self.num_players
    out = np.ones(self.num_sequences)
    out[n:] = tabular[self.infoset_tabular_row[self.seq_infoset[n:]], self.seq_action[n:]]
    return out

  def to_tabular(self, values: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Writes a global per-sequence array into a tabular array (rows x actions), in place.

    Entries of illegal actions are left as they are. Returns ``out``.
    """
    n = self.num_players
    out[self.infoset_tabular_row[self.seq_infoset[n:]], self.seq_action[n:]] = values[n:]
    return out

  def from_players(self, per_player: Sequence[np.ndarray]) -> np.ndarray:
    """Global array from one array per player over its own sequences (``PlayerSequences``)."""
    out = np.empty(self.num_sequences)
    for seqs, values in zip(self.global_seq, per_player):
      out[seqs] = values
    return out

  def to_players(self, values: np.ndarray) -> List[np.ndarray]:
    """Per player, the part of a global array on its own sequences (inverse of
    ``from_players``)."""
    return [values[seqs] for seqs in self.global_seq]
