"""Kuhn poker with any ante, bet size and deck size, and its simplified rules, as a pyspiel game.

Kuhn, "A simplified form of poker", Contributions to the Theory of Games I, 1950. Each player
antes, each is dealt one card from a deck ranked 0 < 1 < ... < deck_size - 1, then players pass
or bet as ``spiel_games.kuhn_rules.KuhnRules`` says; this module only adapts those rules to
OpenSpiel's game API. Load it with::

  import spiel_games  # registers the game
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0,bet=1.0,deck_size=3,simplified=False)")
  game.rules  # the KuhnRules of the loaded variant

Parameters (all optional): ``ante`` (float > 0, default 1.0), ``bet`` (float > 0, default 1.0),
``deck_size`` (int >= 2, default 3), ``simplified`` (bool, default false: player 0's pass ends
the hand at a showdown for the antes). OpenSpiel checks parameter types strictly: write
``ante=2.0``; ``ante=2`` is rejected by ``pyspiel.load_game`` as a ``kInt``.

At its defaults the game has the same states, histories, chance outcomes, returns, strings and
tensors as OpenSpiel's C++ ``kuhn_poker``, so policies made for that game apply to this one.
Chance deals player 0's card uniformly over the deck, then player 1's uniformly over the rest.

Playthrough golden files of this game live in ``tests/playthroughs``; regenerate them with
``python -m spiel_games.playthroughs``.
"""

import functools
import math
import numbers
from typing import Any, Dict, List, Mapping, Optional, Tuple

from spiel_games import kuhn_observer
from spiel_games import kuhn_rules
import pyspiel

SHORT_NAME = "kuhn_poker_ante"
NUM_PLAYERS = kuhn_observer.NUM_PLAYERS
DEFAULT_PARAMS: Dict[str, Any] = {
    "ante": 1.0,
    "bet": 1.0,
    "deck_size": 3,
    "simplified": False,
}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Kuhn Poker with variable ante, bet and deck",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_PLAYERS,
    min_num_players=NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
    provides_factored_observation_string=True)


def _is_number(value: Any) -> bool:
  return isinstance(value, numbers.Real) and not isinstance(value, bool)


def rules_from_params(params: Optional[Mapping[str, Any]] = None,
                      game_name: str = SHORT_NAME) -> kuhn_rules.KuhnRules:
  """Validates game parameters and returns the variant they describe.

  Args:
    params: any of ``ante``, ``bet`` (finite numbers > 0; ints are accepted here, although
      ``pyspiel.load_game`` itself rejects an int for a float parameter), ``deck_size``
      (int >= 2), ``simplified`` (bool); missing ones take the values of ``DEFAULT_PARAMS``.
    game_name: the game named at the start of error messages (a game built on these rules,
      such as ``kuhn_poker_referee``, passes its own name).

  Returns:
    The ``KuhnRules`` of the variant.

  Raises:
    ValueError: naming the first bad parameter and its allowed values.
  """
  params = dict(params or {})
  for name in sorted(params):
    if name not in DEFAULT_PARAMS:
      raise ValueError(f"{game_name}: unknown parameter {name!r}; allowed: "
                       f"{', '.join(DEFAULT_PARAMS)}")
  values = {**DEFAULT_PARAMS, **params}
  for name in ("ante", "bet"):
    value = values[name]
    if not _is_number(value) or not math.isfinite(value) or value <= 0:
      raise ValueError(f"{game_name}: parameter {name!r} must be a finite number > 0 "
                       f"(e.g. {name}=2.0), got {value!r}")
  deck_size = values["deck_size"]
  if not isinstance(deck_size, numbers.Integral) or isinstance(deck_size, bool) or deck_size < 2:
    raise ValueError(f"{game_name}: parameter 'deck_size' must be an integer >= 2, "
                     f"got {deck_size!r}")
  simplified = values["simplified"]
  if not isinstance(simplified, bool):
    raise ValueError(f"{game_name}: parameter 'simplified' must be true or false, "
                     f"got {simplified!r}")
  return kuhn_rules.KuhnRules(ante=float(values["ante"]), bet=float(values["bet"]),
                              deck_size=int(deck_size), simplified=simplified)


def rules_of(game: pyspiel.Game) -> Optional[kuhn_rules.KuhnRules]:
  """The ``KuhnRules`` of a Kuhn game: OpenSpiel's two-player ``kuhn_poker`` (the defaults, which
  this game reproduces) or a ``kuhn_poker_ante`` game; None for any other game."""
  name = game.get_type().short_name
  if name == "kuhn_poker" and game.num_players() == NUM_PLAYERS:
    return kuhn_rules.KuhnRules()
  if name == SHORT_NAME:
    return game.rules
  return None


def params_from_rules(rules: kuhn_rules.KuhnRules) -> Dict[str, Any]:
  """The game parameters of ``rules``, typed as in ``DEFAULT_PARAMS``; inverts rules_from_params."""
  return {"ante": float(rules.ante), "bet": float(rules.bet), "deck_size": int(rules.deck_size),
          "simplified": bool(rules.simplified)}


def game_info(rules: kuhn_rules.KuhnRules) -> pyspiel.GameInfo:
  """Exact ``GameInfo``: utilities +-(ante + bet), one chance outcome per card, 2 actions.

  The game length counts player actions only (3 standard, 2 simplified), as OpenSpiel's Kuhn.
  """
  return pyspiel.GameInfo(
      num_distinct_actions=len(kuhn_rules.ACTION_CHARS),
      max_chance_outcomes=rules.deck_size,
      num_players=NUM_PLAYERS,
      min_utility=rules.min_utility,
      max_utility=rules.max_utility,
      utility_sum=0.0,
      max_game_length=rules.max_game_length)


class KuhnPokerAnteGame(pyspiel.Game):
  """The game; ``rules`` is its ``KuhnRules`` (ante, bet, deck_size, simplified)."""

  def __init__(self, params: Optional[Mapping[str, Any]] = None):
    rules = rules_from_params(params)
    super().__init__(GAME_TYPE, game_info(rules), params_from_rules(rules))

  @functools.cached_property
  def rules(self) -> kuhn_rules.KuhnRules:
    """The variant, read from the game parameters (unpickling restores only those)."""
    return rules_from_params(self.get_parameters())

  def new_initial_state(self) -> "KuhnPokerAnteState":
    return KuhnPokerAnteState(self)

  def max_chance_nodes_in_history(self) -> int:
    """One deal per player, as in OpenSpiel's C++ Kuhn."""
    return NUM_PLAYERS

  def make_py_observer(self, iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
                       params: Optional[Mapping[str, Any]] = None
                      ) -> kuhn_observer.KuhnObserver:
    """An observer of ``iig_obs_type``; ``None`` means the default, imperfect-recall observation."""
    return kuhn_observer.KuhnObserver(self.rules, iig_obs_type, params)


class KuhnPokerAnteState(pyspiel.State):
  """A hand in progress.

  Attributes:
    cards: the cards dealt so far; ``cards[i]`` is player i's.
    betting: the players' actions so far, a string over ``"pb"`` (pass, bet).
  """

  def __init__(self, game: KuhnPokerAnteGame):
    super().__init__(game)
    self._rules = game.rules
    self.cards: List[int] = []
    self.betting = ""

  def current_player(self) -> int:
    """Chance until both cards are dealt, then ``len(betting) % 2`` until the hand ends."""
    if len(self.cards) < NUM_PLAYERS:
      return pyspiel.PlayerId.CHANCE
    if self._rules.is_terminal(self.betting):
      return pyspiel.PlayerId.TERMINAL
    return self._rules.current_player(self.betting)

  def is_terminal(self) -> bool:
    return len(self.cards) == NUM_PLAYERS and self._rules.is_terminal(self.betting)

  def _legal_actions(self, player: int) -> List[int]:
    del player  # Both players may always pass or bet.
    return [kuhn_rules.PASS, kuhn_rules.BET]

  def chance_outcomes(self) -> List[Tuple[int, float]]:
    """Uniform over the cards not dealt yet."""
    remaining = [c for c in range(self._rules.deck_size) if c not in self.cards]
    return [(card, 1.0 / len(remaining)) for card in remaining]

  def _apply_action(self, action: int) -> None:
    if self.is_terminal():
      raise ValueError(f"cannot apply action {action}: the hand {self} is over")
    if self.is_chance_node():
      if not 0 <= action < self._rules.deck_size or action in self.cards:
        raise ValueError(f"cannot deal card {action}: the undealt cards are "
                         f"{[c for c, _ in self.chance_outcomes()]}")
      self.cards.append(int(action))
    else:
      if action not in (kuhn_rules.PASS, kuhn_rules.BET):
        raise ValueError(f"action must be {kuhn_rules.PASS} (pass) or {kuhn_rules.BET} (bet), "
                         f"got {action}")
      self.betting += kuhn_rules.ACTION_CHARS[action]

  def _action_to_string(self, player: int, action: int) -> str:
    if player == pyspiel.PlayerId.CHANCE:
      return f"Deal:{action}"
    return "Bet" if action == kuhn_rules.BET else "Pass"

  def returns(self) -> List[float]:
    """Zero-sum chips won: a folder loses its contribution, a showdown wins the loser's."""
    if not self.is_terminal():
      return [0.0, 0.0]
    return list(self._rules.returns(self.betting, self.cards))

  def __str__(self) -> str:
    """Cards then betting, space-separated, as OpenSpiel's Kuhn: ``"2 0 pb"``."""
    return " ".join([str(c) for c in self.cards] + ([self.betting] if self.betting else []))


pyspiel.register_game(GAME_TYPE, KuhnPokerAnteGame)
