"""Kuhn poker with any number of players, ante, bet size and deck size, and its simplified rules,
as a pyspiel game.

Kuhn, "A simplified form of poker", Contributions to the Theory of Games I, 1950. Each player
antes, each is dealt one card from a deck ranked 0 < 1 < ... < deck_size - 1, then players pass
or bet as ``spiel_games.kuhn_rules.KuhnRules`` says; this module only adapts those rules to
OpenSpiel's game API. Load it with::

  import spiel_games  # registers the game
  game = pyspiel.load_game("kuhn_poker_ante(players=3,ante=2.0,bet=1.0)")
  game.rules  # the KuhnRules of the loaded variant

Parameters (all optional):

* ``players`` (int from 2 to 10, default 2), as in OpenSpiel's ``kuhn_poker(players=N)``;
* ``ante`` (float > 0, default 1.0) and ``bet`` (float > 0, default 1.0);
* ``deck_size`` (int >= players; default -1, which means players + 1, the deck of
  ``kuhn_poker``). Chance deals every player one card without replacement, so the deck needs a
  card for each player; ``deck_size = players`` is allowed (every card is dealt);
* ``simplified`` (bool, default false): player 0's pass ends the hand at a showdown for the
  antes; defined for two players only.

pyspiel hands a Python game every parameter of ``GAME_TYPE.parameter_specification``, filling
the missing ones with their defaults, so the game cannot tell a given ``deck_size`` from a
default one; hence the default -1 rather than a number of cards. ``game.get_parameters()`` and
``str(game)`` hold the resolved values (``deck_size=4`` for ``players=3``), which load the same
game again. OpenSpiel checks parameter types strictly: write ``ante=2.0``; ``ante=2`` is
rejected by ``pyspiel.load_game`` as a ``kInt``.

With ``players=N`` and the other parameters at their defaults the game has the same states,
histories, chance outcomes, returns, strings and tensors as OpenSpiel's C++
``kuhn_poker(players=N)``, so policies made for that game apply to this one. Chance deals player
0's card uniformly over the deck, then player 1's uniformly over the rest, and so on.

Playthrough golden files of this game live in ``spiel_games/golden_playthroughs``; regenerate them
with ``python -m spiel_games.playthroughs``.
"""

import functools
import math
import numbers
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pyspiel

from spiel_games import kuhn_observer
from spiel_games import kuhn_rules

SHORT_NAME = "kuhn_poker_ante"
MIN_NUM_PLAYERS = 2
MAX_NUM_PLAYERS = 10  # As OpenSpiel's kuhn_poker.
DECK_FOLLOWS_PLAYERS = -1  # deck_size value meaning players + 1.
DEFAULT_PARAMS: Dict[str, Any] = {
    "ante": 1.0,
    "bet": 1.0,
    "deck_size": DECK_FOLLOWS_PLAYERS,
    "players": 2,
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
    max_num_players=MAX_NUM_PLAYERS,
    min_num_players=MIN_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
    provides_factored_observation_string=True)


def _is_number(value: Any) -> bool:
  return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
  return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def rules_from_params(params: Optional[Mapping[str, Any]] = None,
                      game_name: str = SHORT_NAME) -> kuhn_rules.KuhnRules:
  """Validates game parameters and returns the variant they describe.

  Args:
    params: any of ``ante``, ``bet`` (finite numbers > 0; ints are accepted here, although
      ``pyspiel.load_game`` itself rejects an int for a float parameter), ``players`` (int from
      2 to 10), ``deck_size`` (int >= players, or -1 for players + 1), ``simplified`` (bool,
      True only with two players); missing ones take the values of ``DEFAULT_PARAMS``.
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
  players = values["players"]
  if not _is_integer(players) or not MIN_NUM_PLAYERS <= players <= MAX_NUM_PLAYERS:
    raise ValueError(f"{game_name}: parameter 'players' must be an integer from "
                     f"{MIN_NUM_PLAYERS} to {MAX_NUM_PLAYERS}, got {players!r}")
  deck_size = values["deck_size"]
  if deck_size == DECK_FOLLOWS_PLAYERS and _is_integer(deck_size):
    deck_size = players + 1
  if not _is_integer(deck_size) or deck_size < players:
    raise ValueError(f"{game_name}: parameter 'deck_size' must be an integer >= {players}, "
                     f"got {deck_size!r} (each of the {players} players is dealt a card; "
                     f"{DECK_FOLLOWS_PLAYERS}, the default, means players + 1)")
  simplified = values["simplified"]
  if not isinstance(simplified, bool):
    raise ValueError(f"{game_name}: parameter 'simplified' must be true or false, "
                     f"got {simplified!r}")
  if simplified and players != 2:
    raise ValueError(f"{game_name}: parameter 'simplified' must be false with players={players} "
                     "(the simplified rules are defined for 2 players only)")
  return kuhn_rules.KuhnRules(ante=float(values["ante"]), bet=float(values["bet"]),
                              deck_size=int(deck_size), simplified=simplified,
                              num_players=int(players))


def rules_of(game: pyspiel.Game, num_players: Optional[int] = 2
             ) -> Optional[kuhn_rules.KuhnRules]:
  """The ``KuhnRules`` of a Kuhn game with ``num_players`` players, else None.

  Kuhn games are OpenSpiel's ``kuhn_poker(players=N)`` (ante = bet = 1, N + 1 cards, which this
  game reproduces) and ``kuhn_poker_ante`` games. The default, two players, is what the
  two-player tools built on these rules (closed forms, sequence-form LP, public trees) accept:
  for them a three-player game is not a Kuhn game they know. ``num_players=None`` accepts any
  number of players.
  """
  name = game.get_type().short_name
  if num_players is not None and game.num_players() != num_players:
    return None
  if name == "kuhn_poker":
    return kuhn_rules.KuhnRules(num_players=game.num_players())
  if name == SHORT_NAME:
    return game.rules
  return None


def params_from_rules(rules: kuhn_rules.KuhnRules) -> Dict[str, Any]:
  """The game parameters of ``rules``, typed as in ``DEFAULT_PARAMS``; inverts rules_from_params."""
  return {"ante": float(rules.ante), "bet": float(rules.bet), "deck_size": int(rules.deck_size),
          "players": int(rules.num_players), "simplified": bool(rules.simplified)}


def game_from_rules(rules: kuhn_rules.KuhnRules) -> pyspiel.Game:
  """The ``kuhn_poker_ante`` game with ``rules`` (the inverse of ``rules_of``)."""
  return pyspiel.load_game(SHORT_NAME, params_from_rules(rules))


def game_info(rules: kuhn_rules.KuhnRules) -> pyspiel.GameInfo:
  """Exact ``GameInfo``: one chance outcome per card, 2 actions, N players, utilities from
  -(ante + bet) (a caller who loses) to (N - 1)(ante + bet) (everyone calls and loses to the
  winner), zero-sum.

  The game length counts player actions only (2 N - 1 standard, 2 simplified), as OpenSpiel's
  Kuhn.
  """
  return pyspiel.GameInfo(
      num_distinct_actions=len(kuhn_rules.ACTION_CHARS),
      max_chance_outcomes=rules.deck_size,
      num_players=rules.num_players,
      min_utility=rules.min_utility,
      max_utility=rules.max_utility,
      utility_sum=0.0,
      max_game_length=rules.max_game_length)


def sample_outcome(outcomes: Sequence[Tuple[int, float]], z: float) -> int:
  """The outcome whose cumulative-probability interval [sum before, sum after) holds ``z``.

  The rule of OpenSpiel's ``SampleAction(outcomes, z)`` (``spiel.cc``), so that the same stream
  of numbers in [0, 1) picks the same outcomes as OpenSpiel's C++ games do.
  """
  if not 0 <= z < 1:
    raise ValueError(f"a probability sampler must return numbers in [0, 1), got {z!r}")
  total = 0.0
  for outcome, probability in outcomes:
    if total <= z < total + probability:
      return outcome
    total += probability
  return outcomes[-1][0]  # z beyond a total rounded below 1.


class KuhnPokerAnteGame(pyspiel.Game):
  """The game; ``rules`` is its ``KuhnRules`` (players, ante, bet, deck_size, simplified)."""

  def __init__(self, params: Optional[Mapping[str, Any]] = None):
    rules = rules_from_params(params)
    super().__init__(GAME_TYPE, game_info(rules), params_from_rules(rules))

  @functools.cached_property
  def rules(self) -> kuhn_rules.KuhnRules:
    """The variant, read from the game parameters (unpickling restores only those)."""
    return rules_from_params(self.get_parameters())

  def new_initial_state(self) -> "KuhnPokerAnteState":
    return KuhnPokerAnteState(self)

  def num_histories(self) -> int:
    """Histories (states) of the game tree, exactly: partial deals, then every deal times every
    betting history.

    With N players and n cards the deal passes through n! / (n - k)! chance states of k < N
    cards dealt; each of the n! / (n - N)! complete deals is followed by every betting history.
    """
    rules = self.rules
    n, players = rules.deck_size, rules.num_players
    histories = len(rules.decision_histories()) + len(rules.terminal_histories)
    return sum(math.perm(n, k) for k in range(players)) + math.perm(n, players) * histories

  def max_chance_nodes_in_history(self) -> int:
    """One deal per player, as in OpenSpiel's C++ Kuhn."""
    return self.rules.num_players

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
    """Chance until every player has a card, then ``len(betting) % N`` until the hand ends."""
    if len(self.cards) < self._rules.num_players:
      return pyspiel.PlayerId.CHANCE
    if self._rules.is_terminal(self.betting):
      return pyspiel.PlayerId.TERMINAL
    return self._rules.current_player(self.betting)

  def is_terminal(self) -> bool:
    return len(self.cards) == self._rules.num_players and self._rules.is_terminal(self.betting)

  def _legal_actions(self, player: int) -> List[int]:
    del player  # Every player may always pass or bet.
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
    """Zero-sum chips won: the winner gains the others' contributions, the others lose theirs."""
    if not self.is_terminal():
      return [0.0] * self._rules.num_players
    return list(self._rules.returns(self.betting, self.cards))

  def resample_from_infostate(self, player_id: int,
                              probability_sampler: Callable[[], float]) -> "KuhnPokerAnteState":
    """A state that ``player_id`` cannot tell from this one, drawn with chance's probabilities.

    OpenSpiel's ``State::ResampleFromInfostate``, as its C++ ``kuhn_poker`` implements it: the
    player keeps its card and the betting is replayed; every other card dealt so far is redrawn,
    in the order of the deal, from that deal's chance outcomes (``sample_outcome`` with one call
    of ``probability_sampler`` per draw), drawing again whenever the player's own card comes up.
    Every action is legal with every card, so each deal of the other cards is consistent with
    the player's information state, and the deals come out uniform over the ones that leave the
    player its card: chance's conditional distribution, which ignores what the other players'
    actions would suggest under a policy. Information-set MCTS (Cowling, Powley and Whitehouse,
    IEEE Trans. Computational Intelligence and AI in Games, 2012) samples its determinizations
    this way. With OpenSpiel's deck, the same numbers give the same state as ``kuhn_poker``'s C++
    method.

    Args:
      player_id: the player whose information state is kept; it must have been dealt a card.
      probability_sampler: returns numbers in [0, 1), e.g. ``pyspiel.UniformProbabilitySampler``.

    Returns:
      A new state with the same betting, the player's card and the same number of cards dealt.

    Raises:
      ValueError: if the player has no card yet or the sampler leaves [0, 1).
    """
    if not 0 <= player_id < len(self.cards):
      raise ValueError(f"player {player_id} has no card to keep; dealt cards: {self.cards}")
    own_card = self.cards[player_id]
    state = self.get_game().new_initial_state()
    for holder in range(len(self.cards)):
      card = own_card
      while holder != player_id and card == own_card:
        card = sample_outcome(state.chance_outcomes(), probability_sampler())
      state.apply_action(card)
    for char in self.betting:
      state.apply_action(kuhn_rules.ACTION_CHARS.index(char))
    return state

  def __str__(self) -> str:
    """Cards then betting, space-separated, as OpenSpiel's Kuhn: ``"2 0 pb"``."""
    return " ".join([str(c) for c in self.cards] + ([self.betting] if self.betting else []))


pyspiel.register_game(GAME_TYPE, KuhnPokerAnteGame)
