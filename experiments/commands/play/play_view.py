"""What ``play`` shows a person: a game's states, moves and results in words.

Three views answer the same questions (``GameView``): Kuhn poker variants (``kuhn_poker`` and
``kuhn_poker_ante``: cards by name, the betting in words, the pot), the referee game
``kuhn_poker_referee`` (announcements typed as one probability per card, the public belief) and
any other two-player game (its information-state strings and action names). ``view_for`` picks
one.
"""

import dataclasses
import fractions
from typing import Dict, List, Optional, Sequence, Tuple

import pyspiel

from experiments.commands.play import captions
from spiel_games import kuhn_poker_ante
from spiel_games import kuhn_poker_referee
from spiel_games.kuhn_rules import KuhnRules

Fraction = fractions.Fraction
CHANCE = pyspiel.PlayerId.CHANCE
QUIT_KEYS = ("q", "quit")
LABEL_WIDTH = 17


def chips(x: float, signed: bool = True) -> str:
  """A chip amount, signed unless ``signed`` is False: ``+2``, ``-1.5``, ``-0.0556 (-1/18)``.

  The fraction shown is the one with denominator at most 1000 within 1e-12 of ``x``, if any
  (exact values carry float rounding); otherwise ``x`` is shown with 4 decimals.
  """
  x = float(x)
  sign = "+" if signed else ""
  value = Fraction(x).limit_denominator(1000)
  if abs(float(value) - x) > 1e-12 * max(1.0, abs(x)):
    return f"{x:{sign}.4f}"
  if value == 0:
    return "0"
  if value.denominator == 1:
    return f"{int(value):{sign}d}"
  if value.denominator in (2, 4, 5, 8, 10, 20, 25, 50, 100):
    return f"{float(value):{sign}g}"
  return f"{float(value):{sign}.4f} ({'+' if signed and value > 0 else ''}{value})"


def line(label: str, text: str) -> str:
  """An aligned ``label  text`` row, indented under the hand's heading."""
  return f"  {label:<{LABEL_WIDTH}}{text}"


def counted(n: int, noun: str) -> str:
  """``1 hand``, ``2 hands``: ``n`` and ``noun``, plural unless ``n`` is 1."""
  return f"{n} {noun}{'' if n == 1 else 's'}"


def who(player: int, seat: int) -> str:
  return "you" if player == seat else "opponent"


@dataclasses.dataclass(frozen=True)
class Move:
  """A legal action with the key that chooses it: what the person types (never an action id,
  unless the view's ``parse`` accepts that id as typed)."""

  key: str
  name: str
  action: int


def keyed_moves(names: Sequence[Tuple[int, str]]) -> List[Move]:
  """Keys for actions: first letters when they differ (and are not q), else 1, 2, ..."""
  initials = [name[:1].lower() for _, name in names]
  if len(set(initials)) == len(initials) and all(i.isalpha() and i != "q" for i in initials):
    return [Move(i, name, a) for i, (a, name) in zip(initials, names)]
  return [Move(str(k + 1), name, a) for k, (a, name) in enumerate(names)]


class GameView:
  """Any two-player game, in its own strings. Subclasses speak about particular games.

  Attributes:
    key_align: how the keys are aligned in the hints' column (``>`` right, ``<`` left).
  """

  key_align = ">"

  def __init__(self, game: pyspiel.Game):
    self.game = game

  def title(self) -> str:
    return str(self.game)

  def seat_name(self, seat: int) -> str:
    return f"player {seat} ({'first' if seat == 0 else 'second'} to act)"

  def private_lines(self, state: pyspiel.State, seat: int) -> List[str]:
    """What the person learns privately at the start of a hand (shown once)."""
    del state, seat
    return []

  def situation_lines(self, state: pyspiel.State, seat: int) -> List[str]:
    """What the person sees before a decision."""
    return [line("You see", state.information_state_string(seat))]

  def moves(self, state: pyspiel.State) -> List[Move]:
    player = state.current_player()
    return keyed_moves([(a, state.action_to_string(player, a)) for a in state.legal_actions()])

  def prompt(self, state: pyspiel.State) -> str:
    keys = "  ".join(f"{m.key}={m.name}" for m in self.moves(state))
    return f"  Your move: {keys}  (q quits) > "

  def parse(self, state: pyspiel.State, text: str) -> Optional[int]:
    """The action the person typed, or None if ``text`` names none."""
    text = text.strip().lower()
    for move in self.moves(state):
      if text in (move.key, move.name.lower()):
        return move.action
    return None

  def allowed(self, state: pyspiel.State) -> str:
    """The message after bad input: what may be typed."""
    keys = ", ".join(f"{m.key} ({m.name})" for m in self.moves(state))
    return f"  Please type one of: {keys}, or q to quit."

  def event(self, state: pyspiel.State, action: int, seat: int) -> Optional[str]:
    """``action`` at ``state`` in words (``"opponent: Raise"``); None for a private deal."""
    player = state.current_player()
    if player == CHANCE:
      return None  # Chance may deal private cards; what the person sees is in the state.
    return f"{who(player, seat)}: {state.action_to_string(player, action)}"

  def action_name(self, state: pyspiel.State, action: int) -> str:
    return state.action_to_string(state.current_player(), action)

  def end_lines(self, state: pyspiel.State, seat: int) -> List[str]:
    """What the person learns when the hand ends, before the result."""
    del seat
    return [line("Final state", str(state).strip().replace("\n", "; "))]

  def deal_record(self, state: pyspiel.State, seat: int) -> str:
    """The hand's private information, for the transcript."""
    del seat
    return f"final state {str(state).strip()!r}"

  def posterior_text(self, posterior: Sequence[Tuple[pyspiel.State, float]],
                     seat: int) -> Optional[str]:
    """The posterior over the opponent's private information, or None if not shown."""
    del posterior, seat
    return None

  def max_hints(self) -> int:
    return 1_000


class KuhnView(GameView):
  """Kuhn poker variants: the deals are the first two actions, then passes and bets."""

  _PRESENT = {"Check": "checks", "Bet": "bets", "Fold": "folds", "Call": "calls",
              "Pass": "passes"}
  _PAST = {"Check": "checked", "Bet": "bet", "Fold": "folded", "Call": "called",
           "Pass": "passed"}

  def __init__(self, game: pyspiel.Game, rules: KuhnRules):
    super().__init__(game)
    self.rules = rules

  def title(self) -> str:
    r = self.rules
    deck = " ".join(r.card_name(c) for c in range(r.deck_size))
    rules = ", simplified rules (a first pass ends the hand)" if r.simplified else ""
    return f"Kuhn poker: ante {r.ante:g}, bet {r.bet:g}, deck {deck}{rules}"

  @staticmethod
  def cards_and_betting(state: pyspiel.State) -> Tuple[List[int], str]:
    history = state.history()
    return history[:2], "".join("pb"[a] for a in history[2:])

  def private_lines(self, state, seat):
    cards, _ = self.cards_and_betting(state)
    return [line("Your card", self.rules.card_name(cards[seat]))]

  def _name(self, betting: str, action: int) -> str:
    return self.rules.action_name(betting, action)

  def betting_words(self, betting: str, seat: int) -> str:
    words = [f"{who(i % 2, seat)} {self._PAST[self._name(betting[:i], 'pb'.index(c))]}"
             for i, c in enumerate(betting)]
    return ", ".join(words) if words else "(none yet)"

  def situation_lines(self, state, seat):
    _, betting = self.cards_and_betting(state)
    put = self.rules.contributions(betting)
    return [line("Betting", self.betting_words(betting, seat)),
            line("Pot", f"{sum(put):g}   (you {put[seat]:g}, opponent {put[1 - seat]:g})")]

  def moves(self, state):
    _, betting = self.cards_and_betting(state)
    return keyed_moves([(a, self._name(betting, a)) for a in state.legal_actions()])

  def action_name(self, state, action):
    return self._name(self.cards_and_betting(state)[1], action)

  def event(self, state, action, seat):
    player = state.current_player()
    if player == CHANCE:
      return None
    name = self.action_name(state, action)
    return f"you {name.lower()}" if player == seat else f"opponent {self._PRESENT[name]}"

  def end_lines(self, state, seat):
    cards, betting = self.cards_and_betting(state)
    name = self.rules.card_name
    mine, theirs = name(cards[seat]), name(cards[1 - seat])
    if betting.endswith("bp"):
      folder = (len(betting) - 1) % 2
      how = "you folded" if folder == seat else "opponent folded"
    elif cards[seat] > cards[1 - seat]:
      how = f"showdown, your {mine} beats {theirs}"
    else:
      how = f"showdown, {theirs} beats your {mine}"
    return [line("Opponent's card", theirs), line("Outcome", how)]

  def deal_record(self, state, seat):
    cards, _ = self.cards_and_betting(state)
    return (f"you {self.rules.card_name(cards[seat])}, "
            f"opponent {self.rules.card_name(cards[1 - seat])}")

  def posterior_text(self, posterior, seat):
    weights: Dict[int, float] = {}
    for h, w in posterior:
      card = self.cards_and_betting(h)[0][1 - seat]
      weights[card] = weights.get(card, 0.0) + w
    cells = [f"{self.rules.card_name(c)} {w:.0%}" for c, w in sorted(weights.items())]
    return "opponent holds " + ", ".join(cells)


class RefereeView(GameView):
  """The public-referee game: announcements of P(bet or call | card), public beliefs.

  A move's key is the announcement as the person types it, one probability per card
  (``1/3 0 1``), which ``parse`` reads back to the same action.
  """

  key_align = "<"

  def __init__(self, game: pyspiel.Game):
    super().__init__(game)
    self.rules: KuhnRules = game.rules
    self.grid: int = game.grid

  def title(self) -> str:
    r = self.rules
    deck = " ".join(r.card_name(c) for c in range(r.deck_size))
    rules = ", simplified rules" if r.simplified else ""
    return "\n".join(captions.lines("referee_title", ante=r.ante, bet=r.bet, deck=deck,
                                    rules=rules, grid=self.grid))

  def _belief(self, state, seat) -> str:
    name = self.rules.card_name
    cells = []
    for (c0, c1), b in zip(self.rules.deals(), state.pbs.belief):
      mine, theirs = (c0, c1) if seat == 0 else (c1, c0)
      cells.append(((mine, theirs), b))
    cells.sort()
    return "  ".join(f"{name(m)}{name(t)} {b}" for (m, t), b in cells) + "   (your card first)"

  def situation_lines(self, state, seat):
    history = state.pbs.history
    put = self.rules.contributions(history)
    words = [f"{who(i % 2, seat)}: {self.rules.action_name(history[:i], 'pb'.index(c))}"
             for i, c in enumerate(history)]
    return [line("Betting", ", ".join(words) or "(none yet)"),
            line("Pot", f"{sum(put):g}   (you {put[seat]:g}, opponent {put[1 - seat]:g})"),
            line("Belief", self._belief(state, seat))]

  def _verb(self, state) -> str:
    return "call" if self.rules.facing_bet(state.pbs.history) else "bet"

  def prompt(self, state):
    deck = " ".join(self.rules.card_name(c) for c in range(self.rules.deck_size))
    return (f"  Announce P({self._verb(state)}) for {deck}, steps of 1/{self.grid} "
            f"(e.g. {self._example()}; q quits) > ")

  def _example(self) -> str:
    n = self.rules.deck_size
    values = [Fraction(min(c, self.grid), self.grid) for c in range(n)]
    return " ".join(str(v) for v in values)

  def typed(self, action: int) -> str:
    """Announcement ``action`` as the person types it: ``1/3 0 1``."""
    numerators = kuhn_poker_referee.decode_announcement(action, self.grid, self.rules.deck_size)
    return " ".join(str(Fraction(k, self.grid)) for k in numerators)

  def moves(self, state):
    return [Move(self.typed(a), self.action_name(state, a), a) for a in state.legal_actions()]

  def parse(self, state, text):
    tokens = text.replace(",", " ").split()
    if len(tokens) != self.rules.deck_size:
      return None
    try:
      values = [Fraction(t) for t in tokens]
    except (ValueError, ZeroDivisionError):
      return None
    if any(not 0 <= v <= 1 for v in values):
      return None
    try:
      return kuhn_poker_referee.encode_policy(values, self.grid)
    except ValueError:  # Not on the grid.
      return None

  def allowed(self, state):
    steps = ", ".join(str(Fraction(k, self.grid)) for k in range(self.grid + 1))
    return (f"  Please type {self.rules.deck_size} probabilities, one per card, each one of "
            f"{steps} (e.g. {self._example()}), or q to quit.")

  def action_name(self, state, action):
    if state.is_chance_node():
      return self.rules.action_name(state.pbs.history, action)
    return kuhn_poker_referee.announcement_to_string(self.rules, self.grid, state.pbs.history,
                                                     action)

  def event(self, state, action, seat):
    if state.is_chance_node():
      return f"the referee draws {self.action_name(state, action)}"
    verb = "announce" if state.current_player() == seat else "announces"
    return f"{who(state.current_player(), seat)} {verb} {self.action_name(state, action)}"

  def end_lines(self, state, seat):
    return [line("Final belief", self._belief(state, seat)),
            line("Outcome", captions.CAPTIONS["referee_outcome"])]

  def deal_record(self, state, seat):
    return f"final belief {self._belief(state, seat)}"

  def max_hints(self) -> int:
    return 5


def view_for(game: pyspiel.Game) -> GameView:
  """The view that speaks best about ``game``."""
  if game.get_type().short_name == kuhn_poker_referee.SHORT_NAME:
    return RefereeView(game)
  rules = kuhn_poker_ante.rules_of(game)
  if rules is not None:
    return KuhnView(game, rules)
  return GameView(game)
