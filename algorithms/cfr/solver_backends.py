"""The engines behind the OpenSpiel-facing solvers: the flat game tree or the range vectors.

A backend is an engine together with what the solver needs of its game beyond the engine's
state and update: the map to OpenSpiel ``TabularPolicy`` rows and an exact evaluator
(``evaluation``). A solver (``solvers.EngineSolver``) holds one backend and asks it the same
questions whatever the engine; the engine's own interface (``solve``, ``restore``, ``regrets``,
``cumulative``, ``sigma``) is inherited, not forwarded.

* ``FlatBackend``: a ``cfr_engine.CFREngine`` on the game's ``TreeArrays`` (any game the tree
  walk supports); work and memory grow with the number of histories.
* ``RangeBackend``: a ``range_engine.RangeEngine`` on the game's card tree (games with one
  private card from an ordered deck whose ``game_shortcuts`` entry offers one: a ``CardTree``
  for two players, e.g. Kuhn poker with any deck, a ``CardTree3`` for three-player Kuhn poker);
  work and memory grow with the number of cards.

``make_backend`` picks one as ``engine_choice.range_card_tree`` says: ``engine="auto"`` takes
the range vectors where the game has a card tree of at least ``AUTO_RANGE_MIN_CARDS`` cards, the
flat tree elsewhere; ``"flat"`` and ``"range"`` force one (``"range"`` on a game without a card
tree is an error naming the games that have one). Both run the same ``UpdateRule`` through the
same per-block rule functions of ``cfr_kernel`` and give the same policies up to rounding
(``tests/test_algorithms/cfr/test_range_engine.py``).

Why a threshold. The flat engine sums in OpenSpiel's order and so reproduces OpenSpiel's CFR bit
for bit, exact regret ties included; the range engine sums the same terms grouped by card, and
on small decks, where the uniform start makes many regrets tie exactly, rounding breaks some
ties the other way: on ``kuhn_poker`` the two engines' average policies part by up to 0.12
after 100 iterations, both correct CFR runs. Below 13 cards both engines run over 200,000
iterations per second, so ``"auto"`` keeps OpenSpiel's numbers there; from a full suit on, the
range engine is the faster (3x at 13 cards, 37x at 200, against the fused flat kernel) and the
only one that fits in memory beyond about 2,000 cards.

A batched solver (``batched_solver``: B games of one tree shape, different payoffs) holds one
batched backend, picked by ``make_batched_backend`` with the same choice, and asks it the same
questions of a list of its games: ``BatchedFlatBackend`` (``cfr_kernel.exact_batch`` on the first
game's ``TreeArrays`` with every game's terminal weights) or ``BatchedRangeBackend`` (a
``RangeEngine`` of B card trees). A single-game ``RangeBackend`` is the batched one of one game.
"""

import functools
import math
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
import pyspiel

from algorithms.cfr import cfr_kernel
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import sequence_policy
from algorithms.cfr.engine_choice import card_tree_of  # noqa: F401  (where callers find it)
from algorithms.cfr.engine_choice import range_card_tree
from algorithms.cfr.evaluation import RangeEvaluator
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.range_engine import RangeLayout
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.cfr.update_rules import UpdateRule
from algorithms.tree import game_shortcuts
from algorithms.tree.card_tree3 import AnyCardTree
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays

# Float64 arrays of D N A entries (A = 2 actions) a range-vector run of P players holds, the
# memory estimate of ``check_memory``: R, S, sigma, the reach X and the average, and per player
# its q (P, D N A) and v (P, D, N), half an array for A = 2: 5 + 1.5 P, rounded up (8 for two
# players, 10 for three).
_RANGE_ARRAYS = 5
_RANGE_ARRAYS_PER_PLAYER = 1.5
# The default memory limit of a range-vector run, in bytes.
DEFAULT_MAX_BYTES = 4 * 2**30


class FlatBackend(CFREngine):
  """A ``CFREngine`` on the game's flat tree, with its ``TabularPolicy`` rows and evaluator.

  Attributes:
    tree: the ``GameTree``.
    to_tabular: ``TreeArrays.to_tabular``: writes a flat policy into ``TabularPolicy`` rows.
  """

  name = "flat"

  def __init__(self, game: pyspiel.Game, rule: UpdateRule, tree: Optional[GameTree],
               max_nodes: int):
    if tree is None:
      tree = GameTree.from_game(game, max_nodes)
    elif str(tree.game) != str(game):
      raise ValueError(f"tree is for game {tree.game}, not {game}")
    super().__init__(TreeArrays(tree), rule)
    self.tree = tree
    self.to_tabular = self.arrays.to_tabular

  @functools.cached_property
  def evaluator(self) -> TreeEvaluator:
    return TreeEvaluator(self.arrays)

  def flat_policy(self, average: bool) -> np.ndarray:
    """The average (or current) policy in the engine's layout."""
    return self.average() if average else self.sigma

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """A uniform ``TabularPolicy`` of the game (the solver fills it)."""
    return self.tree.tabular_policy()

  def info_state_nodes(self) -> Dict[str, cfr._InfoStateNode]:  # pylint: disable=protected-access
    """OpenSpiel's ``_info_state_nodes`` from the engine's arrays (a snapshot)."""
    a = self.arrays
    nodes = {}
    for pl, p in enumerate(self.tree.players):
      for i, key in enumerate(p.infoset_keys):
        g = a.global_infoset[pl][i]
        s = slice(a.infoset_start[g], a.infoset_start[g] + a.infoset_num_actions[g])
        nodes[key] = _node(list(p.legal_actions[i]), int(p.tabular_row[i]), self.regrets[s],
                           self.cumulative[s])
    return nodes


def _same_shape(tree: GameTree, other: GameTree) -> bool:
  """True if two trees have the same sequence forms, information states and terminals."""
  if tree.num_players != other.num_players or tree.num_terminals != other.num_terminals:
    return False
  if not np.array_equal(tree.terminal_seq, other.terminal_seq):
    return False
  for p, q in zip(tree.players, other.players):
    if (p.infoset_keys != q.infoset_keys or p.legal_actions != q.legal_actions or
        not np.array_equal(p.parent_seq, q.parent_seq) or
        not np.array_equal(p.tabular_row, q.tabular_row)):
      return False
  return True


class BatchedFlatBackend:
  """B games of one tree shape on the flat engine: one layout, per game its terminal weights and
  its CFR state, run by ``cfr_kernel.exact_batch``.

  ``exact_batch`` runs ``cfr_kernel.exact_iterations`` on each listed game in turn, the numbers
  of ``CFREngine.solve`` bit for bit, so each game's state is that of its own ``FlatBackend``.
  The first game's tree is built; a game of the same registered shape as the first
  (``game_shortcuts``; Kuhn poker) gets its payoffs from ``GameShortcuts.terminal_utility``
  without a tree, and any other game's tree is built and compared with the first's.

  Attributes:
    arrays: the shared ``TreeArrays`` (of the first game).
    weights: (B, T, N) each game's terminal weights u_p(z) pi_c(z).
    regrets, cumulative, sigma: (B, G) each game's CFR state, as ``CFREngine``'s.
    iteration: (B,) int64, each game's number of iterations (as ``RangeEngine.iteration``).
  """

  name = "flat"

  def __init__(self, games: Sequence[pyspiel.Game], rule: UpdateRule, max_nodes: int):
    """Builds the shared layout and every game's weights.

    Raises:
      ValueError: for games of different shapes (naming the first one that differs), or a
        first game over ``max_nodes`` histories.
    """
    tree = GameTree.from_game(games[0], max_nodes)
    first = game_shortcuts.for_game(games[0])
    first_shape = first.shape(games[0]) if first else None
    utilities, chance = [tree.utility], [tree.chance_reach]
    for i, game in enumerate(games[1:], start=1):
      if (first_shape is not None and game_shortcuts.for_game(game) is first
          and first.shape(game) == first_shape):
        # Same registered shape: the same tree but for the payoffs, which need no tree.
        utilities.append(first.terminal_utility(game))
        chance.append(tree.chance_reach)
        continue
      other = GameTree.from_game(game, max_nodes)
      if not _same_shape(tree, other):
        raise ValueError(f"game {i} ({game}) has another tree shape than game 0 "
                         f"({games[0]}): batched games must share one tree shape")
      utilities.append(other.utility)
      chance.append(other.chance_reach)
    self.arrays = TreeArrays(tree)
    self.to_tabular = self.arrays.to_tabular
    self._kernel_rule = rule.kernel_rule()
    self.memory = np.stack([rule.memory(self.arrays.num_sequences) for _ in games])  # the rules'
    # w_p(z) = u_p(z) pi_c(z) per game, as TreeArrays computes them for that game alone.
    self.weights = np.stack([u * c[:, None] for u, c in zip(utilities, chance)])
    self._utility_sums = _fixed_sums(utilities, tree)
    b, g = len(games), self.arrays.num_sequences
    self.regrets = np.zeros((b, g))
    self.cumulative = np.zeros((b, g))
    self.sigma = np.empty((b, g))
    self.sigma[:] = sequence_policy(self.arrays, np.zeros(g), average=False)  # R = 0: uniform
    self.iteration = np.zeros(b, dtype=np.int64)

  def solve(self, iterations: int, games: np.ndarray) -> None:
    """``iterations`` more iterations of the listed games (int64 indices), one compiled call."""
    cfr_kernel.exact_batch(self.arrays.kernel, self._kernel_rule, self.weights, self.sigma,
                           self.regrets, self.cumulative, self.memory, self.iteration, games,
                           int(iterations))

  def restore(self, iteration: int, regrets: np.ndarray, cumulative: np.ndarray,
              game: int = 0) -> None:
    """Sets game ``game``'s state after ``iteration`` iterations, sigma = RM(R)."""
    self.iteration[game] = int(iteration)
    self.regrets[game] = regrets
    self.cumulative[game] = cumulative
    self.sigma[game] = sequence_policy(self.arrays, self.regrets[game], average=False)

  def policies(self, games: np.ndarray, average: bool) -> np.ndarray:
    """The listed games' average (or current) policies (len(games), G), as ``CFREngine``'s."""
    if not average:
      return self.sigma[games]
    # sigma_bar(I, a) = S(I, a) / sum_b S(I, b) of each game b
    return np.stack([sequence_policy(self.arrays, self.cumulative[b], average=True)
                     for b in games])

  def batch_values(self, games: np.ndarray, average: bool) -> Tuple[np.ndarray, np.ndarray]:
    """(best-response values, on-policy values), (len(games), N) each, of the listed games'
    average (or current) policies, in one compiled call (``cfr_kernel.batch_values``)."""
    return cfr_kernel.batch_values(self.arrays.kernel, self.weights[games],
                                   np.ascontiguousarray(self.policies(games, average)))

  def exploitabilities(self, games: np.ndarray, average: bool) -> np.ndarray:
    """(sum_i BR_i - utility sum) / N of each listed game, as ``TreeEvaluator.exploitability``.

    Raises:
      ValueError: for general-sum games.
    """
    if self._utility_sums[0] is None:
      raise ValueError("exploitability is defined for zero- and constant-sum games only; use "
                       "nash_convs for general-sum games")
    best, _ = self.batch_values(games, average)
    sums = np.array([self._utility_sums[b] for b in games])  # sum_i u_i(z), the same for every z
    return (best.sum(axis=1) - sums) / self.arrays.num_players  # (sum_i BR_i - sum_i u_i) / N

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """A uniform ``TabularPolicy`` of the first game."""
    return self.arrays.tree.tabular_policy()


def _fixed_sums(utilities: List[np.ndarray], tree: GameTree) -> List[Optional[float]]:
  """Each game's constant utility sum (the first terminal's, as the walk records it), or None
  for general-sum games."""
  if tree.utility_sum is None:
    return [None] * len(utilities)
  return [float(sum(u[0].tolist())) for u in utilities]


class BatchedRangeBackend(RangeEngine):
  """A ``RangeEngine`` on B card trees of one betting tree, with their ``TabularPolicy`` rows and
  their values.

  The ``TabularPolicy`` map (one representative state per information set, shared by the games)
  is built on first use, so a run that only reads ``CardPolicy`` objects never builds it.
  """

  name = "range"
  arrays = None  # the flat engine's TreeArrays: none here

  def __init__(self, card_trees: Sequence[AnyCardTree], rule: UpdateRule,
               max_bytes: int = DEFAULT_MAX_BYTES):
    for card_tree in card_trees:
      check_memory(card_tree, max_bytes)
    super().__init__(card_trees, rule)

  @functools.cached_property
  def layout(self) -> RangeLayout:
    return RangeLayout(self.trees[0])

  def to_tabular(self, flat: np.ndarray, table: np.ndarray) -> None:
    self.layout.to_tabular(flat, table)

  def policies(self, games: np.ndarray, average: bool) -> np.ndarray:
    """The listed games' average (or current) policies (len(games), D N A)."""
    return np.stack([self.average(b) if average else self.sigma[b] for b in games])

  def batch_values(self, games: np.ndarray, average: bool) -> Tuple[np.ndarray, np.ndarray]:
    """(best-response values, on-policy values), (len(games), P) each, of the listed games'
    average (or current) policies (``RangeEngine.values``)."""
    values = [self.values(b, average) for b in games]
    return np.array([v[0] for v in values]), np.array([v[1] for v in values])

  def exploitabilities(self, games: np.ndarray, average: bool) -> np.ndarray:
    """NashConv / n of each listed game (n players, zero-sum), as OpenSpiel's exploitability."""
    best, on_policy = self.batch_values(games, average)
    return np.sum(best - on_policy, axis=1) / best.shape[1]  # sum_i (BR_i - v_i) / n

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """A uniform ``TabularPolicy`` of the first game."""
    return self.layout.tabular_policy()


class RangeBackend(BatchedRangeBackend):
  """A ``RangeEngine`` on the game's card tree: the batched backend of one game, with the
  single-game questions of ``solvers.EngineSolver``."""

  def __init__(self, card_tree: AnyCardTree, rule: UpdateRule,
               max_bytes: int = DEFAULT_MAX_BYTES):
    super().__init__([card_tree], rule, max_bytes)
    self.card_tree = card_tree

  @functools.cached_property
  def evaluator(self) -> RangeEvaluator:
    return RangeEvaluator(self.card_tree)

  @property
  def layout(self) -> RangeLayout:
    """The evaluator's ``RangeLayout`` (one per game, built on first use)."""
    return self.evaluator.layout

  def flat_policy(self, average: bool) -> np.ndarray:
    return self.average() if average else self.sigma[0]

  def info_state_nodes(self) -> Dict[str, cfr._InfoStateNode]:  # pylint: disable=protected-access
    """OpenSpiel's ``_info_state_nodes`` from the engine's arrays (a snapshot)."""
    layout, actions = self.layout, self.card_tree.num_actions
    blocks = [slice(actions * i, actions * (i + 1)) for i in range(len(layout.keys))]
    return {key: _node(list(range(actions)), int(row), self.regrets[0, block],
                       self.cumulative[0, block])
            for key, row, block in zip(layout.keys, layout.rows, blocks)}


def _node(legal_actions, row: int, regrets: np.ndarray,
          cumulative: np.ndarray) -> cfr._InfoStateNode:  # pylint: disable=protected-access
  node = cfr._InfoStateNode(  # pylint: disable=protected-access
      legal_actions=legal_actions, index_in_tabular_policy=row)
  node.cumulative_regret.update(zip(legal_actions, regrets.tolist()))
  node.cumulative_policy.update(zip(legal_actions, cumulative.tolist()))
  return node


def range_memory(card_tree: AnyCardTree) -> int:
  """Bytes a range-vector run of ``card_tree`` holds: about 5 + 1.5 P float64 arrays of
  (D + 1) N A, rounded up to whole arrays (8 for two players, 10 for three)."""
  arrays = math.ceil(_RANGE_ARRAYS + _RANGE_ARRAYS_PER_PLAYER * card_tree.num_players)
  return arrays * 8 * card_tree.num_actions * (card_tree.num_nodes + 1) * card_tree.num_cards


def check_memory(card_tree: AnyCardTree, max_bytes: int) -> None:
  """Refuses, before any work, a run whose ``range_memory`` exceeds ``max_bytes``."""
  need = range_memory(card_tree)
  if need > max_bytes:
    raise ValueError(f"{card_tree.game}: a range-vector run needs about {need / 2**30:.1f} GiB "
                     f"for {card_tree.num_cards} cards, over the limit max_bytes="
                     f"{max_bytes / 2**30:.1f} GiB")


def make_backend(game: pyspiel.Game, rule: UpdateRule, engine: str, tree: Optional[GameTree],
                 max_nodes: int, max_bytes: int = DEFAULT_MAX_BYTES):
  """The backend of ``engine`` (``engine_choice.range_card_tree``) for ``game``.

  Raises:
    ValueError: as ``range_card_tree``, or a game too large for the chosen engine's limit.
  """
  card_tree = range_card_tree(game, engine, tree)
  if card_tree is not None:
    return RangeBackend(card_tree, rule, max_bytes)
  return FlatBackend(game, rule, tree, max_nodes)


def make_batched_backend(games: Sequence[pyspiel.Game], rule: UpdateRule, engine: str,
                         max_nodes: int, max_bytes: int = DEFAULT_MAX_BYTES
                         ) -> Union[BatchedFlatBackend, BatchedRangeBackend]:
  """The batched backend of ``engine`` for ``games``: the range vectors where ``range_card_tree``
  takes them for the first game (then for every game), else the flat engine.

  Raises:
    ValueError: as ``range_card_tree``, games that do not share the first game's engine or tree
      shape, or a game too large for the chosen engine's limit.
  """
  card_trees = [range_card_tree(g, engine) for g in games]
  if card_trees[0] is None:
    return BatchedFlatBackend(games, rule, max_nodes)
  others = [i for i, t in enumerate(card_trees) if t is None]
  if others:
    raise ValueError(f"game {others[0]} ({games[others[0]]}) does not run on the range-vector "
                     f"engine of game 0 ({games[0]}): batched games must share one engine")
  if any(t.num_players != card_trees[0].num_players for t in card_trees):
    raise ValueError(f"games {games[0]} and the others differ in their number of players: "
                     "batched games must share one engine")
  return BatchedRangeBackend(card_trees, rule, max_bytes)
