"""Betting rules and payoffs of Kuhn poker variants, independent of any game API.

One object describes a variant: the ante, the bet size, the deck and the rule set. Both pyspiel
games of this package (``kuhn_poker_ante`` and ``kuhn_poker_referee``) ask it the same questions,
so the rules are written once.

A betting history is a string over ``"p"`` (pass: check or fold) and ``"b"`` (bet or call), as in
OpenSpiel's ``kuhn_poker``, where action 0 is pass and action 1 is bet. Player ``len(history) % 2``
acts next.

Rule sets (H. W. Kuhn, "A simplified form of poker", 1950, and the variable-ante game of the
project's background notes):

* standard: terminal histories ``pp``, ``bp``, ``bb``, ``pbp``, ``pbb``;
* simplified: player 0's pass ends the hand at a showdown for the antes; terminal histories
  ``p``, ``bp``, ``bb``.

A fold (a pass facing a bet) loses the folder's contribution; at a showdown the higher card takes
the pot, so the winner gains the loser's contribution.
"""

import dataclasses
import fractions
import itertools
from typing import Sequence, Tuple

PASS = 0
BET = 1
ACTION_CHARS = "pb"

_STANDARD_TERMINALS = frozenset(["pp", "bp", "bb", "pbp", "pbb"])
_SIMPLIFIED_TERMINALS = frozenset(["p", "bp", "bb"])
_RANK_NAMES = "23456789TJQKA"


@dataclasses.dataclass(frozen=True)
class KuhnRules:
  """A Kuhn poker variant.

  Attributes:
    ante: chips each player puts in before the deal (> 0).
    bet: size of a bet or a call (> 0).
    deck_size: number of cards, ranked 0 < 1 < ... < deck_size - 1 (>= 2).
    simplified: True for the variable-ante rules in which player 0's pass ends the hand.
  """

  ante: float = 1.0
  bet: float = 1.0
  deck_size: int = 3
  simplified: bool = False

  @property
  def terminal_histories(self) -> frozenset:
    return _SIMPLIFIED_TERMINALS if self.simplified else _STANDARD_TERMINALS

  @property
  def max_game_length(self) -> int:
    """Longest sequence of player actions (chance deals excluded), as in OpenSpiel's Kuhn."""
    return max(len(h) for h in self.terminal_histories)

  @property
  def max_utility(self) -> float:
    return self.ante + self.bet

  @property
  def min_utility(self) -> float:
    return -(self.ante + self.bet)

  def is_terminal(self, history: str) -> bool:
    return history in self.terminal_histories

  def current_player(self, history: str) -> int:
    """The player to act after ``history`` (which must not be terminal)."""
    return len(history) % 2

  def decision_histories(self) -> Tuple[str, ...]:
    """All non-terminal betting histories, shortest first."""
    prefixes = {h[:k] for h in self.terminal_histories for k in range(len(h))}
    return tuple(sorted(prefixes, key=lambda h: (len(h), h)))

  def facing_bet(self, history: str) -> bool:
    """True when the player to act faces a bet, so that pass means fold and bet means call."""
    return "b" in history

  def action_name(self, history: str, action: int) -> str:
    """Poker name of ``action`` after ``history``: Check/Bet, or Fold/Call facing a bet."""
    if self.facing_bet(history):
      return "Call" if action == BET else "Fold"
    return "Bet" if action == BET else "Check" if not self.simplified else "Pass"

  def contributions(self, history: str) -> Tuple[float, float]:
    """Chips each player has put in the pot after ``history``."""
    put = [self.ante, self.ante]
    for i, c in enumerate(history):
      if c == "b":
        put[i % 2] += self.bet
    return put[0], put[1]

  def returns(self, history: str, cards: Sequence[int]) -> Tuple[float, float]:
    """Terminal returns (player 0, player 1) after ``history`` with ``cards[i]`` held by i."""
    if not self.is_terminal(history):
      raise ValueError(f"history {history!r} is not terminal")
    put = self.contributions(history)
    if history.endswith("bp"):  # The last player folded to a bet.
      folder = (len(history) - 1) % 2
      gain = put[folder] if folder == 1 else -put[folder]
    else:
      gain = put[1] if cards[0] > cards[1] else -put[0]
    return gain, -gain

  def deals(self) -> Tuple[Tuple[int, int], ...]:
    """All ordered deals (card of player 0, card of player 1), without replacement."""
    return tuple(itertools.permutations(range(self.deck_size), 2))

  def deal_probability(self) -> fractions.Fraction:
    """Probability of each ordered deal: 1 / (n (n - 1))."""
    return fractions.Fraction(1, self.deck_size * (self.deck_size - 1))

  def card_name(self, card: int) -> str:
    """Readable card name: J Q K for three cards, ranks ending at K (or 2..A for 13 cards)."""
    n = self.deck_size
    if n <= 12:
      return _RANK_NAMES[12 - n + card]
    if n == 13:
      return _RANK_NAMES[card]
    return str(card)
