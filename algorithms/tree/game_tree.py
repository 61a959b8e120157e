"""A game tree walked once into flat numpy arrays: histories, terminals and sequence forms.

``GameTree.from_game(game)`` enumerates every history of an OpenSpiel game through its public
API (``new_initial_state``, ``child``, ``chance_outcomes``, ``legal_actions``,
``information_state_string``, ``returns``) and stores two views of it (a game that registered a
shortcut in ``game_shortcuts``, such as Kuhn poker, is generated from its rules instead, with the
same result):

* the node level: one entry per history (chance, decision or terminal node) in depth-first
  preorder, so that ``node_parent[n] < n``;
* each player's sequence form (``sequence_form.PlayerSequences``; von Stengel, "Efficient
  computation of behavior strategies", GEB 1996), and per terminal z the utilities u_p(z), the
  chance reach pi_c(z) and each player's sequence seq_p(z) leading to z.

With realization plans x_p, player i's expected utility is the multilinear form
``sum_z u_i(z) pi_c(z) prod_p x_p[seq_p(z)]`` (``tree_layout``). The games are those OpenSpiel's
``cfr._CFRSolver`` runs on with two or more players: zero-sum, constant-sum or general-sum,
sequential, with explicit or no chance and perfect recall. One-player games are refused rather
than solved differently: OpenSpiel's CFR skips every history where all players' reaches are 0
and gives it value 0, which is exact with two or more players (no player's counterfactual reach
is positive there) but not with one, where the player's counterfactual reach is chance's.

Building is two steps: ``_walk`` visits the histories and records them with each player's
information sets numbered by first visit; ``_index`` orders the information sets
(``sequence_form.player_sequences``) and numbers the sequences and the ``TabularPolicy`` rows.
``PlayerSequences.tabular_row[I]`` is the row of the information set in
``policy.TabularPolicy(game)``; ``GameTree.tabular_policy()`` builds that policy without walking
the game a second time.
"""

import dataclasses
import functools
from typing import List, Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.tree import game_shortcuts
from algorithms.tree.sequence_form import PlayerSequences
from algorithms.tree.sequence_form import node_sequences
from algorithms.tree.sequence_form import player_sequences

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
DEFAULT_MAX_NODES = 2_000_000

_FIXED_SUM = (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM)
_SUPPORTED_CHANCE = (pyspiel.GameType.ChanceMode.DETERMINISTIC,
                     pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC)


@dataclasses.dataclass(frozen=True)
class GameTree:
  """A game tree in flat arrays; build it with ``GameTree.from_game``.

  Node level (one entry per history, depth-first preorder, ``node_parent[n] < n``):
    node_parent: int array, -1 for the root.
    node_player: int array, the acting player for decisions, ``CHANCE`` (-1) or ``TERMINAL``
      (-4).
    node_infoset: int array, the acting player's information set index (-1 if none).
    node_action: int array, the action that led to the node (-1 for the root).
    node_depth: int array, number of actions (chance included) from the root.
    node_prob: float array, chance probability of the edge into the node (1 after a decision).
    node_seq: int array (num_nodes, num_players), each player's sequence at the node.
    node_terminal: int array, terminal index of the node (-1 if not terminal).
    node_chance_reach: float array, product of the chance probabilities on the path to the node.

  Terminals:
    terminal_node: int array (num_terminals,), the node of each terminal.
    utility: float array (num_terminals, num_players), ``state.returns()``.
    chance_reach: float array (num_terminals,), ``node_chance_reach`` of the terminals.
    terminal_seq: int array (num_terminals, num_players), each player's sequence leading to the
      terminal.

  Other:
    players: one ``PlayerSequences`` per player.
    game: the game.
    utility_sum: the constant sum of the utilities for zero- and constant-sum games (0 for
      zero-sum), None for general-sum ones.
  """

  game: pyspiel.Game
  players: Tuple[PlayerSequences, ...]
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
  utility_sum: Optional[float]
  _representative_node: Tuple[np.ndarray, ...]

  @functools.cached_property
  def chance_reach(self) -> np.ndarray:
    return self.node_chance_reach[self.terminal_node]

  @property
  def num_players(self) -> int:
    return len(self.players)

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
    return sum(p.num_infosets for p in self.players)

  @classmethod
  def from_game(cls, game: pyspiel.Game, max_nodes: int = DEFAULT_MAX_NODES) -> "GameTree":
    """Walks ``game`` once (or builds it by the game's registered shortcut) and returns its tree.

    Args:
      game: a sequential OpenSpiel game with perfect recall and explicit (or no) chance, Python
        or C++, with two or more players and any utility type.
      max_nodes: the walk stops with an error when the tree has more histories than this.

    Returns:
      The ``GameTree``.

    Raises:
      ValueError: if the game is not supported or the tree exceeds ``max_nodes``; checked on the
        game type before the walk, and during the walk for imperfect recall, information sets
        whose legal actions differ, information-state strings shared by two players, and (for
        games that declare zero- or constant-sum utilities) terminals whose utilities do not
        sum to a constant.
    """
    check_supported(game)
    if max_nodes < 1:
      raise ValueError(f"max_nodes must be >= 1, got {max_nodes}")
    # A game with a registered shortcut (e.g. Kuhn poker, generated from its rules) gets the
    # walk's tree without the walk.
    shortcuts = game_shortcuts.for_game(game)
    fields = shortcuts.tree_fields(game, max_nodes) if shortcuts else None
    if fields is not None:
      return cls(**fields)
    return _index(game, _walk(game, max_nodes))

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """A uniform ``policy.TabularPolicy(game)``, built from one state per information set.

    ``TabularPolicy`` numbers information sets per player in the order of the smallest
    ``history_str()`` among their states; handing it exactly those states reproduces the
    numbering of a full walk, which is asserted against ``tabular_row``.
    """
    states = {}
    for nodes in self._representative_node:
      for node in nodes:
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


def check_two_player_fixed_sum(game: pyspiel.Game, what: str) -> None:
  """Raises a one-line ValueError unless ``game`` is a two-player zero- or constant-sum game.

  For the parts of the project that stay two-player zero-sum (the sequence-form LP, the
  public-state cut); checked on the game type, before any walk.

  Args:
    game: the game.
    what: what needs such a game, for the message (e.g. "the sequence form LP").
  """
  name = game.get_type().short_name
  if game.num_players() != 2:
    raise ValueError(f"{name}: {what} needs exactly 2 players, got {game.num_players()}")
  if game.get_type().utility not in _FIXED_SUM:
    raise ValueError(f"{name}: {what} needs a zero-sum or constant-sum game, got "
                     f"{game.get_type().utility}")


def check_supported(game: pyspiel.Game) -> None:
  """Raises ValueError naming the problem if the game type is outside what the tree handles."""
  game_type = game.get_type()
  name = game_type.short_name
  if game.num_players() < 2:
    raise ValueError(f"{name}: needs at least 2 players, got {game.num_players()}")
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise ValueError(f"{name}: needs sequential dynamics, got {game_type.dynamics} "
                     "(wrap simultaneous games with turn_based_simultaneous_game)")
  if game_type.chance_mode not in _SUPPORTED_CHANCE:
    raise ValueError(f"{name}: needs deterministic or explicit stochastic chance, got "
                     f"{game_type.chance_mode}")
  if not game_type.provides_information_state_string:
    raise ValueError(f"{name}: needs information_state_string (perfect recall information sets)")


@dataclasses.dataclass
class _Walk:
  """The histories of a game as ``_walk`` visits them, information sets by first visit.

  Attributes:
    nodes: per node (parent, player, action, depth, chance probability, chance reach, first-visit
      information set of the acting player or -1, position of the action among the parent's
      legal actions or -1 below a chance node).
    terminals: per terminal, (node, utilities).
    keys, legal, parent, first_history: per player, per first-visit information set: the
      information-state string, the legal actions, the (set, action position) of the player's
      previous own action, and (smallest history string, its node).
    utility_sum: the constant utility sum, or None for a general-sum game.
  """

  nodes: list
  terminals: list
  keys: Tuple[list, ...]
  legal: Tuple[list, ...]
  parent: Tuple[list, ...]
  first_history: Tuple[list, ...]
  utility_sum: Optional[float]


def _walk(game: pyspiel.Game, max_nodes: int) -> _Walk:
  """Depth-first walk of every history; see ``GameTree.from_game``."""
  name = game.get_type().short_name
  num_players = game.num_players()
  fixed_sum = game.get_type().utility in _FIXED_SUM
  record = _Walk(nodes=[], terminals=[],
                 keys=tuple([] for _ in range(num_players)),
                 legal=tuple([] for _ in range(num_players)),
                 parent=tuple([] for _ in range(num_players)),
                 first_history=tuple([] for _ in range(num_players)), utility_sum=None)
  index = tuple({} for _ in range(num_players))  # Per player: key -> first-visit set.
  nodes = record.nodes
  # Stack entries: state, parent node, action, its position, depth, chance prob, history
  # string, per player the (set, action position) of its last own action.
  stack = [(game.new_initial_state(), -1, -1, -1, 0, 1.0, "", ((-1, 0),) * num_players)]
  while stack:
    state, par, action, position, depth, prob, hist, last = stack.pop()
    node = len(nodes)
    if node >= max_nodes:
      raise ValueError(f"{name}: tree has more than max_nodes={max_nodes} histories")
    reach = prob * nodes[par][5] if par >= 0 else prob
    prefix = hist + ", " if hist else ""
    if state.is_terminal():
      nodes.append((par, TERMINAL, action, depth, prob, reach, -1, position))
      returns = tuple(state.returns())
      if fixed_sum:
        total = sum(returns)
        if record.utility_sum is None:
          record.utility_sum = total
        elif abs(total - record.utility_sum) > 1e-9 * max(1.0, abs(record.utility_sum)):
          raise ValueError(f"{name}: declared {game.get_type().utility} but utilities sum to "
                           f"{record.utility_sum} and {total} at two terminals")
      record.terminals.append((node, returns))
      continue
    if state.is_chance_node():
      nodes.append((par, CHANCE, action, depth, prob, reach, -1, position))
      outcomes = state.chance_outcomes()
      total = sum(p for _, p in outcomes)
      if abs(total - 1.0) > 1e-9:
        raise ValueError(f"{name}: chance probabilities at history [{hist}] sum to {total}")
      for a, p in reversed(outcomes):
        if p > 0:
          stack.append((state.child(a), node, a, -1, depth + 1, p, prefix + str(a), last))
      continue
    if state.is_simultaneous_node() or state.is_mean_field_node():
      raise ValueError(f"{name}: history [{hist}] is not a sequential decision node")
    pl = state.current_player()
    key = state.information_state_string(pl)
    actions = tuple(state.legal_actions(pl))
    own = last[pl]
    infoset = index[pl].get(key)
    if infoset is None:
      infoset = len(record.keys[pl])
      index[pl][key] = infoset
      record.keys[pl].append(key)
      record.legal[pl].append(actions)
      record.parent[pl].append(own)
      record.first_history[pl].append((hist, node))
    else:
      if record.parent[pl][infoset] != own:
        raise ValueError(f"{name}: imperfect recall: information set {key!r} of player {pl} is "
                         "reached after different own sequences")
      if record.legal[pl][infoset] != actions:
        raise ValueError(f"{name}: information set {key!r} has legal actions "
                         f"{record.legal[pl][infoset]} and {actions} in two histories")
      if hist < record.first_history[pl][infoset][0]:
        record.first_history[pl][infoset] = (hist, node)
    nodes.append((par, pl, action, depth, prob, reach, infoset, position))
    before, after = last[:pl], last[pl + 1:]
    for k in range(len(actions) - 1, -1, -1):
      stack.append((state.child(actions[k]), node, actions[k], k, depth + 1, 1.0,
                    prefix + str(actions[k]), before + ((infoset, k),) + after))
  if not record.terminals:
    raise ValueError(f"{name}: the game tree has no terminal history")
  return record


def _index(game: pyspiel.Game, record: _Walk) -> GameTree:
  """Numbers the information sets, sequences and tabular rows of a walk; builds the tree."""
  name = game.get_type().short_name
  num_players = game.num_players()
  owner = {}
  for pl, keys in enumerate(record.keys):
    for key in keys:
      if owner.setdefault(key, pl) != pl:
        raise ValueError(f"{name}: information state {key!r} belongs to players {owner[key]} "
                         f"and {pl}; TabularPolicy would merge their rows")
  columns = list(zip(*record.nodes))
  node_parent, node_player, node_action, node_depth = (
      np.array(c, dtype=np.int64) for c in columns[:4])
  node_prob, node_chance_reach = (np.array(c, dtype=np.float64) for c in columns[4:6])
  first_visit, position = (np.array(c, dtype=np.int64) for c in columns[6:8])
  node_infoset = np.full(len(node_parent), -1, dtype=np.int64)
  players, representative = [], []
  row_offset = 0
  for pl in range(num_players):
    count = len(record.keys[pl])
    # TabularPolicy rows: by player, then by the smallest history string of the set.
    by_history = sorted(range(count), key=lambda s, pl=pl: record.first_history[pl][s][0])
    tabular_row = np.empty(count, dtype=np.int64)
    tabular_row[by_history] = row_offset + np.arange(count)
    row_offset += count
    parent = np.array(record.parent[pl], dtype=np.int64).reshape(count, 2)
    sequences, new_of_given = player_sequences(pl, record.keys[pl], record.legal[pl],
                                               parent[:, 0], parent[:, 1], tabular_row)
    players.append(sequences)
    nodes = np.empty(count, dtype=np.int64)
    nodes[new_of_given] = [n for _, n in record.first_history[pl]]
    representative.append(nodes)
    acting = node_player == pl
    node_infoset[acting] = new_of_given[first_visit[acting]]
  node_seq = node_sequences(node_parent, node_player, node_infoset, node_depth, position,
                             players)
  terminal_node = np.array([node for node, _ in record.terminals], dtype=np.int64)
  node_terminal = np.full(len(node_parent), -1, dtype=np.int64)
  node_terminal[terminal_node] = np.arange(len(terminal_node))
  return GameTree(
      game=game,
      players=tuple(players),
      node_parent=node_parent,
      node_player=node_player,
      node_infoset=node_infoset,
      node_action=node_action,
      node_depth=node_depth,
      node_prob=node_prob,
      node_seq=node_seq,
      node_terminal=node_terminal,
      node_chance_reach=node_chance_reach,
      terminal_node=terminal_node,
      utility=np.array([u for _, u in record.terminals], dtype=np.float64),
      terminal_seq=node_seq[terminal_node],
      utility_sum=None if record.utility_sum is None else float(record.utility_sum),
      _representative_node=tuple(representative))
