"""The public tree of a two-player game with one private card each from an ordered deck.

Many poker models have this form: each player holds one private card of a deck of N cards
ranked 0 < 1 < ... < N - 1 (two distinct cards, every ordered deal equally likely), the actions
are public, and a hand ends at a showdown, which the higher card wins, or at a fold, whose payoff
does not depend on the cards. The game tree then has N (N - 1) copies of one betting tree; a
``CardTree`` keeps one: the decision nodes with their acting player, the children, and each
terminal's kind and payoff. An information set is (decision node, own card), and
``algorithms.cfr.range_engine`` runs CFR on this tree with one vector over the cards per player
and node.

A game offers its ``CardTree`` through the ``card_tree`` hook of its ``game_shortcuts`` entry.
Three players need another terminal form (``card_tree3.CardTree3``); both trees offer the
terminals as ``in_hand`` and ``contribution``, which is all the range engine reads of them.
"""

import dataclasses
from typing import Callable, Tuple

import numpy as np
import pyspiel


@dataclasses.dataclass(frozen=True)
class CardTree:
  """One betting tree for every deal of a two-player, one-card, ordered-deck game.

  Attributes:
    game: the OpenSpiel game it describes.
    histories: a name per decision node (the betting so far, e.g. ``"pb"``), top-down.
    node_player: (D,) int64, the player acting at each decision node; node 0 is the root and
      every node comes after its parent.
    child: (D, A) int64, the node after each action a < A (A = 2 in Kuhn poker: pass, bet): a
      decision node d >= 0, or terminal t encoded as -(t + 1).
    showdown: (T,) bool, True where terminal t is a showdown, False at a fold.
    payoff: (T,) float64, player 0's payoff at t: the stake s of a showdown (+s with the higher
      card, -s with the lower), or at a fold player 0's payoff; player 1 gets the opposite.
    num_cards: N >= 2.
    state: ``(d, card) -> pyspiel.State``, a state of the information set (d, card) of the
      player acting at d: the one with the smallest ``history_str()`` (so ``TabularPolicy``
      numbers the sets as its walk of the whole game would).
  """

  game: pyspiel.Game
  histories: Tuple[str, ...]
  node_player: np.ndarray
  child: np.ndarray
  showdown: np.ndarray
  payoff: np.ndarray
  num_cards: int
  state: Callable[[int, int], pyspiel.State]

  @property
  def num_nodes(self) -> int:
    """D, the number of decision nodes."""
    return len(self.node_player)

  @property
  def num_players(self) -> int:
    """P = 2."""
    return 2

  @property
  def num_actions(self) -> int:
    """A, the actions of every decision node (``child``'s columns)."""
    return self.child.shape[1]

  @property
  def in_hand(self) -> np.ndarray:
    """(T, 2) bool, the players who have not folded at each terminal: both at a showdown; at a
    fold the player with u_0 >= 0 (player 0 if u_0 >= 0, else player 1). ``card_tree3.CardTree3``
    has the same field, so the range engine reads either tree alike."""
    payoff = np.asarray(self.payoff, dtype=np.float64)
    return np.ascontiguousarray(np.stack([self.showdown | (payoff >= 0),
                                          self.showdown | (payoff < 0)], axis=1))

  @property
  def contribution(self) -> np.ndarray:
    """(T, 2) float64, what each player loses at a terminal if it does not win, as
    ``CardTree3.contribution``: at a showdown the stake s = u_0 of each; at a fold the folder's
    entry is |u_0|, what it loses, and the winner's, which no payoff of two players reads, is
    |u_0| too."""
    payoff = np.asarray(self.payoff, dtype=np.float64)
    stake = np.where(self.showdown, payoff, np.abs(payoff))
    return np.ascontiguousarray(np.stack([stake, stake], axis=1))

  def block(self, node: int, card: int) -> int:
    """The first index of information set (node, card) in the flat (D N A,) arrays."""
    return (node * self.num_cards + card) * self.num_actions
