"""CFR with range vectors on a card tree: the state of a run, its policies and its exact values.

The engine of ``range_kernel`` (its docstring states the passes and the terminal values) for a
batch of B games that share one betting tree but for their stakes (e.g. one deck and rule set, a
grid of antes and bets): a two-player ``CardTree`` or a three-player ``CardTree3``, which offer
the same fields (``card_tree3.AnyCardTree``), so one engine serves both. Its state is the flat
engine's, ``cfr_engine.CFREngine``, per game: cumulative regrets R, average numerators S and the
current policy sigma, each (B, D N A), A the tree's actions per node, with information set
(d, c) at ``CardTree.block(d, c)``; the same ``UpdateRule`` drives both engines through the
same per-block functions of ``rule_kernel``, with alternating updates (players 0, 1, ... in
turn, as OpenSpiel's CFR and the flat engine) or simultaneous ones. CFR has no equilibrium
guarantee with three players (Abou Risk and Szafron, "Using counterfactual regret minimization to
create competitive multiplayer poker agents", AAMAS 2010; ``cfr_engine``): the engine runs the
same updates and NashConv measures what they reach.

Exact evaluation is range-vector too (Johanson, Waugh, Bowling, Zinkevich, "Accelerating best
response calculation in large extensive games", IJCAI 2011: one pass over the public tree with
the opponents' ranges instead of a walk over every deal): the best-response value of player i
against a policy pi is sum_c BR_i(root, c) with BR_i(d, c) = max_a q(d, c, a) at i's nodes, in
O(N |tree|) per player. NashConv = sum_i (BR_i - u_i) with u_i the players' expected payoffs
(which sum to 0: the games are zero-sum), as OpenSpiel's ``exploitability.nash_conv``; OpenSpiel's
exploitability is NashConv / P for P players.

Policies leave the engine in two forms: ``CardPolicy`` (the (D, N, 2) array with the node
names; any deck) and OpenSpiel's ``TabularPolicy`` (``RangeLayout``), whose construction costs
one representative ``pyspiel.State`` per information set, 4 N of them for standard two-player
Kuhn rules.
"""

import functools
from typing import Dict, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib

from algorithms.cfr import range_kernel
from algorithms.cfr import regret_matching as rm
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.range_kernel import CardTables
from algorithms.tree.card_tree3 import AnyCardTree
from algorithms.tree.sequence_form import Blocks


class CardPolicy(NamedTuple):
  """A policy of a ``CardTree`` game in compact form.

  Attributes:
    histories: the decision nodes' names (``CardTree.histories``).
    node_player: (D,) the player acting at each node.
    probabilities: (D, N, A): probabilities[d, c, a] = pi(a | node d, acting player's card c).
  """

  histories: Tuple[str, ...]
  node_player: np.ndarray
  probabilities: np.ndarray

  def action_probability(self, history: str, card: int) -> np.ndarray:
    """The acting player's action probabilities (A,) after ``history`` holding ``card``."""
    return self.probabilities[self.histories.index(history), card]

  def bet_probabilities(self) -> Dict[str, np.ndarray]:
    """{history: (N,) probability of action 1 (bet or call) by card}, the input of
    ``algorithms.exact.deck_thresholds.thresholds_from_policy``."""
    return {h: self.probabilities[d, :, 1] for d, h in enumerate(self.histories)}


def card_tables(tree: AnyCardTree) -> CardTables:
  """The kernel's tables of a card tree (a two-player ``CardTree`` or a three-player
  ``CardTree3``).

  The last sequences (A d + a of the player acting at d; A D, the empty sequence, before the
  player's first choice) come from one walk down the tree; the terminals' description is the
  tree's ``in_hand`` and ``contribution``.
  """
  in_hand = np.ascontiguousarray(tree.in_hand, dtype=np.bool_)
  contribution = np.ascontiguousarray(tree.contribution, dtype=np.float64)
  players = tree.num_players
  actions = tree.num_actions
  empty = actions * tree.num_nodes
  node_sequence = np.full(tree.num_nodes, empty, dtype=np.int64)
  terminal_sequence = np.full((players, len(in_hand)), empty, dtype=np.int64)
  last = {0: (empty,) * players}  # node -> each player's last sequence on the way there
  for d in range(tree.num_nodes):  # parents first
    player = int(tree.node_player[d])
    node_sequence[d] = last[d][player]
    for a in range(actions):
      after = list(last[d])
      after[player] = actions * d + a
      target = int(tree.child[d, a])
      if target >= 0:
        last[target] = tuple(after)
      else:
        terminal_sequence[:, -target - 1] = after
  return CardTables(node_player=np.ascontiguousarray(tree.node_player, dtype=np.int64),
                    child=np.ascontiguousarray(tree.child, dtype=np.int64),
                    node_sequence=node_sequence, terminal_sequence=terminal_sequence,
                    in_hand=in_hand, contribution=contribution, num_cards=int(tree.num_cards),
                    players=tuple(range(players)), actions=tuple(range(actions)))


def same_betting(tree: AnyCardTree, other: AnyCardTree) -> bool:
  """Whether two trees differ at most in their stakes (so they can share one batch)."""
  mine, theirs = card_tables(tree), card_tables(other)
  return (tree.histories == other.histories and tree.num_cards == other.num_cards
          and all(np.array_equal(getattr(mine, name), getattr(theirs, name))
                  for name in ("node_player", "child", "in_hand")))


class RangeEngine:
  """The state of a range-vector CFR run on B games with one betting tree, and its update.

  Attributes:
    trees: the B card trees (``CardTree`` or ``CardTree3``; one deck, stakes may differ).
    rule: the ``UpdateRule``.
    regrets: (B, D N A) cumulative counterfactual regrets R.
    cumulative: (B, D N A) average-policy numerators S.
    sigma: (B, D N A) current policies (regret matching of R).
    iteration: (B,) int64, iteration t of each game's last pass.
  """

  def __init__(self, trees: Sequence[AnyCardTree], rule: UpdateRule):
    if not trees:
      raise ValueError(f"{type(self).__name__} needs at least one card tree")
    for tree in trees[1:]:
      if not same_betting(trees[0], tree):
        raise ValueError(f"games {trees[0].game} and {tree.game} differ in more than stakes; "
                         "a batch needs one deck and one rule set")
    self.trees = tuple(trees)
    self.rule = rule
    self._tables = [card_tables(tree) for tree in self.trees]
    actions = trees[0].num_actions
    size = trees[0].num_nodes * trees[0].num_cards * actions
    self.memory = np.stack([rule.memory(size) for _ in trees])  # the rule's state, per game
    self._kernel_rule = rule.kernel_rule()
    self._blocks = Blocks.from_sizes(np.full(size // actions, actions))  # one block per (d, c)
    self.regrets = np.zeros((len(trees), size))
    self.cumulative = np.zeros((len(trees), size))
    self.sigma = np.full((len(trees), size), 1.0 / actions)  # regret matching of R = 0: uniform
    self.iteration = np.zeros(len(trees), dtype=np.int64)

  @property
  def num_games(self) -> int:
    """B."""
    return len(self.trees)

  def _games(self, games: Optional[Sequence[int]]) -> np.ndarray:
    return np.arange(self.num_games) if games is None else np.asarray(games, dtype=np.int64)

  def solve(self, iterations: int, games: Optional[Sequence[int]] = None) -> None:
    """``iterations`` CFR iterations of each listed game (all if None), one compiled call each."""
    if iterations < 0:
      raise ValueError(f"iterations must be >= 0, got {iterations}")
    for b in self._games(games):
      range_kernel.iterations(self._tables[b], self._kernel_rule, self.sigma[b], self.regrets[b],
                              self.cumulative[b], self.memory[b], int(self.iteration[b]),
                              int(iterations), *self._work)
      self.iteration[b] += int(iterations)

  @functools.cached_property
  def _work(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The passes' work arrays (``range_kernel.iterations``), shared by the games of the batch
    (one betting tree and deck)."""
    tables = self._tables[0]
    players, nodes = len(tables.players), len(tables.node_player)
    size = nodes * tables.num_cards * len(tables.actions)
    return (range_kernel.reach_array(tables), np.empty((players, size)),
            np.empty((players, nodes, tables.num_cards)))

  def restore(self, iteration: int, regrets: np.ndarray, cumulative: np.ndarray,
              game: int = 0) -> None:
    """Sets game ``game``'s state after ``iteration`` iterations (e.g. from a checkpoint)."""
    self.iteration[game] = int(iteration)
    self.regrets[game] = regrets
    self.cumulative[game] = cumulative
    self.sigma[game] = rm.regret_matching(self.regrets[game], self._blocks)  # sigma = RM of R

  def average(self, game: int = 0) -> np.ndarray:
    """Game ``game``'s average policy (D N A,): S / sum_a S per block, uniform where unreached."""
    return rm.normalize_average(self.cumulative[game], self._blocks)

  def policy(self, game: int = 0, average: bool = True) -> CardPolicy:
    """Game ``game``'s average (or current) policy as a ``CardPolicy``."""
    tree = self.trees[game]
    flat = self.average(game) if average else self.sigma[game].copy()
    return CardPolicy(tree.histories, tree.node_player,
                      flat.reshape(tree.num_nodes, tree.num_cards, tree.num_actions))

  @property
  def num_players(self) -> int:
    """P, the number of players."""
    return len(self._tables[0].players)

  def values(self, game: int = 0, average: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """(best-response values (P,), expected payoffs (P,)) of game ``game``'s policy."""
    return self.values_of(self.average(game) if average else self.sigma[game], game)

  def values_of(self, policy: np.ndarray, game: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """(BR_i, u_i), i < P, of a flat policy (D N A,) in game ``game`` (``response_values``)."""
    return response_values(self._tables[game], policy)

  def nash_conv(self, game: int = 0, average: bool = True) -> float:
    """NashConv = sum_i (BR_i - u_i) of game ``game``'s average (or current) policy."""
    best, expected = self.values(game, average)
    return float(np.sum(best - expected))

  def nash_conv_of(self, policy: np.ndarray, game: int = 0) -> float:
    """NashConv = sum_i (BR_i - u_i) of a flat policy (D N A,) in game ``game``."""
    best, expected = self.values_of(policy, game)
    return float(np.sum(best - expected))

  def exploitability(self, game: int = 0, average: bool = True) -> float:
    """OpenSpiel's exploitability, NashConv / P (zero-sum), of game ``game``'s policy."""
    return self.nash_conv(game, average) / self.num_players


def response_values(tables: CardTables, policy: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
  """(BR_i, u_i) for i < P of a flat policy (D N A,): best-response and expected payoffs.

  BR_i = sum_c BR_i(root, c) (module docstring); u_i = sum_c v_i(root, c) with every player on
  ``policy``, so the u_i sum to 0 (a zero-sum game) up to rounding.
  """
  rule = UpdateRule().kernel_rule()  # unused: the passes update nothing
  roots = range_kernel.root_values(tables, rule, np.ascontiguousarray(policy, dtype=np.float64))
  best = np.array([values.sum() for values in roots[0]])  # BR_i = sum_c max-values at the root
  expected = np.array([values.sum() for values in roots[1]])
  return best, expected


# Peak bytes while OpenSpiel's TabularPolicy is built, per float of its information-state
# tensors (rows x tensor size): the tensors are built one list entry per row and then stacked;
# measured 1.87 GB peak for 12,000 rows of 3,008 floats (0.29 GB as one array).
_TABULAR_PEAK_BYTES_PER_FLOAT = 52


def tabular_policy_bytes(tree: AnyCardTree) -> int:
  """The estimated peak memory of building a ``TabularPolicy`` of ``tree``'s game.

  ``TabularPolicy`` stores every row's information-state tensor when the game provides one
  (``kuhn_poker_ante``'s has N + 8 entries): D N rows of N + 8 floats, quadratic in N.
  """
  game_type = tree.game.get_type()
  floats = 1
  if game_type.provides_information_state_tensor:
    floats = int(np.prod(tree.game.information_state_tensor_shape()))
  return _TABULAR_PEAK_BYTES_PER_FLOAT * tree.num_nodes * tree.num_cards * floats


class RangeLayout:
  """The map between a card tree's flat arrays and OpenSpiel's ``TabularPolicy`` rows.

  Raises:
    ValueError: where building the ``TabularPolicy`` would take more than ``max_bytes``
      (``tabular_policy_bytes``); ``CardPolicy`` is the compact form for such decks.
  """

  def __init__(self, tree: AnyCardTree, max_bytes: int = 4 * 2**30):
    need = tabular_policy_bytes(tree)
    if need > max_bytes:
      raise ValueError(f"{tree.game}: an OpenSpiel TabularPolicy of {tree.num_cards} cards needs "
                       f"about {need / 2**30:.1f} GiB (information-state tensors of every row), "
                       f"over max_bytes={max_bytes / 2**30:.1f} GiB; use the compact "
                       "card_policy() instead")
    states = {}
    keys = []
    for d in range(tree.num_nodes):
      for c in range(tree.num_cards):
        state = tree.state(d, c)
        states[state.history_str()] = state
        keys.append(state.information_state_string())
    self.tree = tree
    self.keys = tuple(keys)  # keys[d N + c]: the information-state string of (d, c)
    self._template = policy_lib.TabularPolicy(tree.game, states=states)
    # rows[d N + c]: the TabularPolicy row of information set (d, c).
    self.rows = np.array([self._template.state_lookup[k] for k in keys], dtype=np.int64)

  def tabular_policy(self, flat: Optional[np.ndarray] = None) -> policy_lib.TabularPolicy:
    """A new ``TabularPolicy`` of the game holding ``flat`` (D N A,), uniform if None."""
    out = self._template.__copy__()
    if flat is not None:
      self.to_tabular(flat, out.action_probability_array)
    return out

  def to_tabular(self, flat: np.ndarray, table: np.ndarray) -> None:
    """Writes ``flat`` (D N A,) into the rows of an ``action_probability_array``, in place."""
    table[self.rows] = flat.reshape(-1, self.tree.num_actions)

  def from_tabular(self, table: np.ndarray) -> np.ndarray:
    """The flat (D N A,) array of an ``action_probability_array``."""
    return np.ascontiguousarray(table[self.rows].reshape(-1))
