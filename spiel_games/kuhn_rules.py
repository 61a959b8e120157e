"""Betting rules and payoffs of Kuhn poker variants, independent of any game API.

One object describes a variant: the number of players, the ante, the bet size, the deck and the
rule set. Both pyspiel games of this package (``kuhn_poker_ante`` and ``kuhn_poker_referee``) ask
it the same questions, so the rules are written once.

A betting history is a string over ``"p"`` (pass: check or fold) and ``"b"`` (bet or call), as in
OpenSpiel's ``kuhn_poker``, where action 0 is pass and action 1 is bet. With N players, player
``len(history) % N`` acts next.

Rule sets (H. W. Kuhn, "A simplified form of poker", 1950; the N-player generalization of
OpenSpiel's C++ ``kuhn_poker(players=N)``, the game of Szafron, Gibson and Sturtevant, "A
parameterized family of equilibrium profiles for three-player Kuhn poker", AAMAS 2013, for N = 3;
and a two-player variable-ante variant in which player 0's pass ends the hand, whose equilibria
``algorithms.exact.kuhn_equilibria`` derives):

* standard, N players: each player in turn passes or bets until someone bets. If all N pass, the
  hand ends at a showdown for the antes. If the player at position b (0 <= b < N) bets first,
  each of the other N - 1 players, in turn, calls (bet) or folds (pass) once, and the hand ends
  after those N - 1 answers, so the terminal histories are ``"p" * N`` and
  ``"p" * b + "b" + s`` for every s in {p, b}^(N-1). For two players: ``pp``, ``bp``, ``bb``,
  ``pbp``, ``pbb``.
* simplified (two players only): player 0's pass ends the hand at a showdown for the antes;
  terminal histories ``p``, ``bp``, ``bb``.

Every player puts in the ante; the bettor and every caller put in the bet besides. At the end,
the player with the highest card among those still in the hand (everyone after N passes, else the
bettor and the callers) takes the pot: the winner gains every other player's contribution and
every other player loses their own.
"""

import dataclasses
import fractions
import functools
import itertools
import math
from typing import Optional, Sequence, Tuple

PASS = 0
BET = 1
ACTION_CHARS = "pb"

_SIMPLIFIED_TERMINALS = frozenset(["p", "bp", "bb"])
_RANK_NAMES = "23456789TJQKA"


@dataclasses.dataclass(frozen=True)
class KuhnRules:
  """A Kuhn poker variant.

  The fields are not validated here; ``spiel_games.kuhn_poker_ante.rules_from_params`` checks
  game parameters before building rules.

  Attributes:
    ante: chips each player puts in before the deal (> 0).
    bet: size of a bet or a call (> 0).
    deck_size: number of cards, ranked 0 < 1 < ... < deck_size - 1 (>= num_players); ``None``
      means ``num_players + 1``, the deck of OpenSpiel's ``kuhn_poker``.
    simplified: True for the variable-ante rules in which player 0's pass ends the hand (two
      players only).
    num_players: the number of players N (2 to 10 in the games).
  """

  ante: float = 1.0
  bet: float = 1.0
  deck_size: Optional[int] = None
  simplified: bool = False
  num_players: int = 2

  def __post_init__(self):
    if self.deck_size is None:
      object.__setattr__(self, "deck_size", self.num_players + 1)

  def __deepcopy__(self, memo) -> "KuhnRules":
    """Immutable, so shared: pyspiel clones a Python state by deep-copying its attributes."""
    del memo
    return self

  @property
  def is_openspiel_kuhn(self) -> bool:
    """True for the rules of OpenSpiel's ``kuhn_poker(players=N)``: ante = bet = 1, N + 1 cards,
    standard betting."""
    return (self.ante == 1 and self.bet == 1 and self.deck_size == self.num_players + 1
            and not self.simplified)

  @functools.cached_property
  def terminal_histories(self) -> frozenset:
    """Every terminal betting history (module docstring)."""
    if self.simplified:
      return _SIMPLIFIED_TERMINALS
    n = self.num_players
    return frozenset(["p" * n] + ["p" * b + "b" + "".join(answers)
                                  for b in range(n)
                                  for answers in itertools.product("pb", repeat=n - 1)])

  @property
  def max_game_length(self) -> int:
    """Longest sequence of player actions (chance deals excluded), as in OpenSpiel's Kuhn: the
    last player's bet after N - 1 passes, then N - 1 answers (2 N - 1); 2 when simplified."""
    return 2 if self.simplified else 2 * self.num_players - 1

  @property
  def max_utility(self) -> float:
    """Everyone calls a bet and the winner takes the other N - 1 contributions."""
    return (self.num_players - 1) * (self.ante + self.bet)

  @property
  def min_utility(self) -> float:
    """A caller who loses the showdown loses the ante and the bet."""
    return -(self.ante + self.bet)

  def is_terminal(self, history: str) -> bool:
    return history in self.terminal_histories

  def current_player(self, history: str) -> int:
    """The player to act after ``history`` (which must not be terminal)."""
    return len(history) % self.num_players

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

  def contributions(self, history: str) -> Tuple[float, ...]:
    """Chips each player has put in the pot after ``history``: the ante, plus the bet for the
    bettor and each caller."""
    put = [self.ante] * self.num_players
    for i, c in enumerate(history):
      if c == "b":
        put[i % self.num_players] += self.bet
    return tuple(put)

  def in_hand(self, history: str) -> Tuple[int, ...]:
    """The players who have not folded after ``history``: everyone before a bet, then the bettor
    and the players who called."""
    if "b" not in history:
      return tuple(range(self.num_players))
    return tuple(sorted({i % self.num_players for i, c in enumerate(history) if c == "b"}))

  def returns(self, history: str, cards: Sequence[int]) -> Tuple[float, ...]:
    """Terminal returns of every player after ``history`` with ``cards[i]`` held by player i.

    The winner is the player in the hand with the highest card; it gains the sum of the other
    players' contributions (summed so that with two players the gain is exactly the loser's
    contribution), and every other player loses its own contribution.
    """
    if not self.is_terminal(history):
      raise ValueError(f"history {history!r} is not terminal")
    put = self.contributions(history)
    winner = max(self.in_hand(history), key=lambda player: cards[player])
    return tuple(sum(put[j] for j in range(self.num_players) if j != winner) if i == winner
                 else -put[i] for i in range(self.num_players))

  def deals(self) -> Tuple[Tuple[int, ...], ...]:
    """All ordered deals (card of player 0, card of player 1, ...), without replacement."""
    return tuple(itertools.permutations(range(self.deck_size), self.num_players))

  def deal_probability(self) -> fractions.Fraction:
    """Probability of each ordered deal: 1 / (n (n - 1) ... (n - N + 1)), n cards, N players."""
    return fractions.Fraction(1, math.perm(self.deck_size, self.num_players))

  def card_name(self, card: int) -> str:
    """Readable card name: J Q K for three cards, ranks ending at K (or 2..A for 13 cards)."""
    n = self.deck_size
    if n <= 12:
      return _RANK_NAMES[12 - n + card]
    if n == 13:
      return _RANK_NAMES[card]
    return str(card)
