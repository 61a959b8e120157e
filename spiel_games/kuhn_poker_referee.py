"""ReBeL's public-referee game ``kuhn_poker_referee``: Kuhn poker as a perfect-information game.

The discrete representation of Brown, Bakhtin, Lerer, Gong, "Combining Deep Reinforcement
Learning and Search for Imperfect-Information Games" (ReBeL), NeurIPS 2020, arXiv 2007.13544,
Section 3, applied to ``kuhn_poker_ante``. Nobody holds private information: the state is a
public belief state (``PublicBeliefState``), the public betting history and the common-knowledge
joint distribution over the ordered deals, uniform at the start (there is no deal node: the
belief carries the cards).

* Where the base game has player i to act, player i ANNOUNCES a policy: for every card c the
  probability k_c / grid of the aggressive action (bet, or call when facing a bet).
* Then a chance node, the referee (who sees the real cards), draws the base game's action,
  0 = pass or 1 = bet, with P(bet) = sum_d belief(d) k_{c_i(d)} / grid; outcomes of probability
  zero are left out. The belief is updated by Bayes' rule.
* At a terminal history the returns are the expected chips under the final belief,
  sum_d belief(d) ``KuhnRules.returns``(history, d).

With announced probabilities on a grid the game is finite. When the grid contains an equilibrium
of the base game, the value of this game equals the base game's value (ReBeL, Section 3);
otherwise it is the value of a sequential max-min over grid-restricted strategies: the player
who announces later sees the earlier announcements.

Action encoding (player nodes): an announcement is the integer
``a = sum_c k_c (grid + 1) ** c`` with ``k_c`` in {0, ..., grid} and card 0 (the lowest) the least
significant digit, so there are ``(grid + 1) ** deck_size`` announcements, all legal at every
decision (entries for cards the belief rules out do not matter). Chance (referee) outcomes are
the base game's actions 0 (pass) and 1 (bet).

GameInfo: ``max_game_length`` counts decisions (announcements), as OpenSpiel counts decisions
and leaves chance outcomes out (``Game::MaxGameLength``); every announcement is followed by one
referee move, so a history holds at most twice that many actions.

Parameters: ``ante``, ``bet``, ``deck_size``, ``simplified`` as in ``kuhn_poker_ante``, ``players``
(2 only: the game is two-player; other values are refused with one line) and ``grid``
(int >= 1). Games with more than ``MAX_NUM_ANNOUNCEMENTS`` announcements are refused at
``load_game``: every decision node lists them all as legal actions, and OpenSpiel's search tools
(expectiminimax, MCTS, random simulation) expand them all.
"""

import fractions
import functools
import math
import numbers
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pyspiel

from spiel_games import kuhn_observer
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import ACTION_CHARS
from spiel_games.kuhn_rules import KuhnRules
from spiel_games.public_belief_state import PublicBeliefState

Fraction = fractions.Fraction

SHORT_NAME = "kuhn_poker_referee"
NUM_PLAYERS = 2  # The public-referee representation here is two-player.
MAX_NUM_ANNOUNCEMENTS = 100_000

_DEFAULT_PARAMS = {**kuhn_poker_ante.DEFAULT_PARAMS, "grid": 3}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Kuhn Poker Public-Referee Game (ReBeL discrete representation)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_PLAYERS,
    min_num_players=NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=_DEFAULT_PARAMS)


# Announcement encoding.


def num_announcements(grid: int, deck_size: int) -> int:
  """(grid + 1) ** deck_size: one announced probability k / grid per card."""
  return (grid + 1)**deck_size


def decode_announcement(action: int, grid: int, deck_size: int) -> Tuple[int, ...]:
  """Numerators (k_0, ..., k_{n-1}) of announcement ``action``; card 0 is the lowest digit."""
  if not 0 <= action < num_announcements(grid, deck_size):
    raise ValueError(f"announcement must be in [0, {num_announcements(grid, deck_size)}), "
                     f"got {action}")
  digits = []
  for _ in range(deck_size):
    action, k = divmod(action, grid + 1)
    digits.append(k)
  return tuple(digits)


def encode_announcement(numerators: Sequence[int], grid: int) -> int:
  """The action announcing P(aggressive | card c) = numerators[c] / grid."""
  if any(not 0 <= k <= grid for k in numerators):
    raise ValueError(f"numerators must be in [0, {grid}], got {list(numerators)}")
  return sum(int(k) * (grid + 1)**c for c, k in enumerate(numerators))


def announcement_table(grid: int, deck_size: int) -> np.ndarray:
  """All announcements' numerators: row a is ``decode_announcement(a, ...)``, shape (A, n)."""
  actions = np.arange(num_announcements(grid, deck_size))
  return np.stack([(actions // (grid + 1)**c) % (grid + 1) for c in range(deck_size)], axis=1)


def encode_policy(policy: Sequence[Fraction], grid: int) -> int:
  """The action announcing ``policy`` (probabilities that must be multiples of 1/grid)."""
  numerators = [Fraction(p) * grid for p in policy]
  if any(k.denominator != 1 for k in numerators):
    raise ValueError(f"policy {[str(p) for p in policy]} is not on the grid of step 1/{grid}")
  return encode_announcement([int(k) for k in numerators], grid)


# Parameters.


def _rules_and_grid(params: Mapping[str, Any]) -> Tuple[KuhnRules, int]:
  """Validates the parameters; one-line ValueError naming the parameter and allowed values.

  The base-game parameters are checked by ``kuhn_poker_ante.rules_from_params`` (one source of
  the rules and their validation, its messages naming this game); ``grid`` and the size limit
  here.
  """
  unknown = sorted(set(params) - set(_DEFAULT_PARAMS))
  if unknown:
    raise ValueError(f"{SHORT_NAME}: unknown parameter(s) {unknown}; allowed: "
                     f"{', '.join(_DEFAULT_PARAMS)}")
  base = {name: value for name, value in params.items() if name != "grid"}
  rules = kuhn_poker_ante.rules_from_params(base, game_name=SHORT_NAME)
  if rules.num_players != NUM_PLAYERS:
    raise ValueError(f"{SHORT_NAME}: parameter 'players' must be {NUM_PLAYERS} (the public-referee "
                     f"game is two-player), got {rules.num_players}")
  grid = params.get("grid", _DEFAULT_PARAMS["grid"])
  if not isinstance(grid, numbers.Integral) or isinstance(grid, bool) or grid < 1:
    raise ValueError(f"{SHORT_NAME}: parameter 'grid' must be an integer >= 1, got {grid!r}")
  count = num_announcements(grid, rules.deck_size)
  if count > MAX_NUM_ANNOUNCEMENTS:
    raise ValueError(
        f"{SHORT_NAME}: (grid+1)**deck_size = {grid + 1}**{rules.deck_size} = {count} "
        f"announcements per decision exceeds the limit {MAX_NUM_ANNOUNCEMENTS}; "
        "use a smaller grid or deck_size")
  return rules, int(grid)


def num_histories(rules: KuhnRules, grid: int) -> int:
  """Histories (states) of the referee game of ``rules`` at ``grid``, counted by belief supports
  instead of state by state.

  The tree's shape depends on the belief only through its support, and the support is always
  the deals (c0, c1), c0 != c1, with c0 in S0 and c1 in S1; up to a relabelling of the cards it is
  described by three counts: cards only in S0, only in S1, and in both. A player who announces
  k_c / grid for every card c leads to one referee node, whose outcome pass (bet) exists when some
  card of the player's support has k_c < grid (k_c > 0) and keeps exactly those cards. Cards that
  the acting player cannot hold take any of the grid + 1 values without changing anything.
  """
  n = rules.deck_size

  def normalized(only0: int, only1: int, both: int) -> Optional[Tuple[int, int, int]]:
    """The supports' counts after dropping cards no deal has; None for an empty support."""
    if only0 + both == 0 or only1 + both == 0 or (only0, only1, both) == (0, 0, 1):
      return None
    if both == 1 and only1 == 0:  # S1 = {c}, so no deal gives player 0 card c.
      return only0, 1, 0
    if both == 1 and only0 == 0:
      return 1, only1, 0
    return only0, only1, both

  def splits(count: int) -> Iterator[Tuple[int, int, int, int]]:
    """(zero, middle, top, ways): cards announced 0, strictly between, and grid."""
    for zero in range(count + 1):
      for top in range(count - zero + 1):
        middle = count - zero - top
        ways = math.comb(count, zero) * math.comb(count - zero, top) * (grid - 1)**middle
        if ways:
          yield zero, middle, top, ways

  @functools.lru_cache(maxsize=None)
  def size(history: str, only0: int, only1: int, both: int) -> int:
    if rules.is_terminal(history):
      return 1
    player = rules.current_player(history)
    mine, other = (only0, only1) if player == 0 else (only1, only0)
    free = (grid + 1)**(n - mine - both)  # Cards the player cannot hold.
    total = 1
    for zero_m, middle_m, top_m, ways_m in splits(mine):
      for zero_b, middle_b, top_b, ways_b in splits(both):
        below = (zero_m + middle_m, other + top_b, zero_b + middle_b)  # Pass: k < grid.
        above = (middle_m + top_m, other + zero_b, middle_b + top_b)  # Bet: k > 0.
        subtree = 1  # The referee node.
        for action, (kept, others, shared) in zip("pb", (below, above)):
          counts = normalized(*((kept, others, shared) if player == 0 else
                                (others, kept, shared)))
          if counts is not None:
            subtree += size(history + action, *counts)
        total += ways_m * ways_b * free * subtree
    return total

  return size("", 0, 0, n)


class KuhnPokerRefereeGame(pyspiel.Game):
  """The public-referee game of a Kuhn poker variant (``rules`` and ``grid`` as properties)."""

  def __init__(self, params=None):
    rules, grid = _rules_and_grid(params or {})
    params = {**kuhn_poker_ante.params_from_rules(rules), "grid": grid}
    info = pyspiel.GameInfo(
        num_distinct_actions=num_announcements(grid, rules.deck_size),
        max_chance_outcomes=len(ACTION_CHARS),
        num_players=NUM_PLAYERS,
        min_utility=rules.min_utility,
        max_utility=rules.max_utility,
        utility_sum=0.0,
        max_game_length=rules.max_game_length)
    super().__init__(_GAME_TYPE, info, params)

  @functools.cached_property
  def rules(self) -> KuhnRules:
    """The base game's rules, read from the parameters (unpickling restores only those)."""
    return _rules_and_grid(self.get_parameters())[0]

  @functools.cached_property
  def grid(self) -> int:
    """Announced probabilities are multiples of 1 / grid (validated with ``rules``)."""
    return int(self.get_parameters()["grid"])

  def new_initial_state(self) -> "KuhnPokerRefereeState":
    return KuhnPokerRefereeState(self)

  def num_histories(self) -> int:
    """Histories (states) of the game tree, exactly (``num_histories(rules, grid)``)."""
    return num_histories(self.rules, self.grid)

  def size_hint(self) -> Optional[str]:
    """How to get a smaller game: the size at grid 1, for a game with a finer grid."""
    if self.grid == 1:
      return None
    return f"with grid=1 it has {num_histories(self.rules, 1):,} states"

  def max_chance_nodes_in_history(self) -> int:
    """One referee move per announcement."""
    return self.rules.max_game_length

  def make_py_observer(self, iig_obs_type=None, params=None) -> "RefereeObserver":
    """The observer; the game is perfect information, so every observation type sees all."""
    del iig_obs_type  # Observation and information state coincide.
    return RefereeObserver(self.rules, params)


class KuhnPokerRefereeState(pyspiel.State):
  """A state: the PBS, the announcements so far and whether the referee is to move."""

  def __init__(self, game: KuhnPokerRefereeGame):
    super().__init__(game)
    self._rules = game.rules
    self._grid = game.grid
    self._pbs = PublicBeliefState.initial(game.rules)
    self._announcements: List[int] = []
    self._referee_to_move = False

  @property
  def pbs(self) -> PublicBeliefState:
    """The current public belief state."""
    return self._pbs

  @property
  def announcements(self) -> Tuple[int, ...]:
    """The announcements made so far (action ids), one per decision, the pending one last."""
    return tuple(self._announcements)

  def announced_policy(self, index: int = -1) -> Tuple[Fraction, ...]:
    """Announced P(aggressive | card) of announcement ``index`` (default: the latest)."""
    numerators = decode_announcement(self._announcements[index], self._grid,
                                     self._rules.deck_size)
    return tuple(Fraction(k, self._grid) for k in numerators)

  def current_player(self) -> int:
    if self._pbs.is_terminal:
      return pyspiel.PlayerId.TERMINAL
    if self._referee_to_move:
      return pyspiel.PlayerId.CHANCE
    return self._pbs.current_player

  def _legal_actions(self, player: int) -> List[int]:
    del player  # Every announcement is legal at every decision node.
    return list(range(num_announcements(self._grid, self._rules.deck_size)))

  def chance_outcomes(self) -> List[Tuple[int, float]]:
    """The referee's actions with P(action) > 0 under the announced policy and the belief."""
    probs = self._pbs.action_probabilities(self.announced_policy())
    return [(action, float(p)) for action, p in enumerate(probs) if p > 0]

  def _apply_action(self, action: int) -> None:
    if self._referee_to_move:
      self._pbs, _ = self._pbs.update(self.announced_policy(), action)
      self._referee_to_move = False
    else:
      decode_announcement(action, self._grid, self._rules.deck_size)  # Validates the range.
      self._announcements.append(action)
      self._referee_to_move = True

  def _action_to_string(self, player: int, action: int) -> str:
    history = self._pbs.history
    if player == pyspiel.PlayerId.CHANCE:
      return f"Referee: {self._rules.action_name(history, action)}"
    return announcement_to_string(self._rules, self._grid, history, action)

  def is_terminal(self) -> bool:
    return self._pbs.is_terminal

  def returns(self) -> List[float]:
    if not self._pbs.is_terminal:
      return [0.0, 0.0]
    return [float(r) for r in self._pbs.expected_returns()]

  def __str__(self) -> str:
    """The whole state: belief, betting history, announcements, and who moves next."""
    pieces = []
    for t, action in enumerate(self._announcements):
      text = announcement_to_string(self._rules, self._grid, self._pbs.history[:t], action)
      outcome = self._pbs.history[t] if t < len(self._pbs.history) else "referee"
      pieces.append(f"[{text}] -> {outcome}")
    return f"{self._pbs} announced {' '.join(pieces) or '-'}"


def announcement_to_string(rules: KuhnRules, grid: int, history: str, action: int) -> str:
  """E.g. ``bet: J=1/3 Q=0 K=1``, or ``call: ...`` when the acting player faces a bet."""
  prefix = "call" if rules.facing_bet(history) else "bet"
  numerators = decode_announcement(action, grid, rules.deck_size)
  cells = " ".join(f"{rules.card_name(c)}={Fraction(k, grid)}" for c, k in enumerate(numerators))
  return f"{prefix}: {cells}"


class RefereeObserver:
  """Observer for ``kuhn_poker_referee`` (PyObserver interface of OpenSpiel's observation.py).

  The game has perfect information, so the observation and the information state are the
  same whole state, for either player. Tensor pieces:

  * ``betting`` (L, 2): one-hot of the realised base-game action at each decision;
  * ``announced`` (L,): 1 where a decision has been announced;
  * ``announcements`` (L, n): the announced P(aggressive | card) of each decision;
  * ``belief`` (D,): the current belief over ``rules.deals()``;

  with L = max game length, n = deck size, D = n (n - 1).
  """

  def __init__(self, rules: KuhnRules, params=None):
    if params:
      raise ValueError(f"{SHORT_NAME} observer takes no parameters, got {params}")
    length, n, num_deals = rules.max_game_length, rules.deck_size, len(rules.deals())
    self.tensor, self.dict = kuhn_observer.tensor_with_views(
        [("betting", (length, len(ACTION_CHARS))), ("announced", (length,)),
         ("announcements", (length, n)), ("belief", (num_deals,))])

  def set_from(self, state: KuhnPokerRefereeState, player: int) -> None:
    del player  # Perfect information: the same for both players.
    self.tensor.fill(0)
    for t, char in enumerate(state.pbs.history):
      self.dict["betting"][t, ACTION_CHARS.index(char)] = 1
    for t in range(len(state.announcements)):
      self.dict["announced"][t] = 1
      self.dict["announcements"][t] = [float(p) for p in state.announced_policy(t)]
    self.dict["belief"][:] = state.pbs.belief_array()

  def string_from(self, state: KuhnPokerRefereeState, player: int) -> str:
    del player  # Perfect information: the same for both players.
    return str(state)


pyspiel.register_game(_GAME_TYPE, KuhnPokerRefereeGame)
