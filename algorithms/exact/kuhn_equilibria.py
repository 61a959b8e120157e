"""Closed-form equilibria of three-card Kuhn poker for any ante a > 0 and bet b > 0.

Both rule sets of ``spiel_games.kuhn_rules.KuhnRules``: the standard game (H. W. Kuhn, "A
simplified form of poker", Contributions to the Theory of Games I, 1950) with ante a and bet b,
and the simplified variable-ante game in which player 0's pass ends the hand at a showdown for the
antes. Cards J < Q < K are 0 < 1 < 2. Every quantity is exact (``fractions.Fraction``); the game is
homogeneous (scaling a and b scales every payoff), so the regimes depend only on r = a / b.

Strategy parameters (probability of action 1, bet or call, at each information state):

* ``p0_bet[c]`` at ``"c"`` (player 0 opens), ``p1_call[c]`` at ``"cb"`` (player 1 faces a bet);
* standard game only: ``p1_bet[c]`` at ``"cp"`` (player 1 after a check) and ``p0_call[c]`` at
  ``"cpb"`` (player 0 facing a bet after checking).

Derivation (Kuhn's method, 1950, for general a and b). Dominated choices are fixed first: nobody
calls with J or folds K; player 1 bets K after a check (weakly dominates checking); player 0 never
bets Q first and player 1 never bets Q after a check (each weakly dominated once the previous
choices are fixed). Write D = 2a + b. Each remaining choice is settled by the sign of the
difference of its two actions' expected payoffs, up to a positive factor (indifference where the
choice is mixed).

Standard game, with x_J, x_K = p0_bet[J], p0_bet[K]; c = p0_call[Q]; y = p1_bet[J]; d = p1_call[Q]:

* player 1 with Q facing a bet, call - fold: x_J D - x_K b;
* player 1 with J after a check, bet - check: 2a - c D - (1 - x_K) b;
* player 0 with Q facing a bet, call - fold: y D - b;
* player 0 with J, bet - check: 2a - b - d D;
* player 0 with K, bet - check: b (d - y).

Solving them gives five regimes (value = expected utility of player 0):

* passive, r < 1/2: nobody bluffs or calls with Q (y = d = c = 0, x_J = 0); player 0 may bet K:
  x_K in [0, 1 - 2a/b]. Value 0.
* passive_edge, r = 1/2: x_J = x_K = c = 0; y in [0, 1/2] and d in [0, y]. Value 0.
* p1_bluffs, 1/2 < r < 1: player 0 checks every card and calls with Q w.p. c = (2a - b)/D;
  y = b/D; d in [(2a - b)/D, b/D]. Value -b (2a - b) / (6 D).
* kuhn, r = 1: x_J = alpha in [0, 1/3], x_K = 3 alpha, c = alpha + 1/3; y = d = 1/3 (Kuhn 1950).
  Value -b/18.
* both_bluff, r > 1: x_K = 1, x_J = b/D, c = 2a/D; y = b/D, d = (2a - b)/D; unique. Value
  -b^2 / (6 D).

Simplified game, with p = p0_bet[J], q = p1_call[Q], player 0 betting K (weakly dominates passing):
player 1 with Q facing a bet, call - fold: p D - b; player 0 with J, bet - pass: 2a - b - q D.

* passive, r < 1/2: p = q = 0. Value 0.
* passive_edge, r = 1/2: p in [0, 1/2], q = 0. Value 0.
* bluffing, r > 1/2: p = b/D, q = (2a - b)/D; unique. Value b (2a - b) / (6 D).

With a = S and b = 1 the bluffing regime reads p = 1/(1 + 2S), q = (2S - 1)/(1 + 2S), the form in
which the variable-ante game is usually quoted; for S < 1/2 that q would be negative and the
passive regime replaces it.

The families are the equilibria that use no dominated choice; tests check that each family
parameter's range is exactly its range over the LP's optimal face. The full equilibrium set also
has members with dominated choices that cost nothing against the equilibrium: any choice at an
information set the opponent never lets the player reach (e.g. folding K to a bet that never
comes), player 1 checking K after a check when player 0 never calls with Q (passive,
passive_edge), player 1 betting Q after a check w.p. up to 2(a - b)/D when player 0 always bets K
(both_bluff), and in the simplified game with r <= 1/2 player 0 passing K (then p <= p0_bet[K]/2
at r = 1/2). The default member of each family puts every family parameter at its lower bound.
"""

import dataclasses
import fractions
from typing import Dict, Mapping, Optional, Tuple

from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.exact.exact_number import Number
from algorithms.exact.exact_number import to_fraction
from spiel_games import kuhn_poker_ante

Fraction = fractions.Fraction

_ZERO = Fraction(0)
_ONE = Fraction(1)
_HALF = Fraction(1, 2)
_NUM_CARDS = 3


@dataclasses.dataclass(frozen=True)
class Regime:
  """A range of r = ante / bet on which one closed form holds.

  Attributes:
    name: the regime's name, e.g. ``"kuhn"``.
    simplified: the rule set.
    low: lower end of r.
    high: upper end of r (None for infinity). A point regime has ``low == high``; otherwise the
      regime is the open interval (low, high).
    description: the equilibrium in words.
  """

  name: str
  simplified: bool
  low: Fraction
  high: Optional[Fraction]
  description: str

  @property
  def is_point(self) -> bool:
    return self.high == self.low

  def contains(self, ratio: Fraction) -> bool:
    """True if r = ``ratio`` lies in the regime."""
    if self.is_point:
      return ratio == self.low
    return ratio > self.low and (self.high is None or ratio < self.high)


@dataclasses.dataclass(frozen=True)
class FamilyParameter:
  """A free strategy probability of a non-unique equilibrium.

  Attributes:
    name: keyword of ``kuhn_equilibrium`` and key of ``KuhnEquilibrium.family``.
    info_state: the information state whose probability of action 1 the parameter is.
    low: smallest allowed value.
    high: largest allowed value (see ``constraint`` for a joint restriction).
    constraint: a joint restriction with another parameter, or "".
  """

  name: str
  info_state: str
  low: Fraction
  high: Fraction
  constraint: str = ""

  @property
  def default(self) -> Fraction:
    """The member returned by default: the lower bound."""
    return self.low


@dataclasses.dataclass(frozen=True)
class KuhnEquilibrium:
  """One equilibrium of three-card Kuhn poker and the game value.

  Probabilities are of action 1 (bet or call), indexed by card 0 (J), 1 (Q), 2 (K).

  Attributes:
    ante: a.
    bet: b.
    simplified: the rule set.
    regime: name of the ``Regime``.
    value: expected utility of player 0.
    p0_bet: at ``"c"``: player 0 bets.
    p1_call: at ``"cb"``: player 1 calls a bet.
    p1_bet: at ``"cp"``: player 1 bets after a check (standard game; None when simplified).
    p0_call: at ``"cpb"``: player 0 calls after check-bet (standard game; None when simplified).
    family: the family parameters of this member, by name (empty when the equilibrium is unique).
  """

  ante: Fraction
  bet: Fraction
  simplified: bool
  regime: str
  value: Fraction
  p0_bet: Tuple[Fraction, Fraction, Fraction]
  p1_call: Tuple[Fraction, Fraction, Fraction]
  p1_bet: Optional[Tuple[Fraction, Fraction, Fraction]]
  p0_call: Optional[Tuple[Fraction, Fraction, Fraction]]
  family: Mapping[str, Fraction] = dataclasses.field(default_factory=dict, hash=False)

  @property
  def p0_bluff(self) -> Fraction:
    """Player 0 bets J."""
    return self.p0_bet[0]

  @property
  def p0_bet_high(self) -> Fraction:
    """Player 0 bets K."""
    return self.p0_bet[2]

  @property
  def p1_call_mid(self) -> Fraction:
    """Player 1 calls a bet with Q."""
    return self.p1_call[1]

  @property
  def p1_bluff(self) -> Optional[Fraction]:
    """Player 1 bets J after a check (standard game)."""
    return None if self.p1_bet is None else self.p1_bet[0]

  @property
  def p0_call_mid(self) -> Optional[Fraction]:
    """Player 0 calls with Q after check-bet (standard game)."""
    return None if self.p0_call is None else self.p0_call[1]

  def action_probabilities(self) -> Dict[str, Fraction]:
    """Probability of action 1 (bet/call) at every information state string of the game."""
    out = {}
    for card in range(_NUM_CARDS):
      out[f"{card}"] = self.p0_bet[card]
      out[f"{card}b"] = self.p1_call[card]
      if not self.simplified:
        out[f"{card}p"] = self.p1_bet[card]
        out[f"{card}pb"] = self.p0_call[card]
    return out

  def policy(self, game: pyspiel.Game) -> policy_lib.TabularPolicy:
    """This equilibrium as a ``TabularPolicy`` of ``game`` (both players).

    Args:
      game: ``kuhn_poker_ante`` with this ante, bet and rule set and 3 cards, or OpenSpiel's
        ``kuhn_poker`` (2 players) when a = b = 1 in the standard game.

    Raises:
      ValueError: if the game is not that game.
    """
    _check_game(game, self.ante, self.bet, self.simplified)
    return two_action_policy(game, self.action_probabilities())


_STANDARD_REGIMES = (
    Regime("passive", False, _ZERO, _HALF,
           "nobody bluffs; player 0 may bet K with probability up to 1 - 2a/b; value 0"),
    Regime("passive_edge", False, _HALF, _HALF,
           "player 0 checks every card and folds Q; player 1 bluffs J with y in [0, 1/2] and "
           "calls with Q with d in [0, y]; value 0"),
    Regime("p1_bluffs", False, _HALF, _ONE,
           "player 0 checks every card and calls with Q w.p. (2a - b)/(2a + b); player 1 bluffs "
           "J w.p. b/(2a + b) and calls with Q w.p. in [(2a - b)/(2a + b), b/(2a + b)]"),
    Regime("kuhn", False, _ONE, _ONE,
           "Kuhn's family: player 0 bluffs J w.p. alpha in [0, 1/3], bets K w.p. 3 alpha, calls "
           "with Q w.p. alpha + 1/3; player 1 bluffs J and calls with Q w.p. 1/3; value -b/18"),
    Regime("both_bluff", False, _ONE, None,
           "player 0 bets K, bluffs J w.p. b/(2a + b), calls with Q w.p. 2a/(2a + b); player 1 "
           "bluffs J w.p. b/(2a + b), calls with Q w.p. (2a - b)/(2a + b); unique"),
)

_SIMPLIFIED_REGIMES = (
    Regime("passive", True, _ZERO, _HALF,
           "player 0 bets only K, player 1 calls only with K; value 0"),
    Regime("passive_edge", True, _HALF, _HALF,
           "player 0 bets K and bluffs J w.p. in [0, 1/2]; player 1 calls only with K; value 0"),
    Regime("bluffing", True, _HALF, None,
           "player 0 bets K and bluffs J w.p. b/(2a + b); player 1 calls with Q w.p. "
           "(2a - b)/(2a + b); unique"),
)


def regimes(simplified: bool = False) -> Tuple[Regime, ...]:
  """The regimes of a rule set in increasing r = ante / bet; they partition r > 0."""
  return _SIMPLIFIED_REGIMES if simplified else _STANDARD_REGIMES


def two_action_policy(game: pyspiel.Game,
                      probabilities: Mapping[str, Fraction]) -> policy_lib.TabularPolicy:
  """The ``TabularPolicy`` of ``game`` that plays action 1 (bet or call) with probability
  ``probabilities[s]`` and action 0 (pass or fold) with the rest at each information state s.

  Raises:
    ValueError: if the game's information states are not the keys of ``probabilities``.
  """
  tabular = policy_lib.TabularPolicy(game)
  if set(tabular.state_lookup) != set(probabilities):
    raise ValueError(f"game information states {sorted(tabular.state_lookup)} differ from "
                     f"the policy's {sorted(probabilities)}")
  for key, p in probabilities.items():
    row = tabular.policy_for_key(key)
    row[0] = float(1 - p)
    row[1] = float(p)
  return tabular


def regime_of(ante: Number, bet: Number, simplified: bool = False) -> Regime:
  """The regime that contains r = ante / bet."""
  ratio = _positive(ante, "ante") / _positive(bet, "bet")
  for regime in regimes(simplified):
    if regime.contains(ratio):
      return regime
  raise AssertionError(f"no regime contains ante/bet = {ratio}")  # Regimes partition r > 0.


def family_parameters(ante: Number, bet: Number,
                      simplified: bool = False) -> Tuple[FamilyParameter, ...]:
  """The free parameters of the equilibrium family at (ante, bet); empty if it is unique.

  Ranges, with D = 2a + b: standard passive: ``p0_bet_high`` (at "2") in [0, 1 - 2a/b];
  passive_edge: ``p1_bluff`` (at "0p") in [0, 1/2] and ``p1_call_mid`` (at "1b") in
  [0, p1_bluff]; p1_bluffs: ``p1_call_mid`` in [(2a - b)/D, b/D]; kuhn: ``p0_bluff`` (at "0", Kuhn's
  alpha) in [0, 1/3]. Simplified passive_edge: ``p0_bluff`` in [0, 1/2].
  """
  a = _positive(ante, "ante")
  b = _positive(bet, "bet")
  name = regime_of(a, b, simplified).name
  d = 2 * a + b
  if simplified:
    if name == "passive_edge":
      return (FamilyParameter("p0_bluff", "0", _ZERO, _HALF),)
    return ()
  if name == "passive":
    return (FamilyParameter("p0_bet_high", "2", _ZERO, 1 - 2 * a / b),)
  if name == "passive_edge":
    return (FamilyParameter("p1_bluff", "0p", _ZERO, _HALF),
            FamilyParameter("p1_call_mid", "1b", _ZERO, _HALF, "p1_call_mid <= p1_bluff"))
  if name == "p1_bluffs":
    return (FamilyParameter("p1_call_mid", "1b", (2 * a - b) / d, b / d),)
  if name == "kuhn":
    return (FamilyParameter("p0_bluff", "0", _ZERO, Fraction(1, 3)),)
  return ()


def game_value(ante: Number, bet: Number, simplified: bool = False) -> Fraction:
  """Value of the game for player 0 (see the module docstring for the formulas)."""
  a = _positive(ante, "ante")
  b = _positive(bet, "bet")
  d = 2 * a + b
  if simplified:
    return b * max(2 * a - b, _ZERO) / (6 * d)
  return -b * max(_ZERO, min(b, 2 * a - b)) / (6 * d)


def kuhn_equilibrium(ante: Number = 1, bet: Number = 1, simplified: bool = False,
                     **family: Number) -> KuhnEquilibrium:
  """An equilibrium of three-card Kuhn poker in closed form.

  Args:
    ante: a > 0 (int, float or Fraction; floats are taken at their exact binary value).
    bet: b > 0.
    simplified: the rule set (see ``spiel_games.kuhn_rules.KuhnRules``).
    **family: values of the family parameters of the regime (``family_parameters``); each one
      left out takes its default, the lower bound.

  Returns:
    The ``KuhnEquilibrium``.

  Raises:
    ValueError: for a non-positive or non-finite ante or bet, an unknown family parameter or a
      value outside its range.
  """
  a = _positive(ante, "ante")
  b = _positive(bet, "bet")
  regime = regime_of(a, b, simplified).name
  allowed = {p.name: p for p in family_parameters(a, b, simplified)}
  unknown = sorted(set(family) - set(allowed))
  if unknown:
    raise ValueError(f"unknown family parameter(s) {unknown} in regime {regime}; "
                     f"allowed: {sorted(allowed)}")
  chosen = {}
  for name, param in allowed.items():
    value = to_fraction(family[name], name) if name in family else param.default
    if not param.low <= value <= param.high:
      raise ValueError(f"{name} = {value} outside its range [{param.low}, {param.high}]")
    chosen[name] = value
  if chosen.get("p1_call_mid", _ZERO) > chosen.get("p1_bluff", _ONE):  # passive_edge triangle.
    raise ValueError(f"p1_call_mid = {chosen['p1_call_mid']} must be <= p1_bluff = "
                     f"{chosen['p1_bluff']}")
  build = _simplified_strategies if simplified else _standard_strategies
  strategies = build(regime, a, b, chosen)
  return KuhnEquilibrium(ante=a, bet=b, simplified=simplified, regime=regime,
                         value=game_value(a, b, simplified), family=chosen, **strategies)


def member_matching(ante: Number, bet: Number, simplified: bool,
                    probabilities: Mapping[str, Number]) -> KuhnEquilibrium:
  """The family member read off measured strategy probabilities (e.g. of a CFR average policy).

  Each family parameter takes ``probabilities[param.info_state]`` (probability of action 1),
  clipped into [low, high]; then p1_call_mid is clipped to at most p1_bluff (the passive_edge
  constraint). For a unique equilibrium this is the equilibrium.

  Args:
    ante: as in ``kuhn_equilibrium``.
    bet: as in ``kuhn_equilibrium``.
    simplified: as in ``kuhn_equilibrium``.
    probabilities: probability of action 1 by information state string; it must contain the
      information states of the family parameters.

  Raises:
    ValueError: for bad ante or bet, or a missing information state.
  """
  chosen = {}
  for param in family_parameters(ante, bet, simplified):
    if param.info_state not in probabilities:
      raise ValueError(f"probabilities lack information state {param.info_state!r} of family "
                       f"parameter {param.name}")
    measured = to_fraction(probabilities[param.info_state], param.info_state)
    chosen[param.name] = min(max(measured, param.low), param.high)
  if "p1_call_mid" in chosen and "p1_bluff" in chosen:
    chosen["p1_call_mid"] = min(chosen["p1_call_mid"], chosen["p1_bluff"])
  return kuhn_equilibrium(ante, bet, simplified, **chosen)


def _standard_strategies(regime: str, a: Fraction, b: Fraction,
                         family: Dict[str, Fraction]) -> Dict[str, Tuple[Fraction, ...]]:
  """Strategy tables of the standard game in ``regime`` (module docstring, first table)."""
  d = 2 * a + b
  p1_bet = (b / d, _ZERO, _ONE)
  if regime == "passive":
    return dict(p0_bet=(_ZERO, _ZERO, family["p0_bet_high"]), p0_call=(_ZERO, _ZERO, _ONE),
                p1_bet=(_ZERO, _ZERO, _ONE), p1_call=(_ZERO, _ZERO, _ONE))
  if regime == "passive_edge":
    return dict(p0_bet=(_ZERO, _ZERO, _ZERO), p0_call=(_ZERO, _ZERO, _ONE),
                p1_bet=(family["p1_bluff"], _ZERO, _ONE),
                p1_call=(_ZERO, family["p1_call_mid"], _ONE))
  if regime == "p1_bluffs":
    return dict(p0_bet=(_ZERO, _ZERO, _ZERO), p0_call=(_ZERO, (2 * a - b) / d, _ONE),
                p1_bet=p1_bet, p1_call=(_ZERO, family["p1_call_mid"], _ONE))
  if regime == "kuhn":
    alpha = family["p0_bluff"]
    return dict(p0_bet=(alpha, _ZERO, 3 * alpha), p0_call=(_ZERO, alpha + Fraction(1, 3), _ONE),
                p1_bet=p1_bet, p1_call=(_ZERO, Fraction(1, 3), _ONE))
  return dict(p0_bet=(b / d, _ZERO, _ONE), p0_call=(_ZERO, 2 * a / d, _ONE),
              p1_bet=p1_bet, p1_call=(_ZERO, (2 * a - b) / d, _ONE))


def _simplified_strategies(regime: str, a: Fraction, b: Fraction,
                           family: Dict[str, Fraction]) -> Dict[str, Tuple[Fraction, ...]]:
  """Strategy tables of the simplified game in ``regime`` (module docstring, second table)."""
  d = 2 * a + b
  if regime == "passive":
    bluff, call = _ZERO, _ZERO
  elif regime == "passive_edge":
    bluff, call = family["p0_bluff"], _ZERO
  else:
    bluff, call = b / d, (2 * a - b) / d
  return dict(p0_bet=(bluff, _ZERO, _ONE), p1_call=(_ZERO, call, _ONE), p1_bet=None,
              p0_call=None)


def _positive(x: Number, name: str) -> Fraction:
  value = to_fraction(x, name)
  if value <= 0:
    raise ValueError(f"{name} must be > 0, got {x!r}")
  return value


def _check_game(game: pyspiel.Game, ante: Fraction, bet: Fraction, simplified: bool) -> None:
  """Raises ValueError unless ``game`` is three-card Kuhn poker with these rules."""
  rules = kuhn_poker_ante.rules_of(game)  # kuhn_poker: the default rules.
  if rules is None:
    raise ValueError(f"game {game} is not a Kuhn poker game; use kuhn_poker_ante or the "
                     "2-player kuhn_poker")
  if (float(rules.ante) != float(ante) or float(rules.bet) != float(bet)
      or rules.simplified != simplified or rules.deck_size != _NUM_CARDS):
    raise ValueError(f"game rules {rules} differ from the equilibrium's ante={ante}, bet={bet}, "
                     f"deck_size={_NUM_CARDS}, simplified={simplified}")
