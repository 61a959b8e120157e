"""The engines behind the OpenSpiel-facing solvers: the flat game tree or the range vectors.

A solver (``solvers.EngineSolver``) holds one backend and asks it the same questions whatever the
engine: run iterations, hand out the current and average policies as flat arrays, write them
into OpenSpiel ``TabularPolicy`` rows, evaluate them exactly, and save or restore the state.

* ``FlatBackend``: ``cfr_engine.CFREngine`` on the game's ``TreeArrays`` (any game the tree
  walk supports); work and memory grow with the number of histories.
* ``RangeBackend``: ``range_engine.RangeEngine`` on the game's ``CardTree`` (two-player games
  with one private card from an ordered deck whose ``game_shortcuts`` entry offers one, e.g.
  Kuhn poker with any deck); work and memory grow with the number of cards.

``make_backend`` picks one: ``engine="auto"`` takes the range vectors where the game has a card
tree of at least ``AUTO_RANGE_MIN_CARDS`` cards, the flat tree elsewhere; ``"flat"`` and
``"range"`` force one (``"range"`` on a game without a card tree is an error naming the games
that have one). Both run the same ``UpdateRule`` through the same per-block rule functions of
``cfr_kernel`` and give the same policies up to rounding
(``tests/test_algorithms/cfr/test_range_engine.py``).

Why a threshold. The flat engine sums in OpenSpiel's order and so reproduces OpenSpiel's CFR bit
for bit, exact regret ties included; the range engine sums the same terms grouped by card, and
on small decks, where the uniform start makes many regrets tie exactly, rounding breaks some
ties the other way: on ``kuhn_poker`` the two engines' average policies part by up to 0.12
after 100 iterations, both correct CFR runs. Below 13 cards both engines run over 200,000
iterations per second, so ``"auto"`` keeps OpenSpiel's numbers there; from a full suit on, the
range engine is the faster (3x at 13 cards, 37x at 200, against the fused flat kernel) and the
only one that fits in memory beyond about 2,000 cards.
"""

from typing import Dict, Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
import pyspiel

from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.range_engine import RangeLayout
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.tree import game_shortcuts
from algorithms.tree.card_tree import CardTree
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays

ENGINES = ("auto", "flat", "range")
# The smallest deck on which ``engine="auto"`` takes the range vectors (module docstring).
AUTO_RANGE_MIN_CARDS = 13
# Float64 arrays of D N 2 entries a range-vector run holds (R, S, sigma, X, q for two players,
# the average): the memory estimate of ``RangeBackend.check_memory``.
_RANGE_ARRAYS = 8
# The default memory limit of a range-vector run, in bytes.
DEFAULT_MAX_BYTES = 4 * 2**30


class FlatBackend:
  """A ``CFREngine`` on the game's flat tree, its ``TabularPolicy`` rows and its evaluator."""

  name = "flat"

  def __init__(self, game: pyspiel.Game, rule: UpdateRule, tree: Optional[GameTree],
               max_nodes: int):
    if tree is None:
      tree = GameTree.from_game(game, max_nodes)
    elif str(tree.game) != str(game):
      raise ValueError(f"tree is for game {tree.game}, not {game}")
    self.tree = tree
    self.arrays = TreeArrays(tree)
    self.engine = CFREngine(self.arrays, rule)
    self._evaluator = None

  @property
  def iteration(self) -> int:
    return self.engine.iteration

  @property
  def state_size(self) -> int:
    """The length of the regret and numerator arrays a checkpoint stores."""
    return self.arrays.num_sequences

  def solve(self, iterations: int) -> None:
    self.engine.solve(iterations)

  def flat_policy(self, average: bool) -> np.ndarray:
    """The average (or current) policy in the engine's layout."""
    return self.engine.average() if average else self.engine.sigma

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """A uniform ``TabularPolicy`` of the game (the solver fills it)."""
    return self.tree.tabular_policy()

  def to_tabular(self, flat: np.ndarray, table: np.ndarray) -> None:
    self.arrays.to_tabular(flat, table)

  def evaluator(self) -> TreeEvaluator:
    if self._evaluator is None:
      self._evaluator = TreeEvaluator(self.arrays)
    return self._evaluator

  def nash_conv(self, flat: np.ndarray) -> float:
    return self.evaluator().nash_conv(flat)

  def exploitability(self, flat: np.ndarray) -> float:
    return self.evaluator().exploitability(flat)

  def state_arrays(self) -> Tuple[np.ndarray, np.ndarray]:
    """The cumulative regrets and average numerators a checkpoint stores."""
    return self.engine.regrets, self.engine.cumulative

  def restore(self, iteration: int, regrets: np.ndarray, cumulative: np.ndarray) -> None:
    self.engine.restore(iteration, regrets, cumulative)

  def info_state_nodes(self) -> Dict[str, cfr._InfoStateNode]:  # pylint: disable=protected-access
    """OpenSpiel's ``_info_state_nodes`` from the engine's arrays (a snapshot)."""
    a, e = self.arrays, self.engine
    nodes = {}
    for pl, p in enumerate(self.tree.players):
      for i, key in enumerate(p.infoset_keys):
        g = a.global_infoset[pl][i]
        s = slice(a.infoset_start[g], a.infoset_start[g] + a.infoset_num_actions[g])
        nodes[key] = _node(list(p.legal_actions[i]), int(p.tabular_row[i]), e.regrets[s],
                           e.cumulative[s])
    return nodes


class RangeBackend:
  """A ``RangeEngine`` on the game's ``CardTree``, its ``TabularPolicy`` rows and its values.

  The ``TabularPolicy`` map (one representative state per information set) is built on first
  use, so a run that only reads ``CardPolicy`` objects never builds it.
  """

  name = "range"

  def __init__(self, card_tree: CardTree, rule: UpdateRule, max_bytes: int = DEFAULT_MAX_BYTES):
    check_memory(card_tree, max_bytes)
    self.card_tree = card_tree
    self.engine = RangeEngine([card_tree], rule)
    self._layout = None

  @property
  def layout(self) -> RangeLayout:
    if self._layout is None:
      self._layout = RangeLayout(self.card_tree)
    return self._layout

  @property
  def iteration(self) -> int:
    return int(self.engine.iteration[0])

  @property
  def state_size(self) -> int:
    return self.engine.regrets.shape[1]

  def solve(self, iterations: int) -> None:
    self.engine.solve(iterations)

  def flat_policy(self, average: bool) -> np.ndarray:
    return self.engine.average() if average else self.engine.sigma[0]

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    return self.layout.tabular_policy()

  def to_tabular(self, flat: np.ndarray, table: np.ndarray) -> None:
    self.layout.to_tabular(flat, table)

  def nash_conv(self, flat: np.ndarray) -> float:
    return self.engine.nash_conv_of(flat)

  def exploitability(self, flat: np.ndarray) -> float:
    return self.engine.nash_conv_of(flat) / 2  # two players, zero-sum

  def state_arrays(self) -> Tuple[np.ndarray, np.ndarray]:
    return self.engine.regrets[0], self.engine.cumulative[0]

  def restore(self, iteration: int, regrets: np.ndarray, cumulative: np.ndarray) -> None:
    self.engine.restore(iteration, regrets, cumulative)

  def info_state_nodes(self) -> Dict[str, cfr._InfoStateNode]:  # pylint: disable=protected-access
    """OpenSpiel's ``_info_state_nodes`` from the engine's arrays (a snapshot)."""
    e, layout = self.engine, self.layout
    keys = layout.keys
    return {key: _node([0, 1], int(row), e.regrets[0, 2 * i:2 * i + 2],
                       e.cumulative[0, 2 * i:2 * i + 2])
            for i, (key, row) in enumerate(zip(keys, layout.rows))}


def _node(legal_actions, row: int, regrets: np.ndarray,
          cumulative: np.ndarray) -> cfr._InfoStateNode:  # pylint: disable=protected-access
  node = cfr._InfoStateNode(  # pylint: disable=protected-access
      legal_actions=legal_actions, index_in_tabular_policy=row)
  node.cumulative_regret.update(zip(legal_actions, regrets.tolist()))
  node.cumulative_policy.update(zip(legal_actions, cumulative.tolist()))
  return node


def range_memory(card_tree: CardTree) -> int:
  """Bytes a range-vector run of ``card_tree`` holds: about 8 float64 arrays of D N 2."""
  return _RANGE_ARRAYS * 8 * 2 * (card_tree.num_nodes + 1) * card_tree.num_cards


def check_memory(card_tree: CardTree, max_bytes: int) -> None:
  """Refuses, before any work, a run whose ``range_memory`` exceeds ``max_bytes``."""
  need = range_memory(card_tree)
  if need > max_bytes:
    raise ValueError(f"{card_tree.game}: a range-vector run needs about {need / 2**30:.1f} GiB "
                     f"for {card_tree.num_cards} cards, over the limit max_bytes="
                     f"{max_bytes / 2**30:.1f} GiB")


def card_tree_of(game: pyspiel.Game) -> Optional[CardTree]:
  """The game's ``CardTree`` from its ``game_shortcuts`` entry, or None."""
  shortcuts = game_shortcuts.for_game(game)
  return None if shortcuts is None else shortcuts.card_tree(game)


def choose_engine(game: pyspiel.Game, engine: str,
                  tree: Optional[GameTree] = None) -> Optional[CardTree]:
  """The game's ``CardTree`` if ``engine`` (module docstring) runs range vectors on it, else None.

  A ``tree`` handed in asks for the flat engine (it is that engine's input).

  Raises:
    ValueError: unknown ``engine``, or ``"range"`` for a game without a card tree.
  """
  if engine not in ENGINES:
    raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
  card_tree = None if engine == "flat" or tree is not None else card_tree_of(game)
  if engine == "range" and card_tree is None:
    raise ValueError(f"engine='range' needs a two-player game with one private card from an "
                     f"ordered deck (kuhn_poker, kuhn_poker_ante with two players); got {game}"
                     + (" with a flat tree handed in" if tree is not None else ""))
  if card_tree is not None and (engine == "range"
                                or card_tree.num_cards >= AUTO_RANGE_MIN_CARDS):
    return card_tree
  return None


def make_backend(game: pyspiel.Game, rule: UpdateRule, engine: str, tree: Optional[GameTree],
                 max_nodes: int, max_bytes: int = DEFAULT_MAX_BYTES):
  """The backend of ``engine`` (``choose_engine``) for ``game``.

  Raises:
    ValueError: as ``choose_engine``, or a game too large for the chosen engine's limit.
  """
  card_tree = choose_engine(game, engine, tree)
  if card_tree is not None:
    return RangeBackend(card_tree, rule, max_bytes)
  return FlatBackend(game, rule, tree, max_nodes)
