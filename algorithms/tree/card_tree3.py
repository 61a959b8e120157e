"""The public tree of three-player Kuhn poker with one private card each from an ordered deck.

The three-player form of ``card_tree.CardTree``: each player holds one private card of a deck of
N >= 3 cards ranked 0 < 1 < ... < N - 1 (three distinct cards, every ordered deal equally
likely), the betting is public, and a hand ends when the betting does, with the highest card
among the players still in taking the pot. The game tree has N (N - 1) (N - 2) copies of one
betting tree; a ``CardTree3`` keeps one: the decision nodes with their acting player, the
children, and per terminal who is still in the hand and what each player has put in. An
information set is (decision node, own card), and ``algorithms.cfr.range3_engine`` runs CFR on
this tree with one vector over the cards per player and node.

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

from algorithms.tree.kuhn_tree import _smallest_deal
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import ACTION_CHARS
from spiel_games.kuhn_rules import KuhnRules

NUM_PLAYERS = 3


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


def smallest_state(game: pyspiel.Game, rules: KuhnRules, history: str,
                   card: int) -> pyspiel.State:
  """The state with the smallest ``history_str()`` in which the player to act after the betting
  ``history`` holds ``card``: the first of its information set in ``TabularPolicy``'s order.

  The history string starts with the deal, "c_0, c_1, ..."; the smallest one gives each other
  seat, in order, the card whose string is smallest among those still free ("10" sorts between
  "1" and "2"). Any number of players.
  """
  by_string = sorted(range(rules.deck_size), key=str)
  player = rules.current_player(history)
  state = game.new_initial_state()
  for c in _smallest_deal(rules.deck_size, rules.num_players, player, card, by_string):
    state.apply_action(c)
  for a in history:
    state.apply_action(ACTION_CHARS.index(a))
  return state


def kuhn_rules3(game: Union[pyspiel.Game, KuhnRules]) -> KuhnRules:
  """The rules of three-player standard Kuhn poker of ``game`` (a game or its ``KuhnRules``).

  Raises:
    ValueError: (one line) for a game that is not Kuhn poker, another number of players, or the
      simplified rule set.
  """
  rules = game if isinstance(game, KuhnRules) else kuhn_poker_ante.rules_of(game, None)
  if rules is None:
    raise ValueError(f"three-player range vectors need kuhn_poker(players=3) or "
                     f"kuhn_poker_ante(players=3); got {game}")
  if rules.num_players != NUM_PLAYERS:
    limit = ("engine='range' of range_engine runs two players" if rules.num_players == 2 else
             "the flat engine (engine='flat') runs four or more, up to its max_nodes limit")
    raise ValueError(f"three-player range vectors need players=3, got players="
                     f"{rules.num_players}; {limit}")
  if rules.simplified:
    raise ValueError("three-player range vectors need simplified=False: the simplified rule set "
                     "is defined for two players only")
  return rules


def kuhn_card_tree3(game: pyspiel.Game) -> CardTree3:
  """The ``CardTree3`` of three-player Kuhn poker (any ante, bet and deck of N >= 3 cards):
  ``kuhn_poker(players=3)`` or ``kuhn_poker_ante(players=3, ...)``.

  Decision nodes are the betting histories where someone acts, shortest first; action 0 is pass
  (check or fold), 1 bet (or call); terminals likewise. ``in_hand`` and ``contribution`` are
  ``KuhnRules.in_hand`` and ``KuhnRules.contributions`` of each terminal history.

  Raises:
    ValueError: as ``kuhn_rules3``.
  """
  rules = kuhn_rules3(game)
  histories = rules.decision_histories()  # shortest first: parents before children
  terminals = tuple(sorted(rules.terminal_histories, key=lambda h: (len(h), h)))
  child = np.array([[histories.index(h + a) if h + a in histories else -terminals.index(h + a) - 1
                     for a in ACTION_CHARS] for h in histories], dtype=np.int64)
  in_hand = np.array([[p in rules.in_hand(z) for p in range(NUM_PLAYERS)] for z in terminals])
  contribution = np.array([rules.contributions(z) for z in terminals], dtype=np.float64)

  def state(node: int, card: int) -> pyspiel.State:
    return smallest_state(game, rules, histories[node], card)

  return CardTree3(game=game, histories=histories,
                   node_player=np.array([rules.current_player(h) for h in histories],
                                        dtype=np.int64),
                   child=child, terminals=terminals, in_hand=in_hand, contribution=contribution,
                   num_cards=rules.deck_size, state=state)
