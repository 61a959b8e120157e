"""The public tree of a three-player game with one private card each from an ordered deck.

The three-player form of ``card_tree.CardTree`` (three-player Kuhn poker, for one): each player
holds one private card of a deck of N >= 3 cards ranked 0 < 1 < ... < N - 1 (three distinct
cards, every ordered deal equally likely), the betting is public, and a hand ends when the betting
does, with the highest card among the players still in taking the pot. The game tree has
N (N - 1) (N - 2) copies of one betting tree; a ``CardTree3`` keeps one: the decision nodes with
their acting player, the children, and per terminal who is still in the hand and what each player
has put in. An information set is (decision node, own card), and ``algorithms.cfr.range_engine``
runs CFR on this tree with one vector over the cards per player and node, as on a ``CardTree``.
A game offers it through the ``card_tree`` hook of its ``game_shortcuts`` entry, like a
``CardTree`` (Kuhn poker's entry, ``kuhn_tree``, gives either by the number of players).

Three players do not fit ``CardTree``'s terminals (a showdown stake or a fold payoff, one number
for player 0): after a bet one opponent may fold and the other call, so a terminal is a
showdown among any subset of the players, and each player's payoff depends on the subset and on
its own contribution. Hence the terminal fields ``in_hand`` and ``contribution``, from which
``KuhnRules.returns`` follows: the winner gains the other players' contributions, every other
player loses its own.
"""

import dataclasses
from typing import Callable, Tuple, Union

import numpy as np
import pyspiel

from algorithms.tree.card_tree import CardTree


@dataclasses.dataclass(frozen=True)
class CardTree3:
  """One betting tree for every deal of a three-player, one-card, ordered-deck game.

  Attributes:
    game, histories, node_player, child: as ``CardTree``'s (the game, the decision nodes'
      betting histories top-down, their acting players, and their children, a terminal t as
      -(t + 1)).
    terminals: the terminal histories, in the order of t.
    in_hand: (T, 3) bool, in_hand[t, p]: player p has not folded at terminal t.
    contribution: (T, 3) float64, the chips player p has put in the pot at terminal t.
    num_cards: N >= 3.
    state: ``(d, card) -> pyspiel.State``, a state of the information set (d, card) of the
      player acting at d: the one with the smallest ``history_str()`` (so ``TabularPolicy``
      numbers the sets as its walk of the whole game would, and ``range_engine.RangeLayout``
      serves this tree as it serves a ``CardTree``).
  """

  game: pyspiel.Game
  histories: Tuple[str, ...]
  node_player: np.ndarray
  child: np.ndarray
  terminals: Tuple[str, ...]
  in_hand: np.ndarray
  contribution: np.ndarray
  num_cards: int
  state: Callable[[int, int], pyspiel.State]

  @property
  def num_nodes(self) -> int:
    """D, the number of decision nodes."""
    return len(self.node_player)

  @property
  def num_players(self) -> int:
    """P = 3."""
    return self.in_hand.shape[1]

  @property
  def num_actions(self) -> int:
    """A, the actions of every decision node (``child``'s columns)."""
    return self.child.shape[1]


# Either card tree. Both offer what the range engine reads (``game``, ``histories``,
# ``node_player``, ``child``, ``in_hand``, ``contribution``, ``num_cards``, ``state``,
# ``num_nodes``, ``num_players``, ``num_actions``), so no caller tells them apart.
AnyCardTree = Union[CardTree, CardTree3]
