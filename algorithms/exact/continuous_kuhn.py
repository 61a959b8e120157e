"""Continuous limits of N-card Kuhn poker: von Neumann's poker model and its standard twin.

As the deck of ``kuhn_poker_ante`` (cards 0 < 1 < ... < N - 1, two players, distinct cards)
grows, card c behaves as the hand strength (c + 1/2) / N and the two strengths become independent
and uniform on [0, 1]: player 0 holds x, player 1 holds y, and the higher strength wins a
showdown (ties have probability 0). Both rule sets of ``spiel_games.kuhn_rules.KuhnRules`` have
such a limit; this module solves both exactly for every ante a > 0 and bet b > 0. Every quantity
is an exact ``fractions.Fraction``; no closed form below needs a square root (all are rational in
a and b). The games are homogeneous of degree 1 in (a, b) (strategies depend only on r = a / b,
payoffs scale with b). Write D = 2a + b.

Method. With threshold (interval) strategies, the payoff of each action of a player, as a
function of the player's own strength s, is piecewise linear in s: it is a sum of terms
``(stake) * |S < s|`` and ``(stake) * |S > s|``, where |S < s| is the measure of the
opponent's hands in a set S below s (they lose to s) and |S > s| of those above. An equilibrium
is found by making each player indifferent at the strengths where its action changes, and
certified (``certify``) by computing both players' best-response values exactly as integrals of
the pointwise maximum of these piecewise-linear functions over [0, 1] (``piecewise_linear``).

Simplified rules: von Neumann's poker model (J. von Neumann and O. Morgenstern, Theory of Games
and Economic Behavior, 1944, section 19; C. Ferguson and T. S. Ferguson, "On the Borel and von
Neumann poker models", Game Theory and Applications 9, 2003, whose ante 1 and bet B are our
a = 1, b = B). Player 0 passes (showdown for the antes) or bets b; player 1 then folds (player 0
wins a) or calls (showdown for a + b). Against player 1 calling iff y > gamma, player 0's payoffs
at strength x are

* pass: a x - a (1 - x) = a (2x - 1);
* bet, x < gamma: a gamma - (a + b)(1 - gamma) (every caller beats x);
* bet, x > gamma: a gamma + (a + b)(x - gamma) - (a + b)(1 - x).

So bet - pass = D gamma - b - 2a x for x < gamma (decreasing: player 0 bluffs with x < alpha,
alpha = (D gamma - b) / (2a)) and b (2x - 1 - gamma) for x > gamma (increasing: player 0 bets for
value with x > beta = (1 + gamma) / 2). Against those bets, player 1 with alpha < y < beta gains
from calling over folding (a + b)(alpha - (1 - beta)) + a (alpha + 1 - beta), that is
D alpha - b (1 - beta), which must vanish at y = gamma. The three equations give

    alpha = a b / ((a + b)(4a + b)),   beta = (2a^2 + 4ab + b^2) / ((a + b)(4a + b)),
    gamma = b (3a + b) / ((a + b)(4a + b)),

and, since pass has mean 0, the value V = integral of (bet - pass)^+ = a alpha^2 + b (1 - beta)^2
= a alpha = a^2 b / ((a + b)(4a + b)) for player 0. With a = 1, b = B these are von Neumann's
B / ((B + 1)(B + 4)), (B^2 + 4B + 2) / ((B + 1)(B + 4)), B (B + 3) / ((B + 1)(B + 4)) and value
B / ((B + 1)(B + 4)); at a = b: alpha = 1/10, beta = 7/10, gamma = 2/5, value 1/10.

One regime covers every r > 0: alpha > 0 always, so unlike three-card Kuhn (passive for
r <= 1/2, ``kuhn_equilibria``) the continuous game has no regime in which nobody bluffs; the bluff
range alpha ~ r shrinks with the ante but never vanishes. The equilibrium is unique in threshold
form (bet - pass is strictly monotone on each side of gamma, so player 0's sets are pinned).

Standard rules (Kuhn's betting, H. W. Kuhn 1950, with hands uniform on [0, 1]): player 0 checks
or bets; after a check player 1 checks (showdown for a) or bets, and player 0 calls or folds;
after player 0's bet player 1 calls or folds. Ansatz: player 0 bluffs on a set of measure a0
inside [0, d1], bets for value on a set of measure v inside [e1, 1], checks elsewhere, and after
check-bet calls iff x > c0; player 1 calls a bet iff y > c1 and after a check bets iff y < d1
(bluff) or y > e1 (value); 0 < d1 < c0, c1 < e1 < 1. The gains (action 1 minus action 0) are:

* (i) player 0, bet - check, x < min(c0, c1): D c1 - b - 2a (x - d1)^+ (a bet wins a from the
  c1 folds and loses a + b to every caller; after a check, x folds to every bet and wins only the
  showdowns against player 1's checks below x, of measure (x - d1)^+). Zero on the whole of
  [0, d1] iff c1 = b / D: player 0 is indifferent there, so which hands of [0, d1] bluff does not
  matter, only their measure a0 (d1 - a0 of them check and fold);
* (ii) player 0, bet - check, x > e1: b (e1 - c1 - d1), constant (both lines win every
  showdown; a bet is called 1 - c1 of the time, a check is bet into d1 + 1 - e1 of the time).
  Zero iff e1 = c1 + d1: player 0 is indifferent on all of [e1, 1] (the slow-play family below);
* (iii) player 0, call - fold facing a bet, d1 < x < e1: D d1 - b (1 - e1) (wins against the
  bluffs, loses to the value bets); zero iff D d1 = b (1 - e1);
* (iv) player 1, call - fold, d1 < y < e1: (a + b)(a0 - v) + a (a0 + v) = D a0 - b v; zero iff
  b v = D a0;
* (v) player 1 after a check, bet - check, c0 < y < e1: b ((y - c0) - (1 - v - y)), the calls it
  beats minus those that beat it; zero at y = e1 iff 2 e1 = 1 + c0 - v;
* (vi) player 1 after a check, bet - check, d1 < y < c0: 2a (c0 - y) - b (1 - c0 - v) (it steals
  the antes of the c0 - y checked hands above y that fold, and loses b more to the 1 - c0 - v that
  call); zero at y = d1 iff 2a (c0 - d1) = b (1 - c0 - v).

Solving (i) to (vi):

    c0 = c1 = b / D,   d1 = a b / (D (a + b)),   e1 = b / (a + b),
    v = 2 a^2 / (D (a + b)),   a0 = b v / D = 2 a^2 b / (D^2 (a + b)),

and 0 < a0 < d1 < c0 = c1 < e1 < 1 - v < 1 for every r > 0 (a0 < d1 and v < 1 - e1 both reduce to
2a < D): again one regime for all r, with no passive regime (three-card Kuhn is passive for
r <= 1/2). Player 0's gain from betting is zero on [0, d1] and [e1, 1] and negative between, so
its expected payoff is that of checking everywhere: with w = e1 - d1 = b / D,

    V = a w (1 - e1 - d1) - a c0 (1 - e1 + d1) + (a + b) d1^2 = -a^2 b^2 / (D^2 (a + b)),

(showdowns after check-check, folds of x < c0 to a bet, calls of x > c0, using e1 - c0 = d1).
At a = b: a0 = 1/9, v = 1/3, c0 = c1 = 1/3, d1 = 1/6, e1 = 1/2 and V = -1/18, the value of
three-card Kuhn poker.

The family. Against player 1's strategy above, player 0 is indifferent between betting and
checking on all of [0, d1] and [e1, 1]; conditions (iv) to (vi) involve player 0's bet sets only
through their measures a0 and v (every bluff lies below d1, every value bet above e1). So every
strategy of player 0 that bluffs with any measurable subset of [0, d1] of measure a0, bets any
measurable subset of [e1, 1] of measure v, and otherwise plays as above is an equilibrium
strategy with the same player 1, the same payoffs and the unique value V. The threshold-form
members are two-parameter: bluffs [t, t + a0] with 0 <= t <= d1 - a0 and value bets
[s, s + v] with e1 <= s <= 1 - v (s < 1 - v checks the best hands to induce bluffs, the continuous
analogue of three-card Kuhn's checking of K). Unlike three-card Kuhn, where the bluff frequency
itself is free at r = 1, the measures a0 and v are pinned here: the extra condition (v) at player
1's value-bet threshold, which has no three-card counterpart (player 1 always bets K), removes the
degree of freedom. The reference member (``equilibrium`` by default) is t = 0, s = 1 - v: player 0
bets iff x < a0 or x > 1 - v, the form of von Neumann's solution. It is the member whose
thresholds are the family's invariants (a0 and 1 - v), so the thresholds ``thresholds_from_policy``
reads off an N-card policy, which measure bet masses rather than their location, compare with it
field by field whichever member a solver finds. We make no claim that player 1's threshold
strategy is its only equilibrium strategy (player 0's strict preferences on (d1, e1) leave room
to move calls slightly within player 1's indifferent range).

The N-card game approaches these limits; ``deck_thresholds`` reads an N-card policy's thresholds
for the comparison and records the measured gaps.
"""

import dataclasses
import fractions
from typing import Dict, Optional, Tuple

from algorithms.exact.exact_number import Number
from algorithms.exact.exact_number import to_fraction
from algorithms.exact.piecewise_linear import UNIT
from algorithms.exact.piecewise_linear import Intervals
from algorithms.exact.piecewise_linear import PiecewiseLinear
from algorithms.exact.piecewise_linear import complement
from algorithms.exact.piecewise_linear import intersect
from algorithms.exact.piecewise_linear import intervals
from algorithms.exact.piecewise_linear import measure

Fraction = fractions.Fraction

_ZERO = Fraction(0)
_ONE = Fraction(1)


@dataclasses.dataclass(frozen=True)
class Thresholds:
  """Threshold strengths of an equilibrium (or of an N-card policy), as fractions of [0, 1].

  Attributes:
    simplified: the rule set.
    p0_bluff: at ``""``: player 0 bluffs below this (alpha; standard game: the bluff measure a0).
    p0_value: at ``""``: player 0 bets for value above this (beta; standard game: 1 - v, one
      minus the value-bet measure).
    p1_call: at ``"b"``: player 1 calls above this (gamma; standard game: c1).
    p0_call: at ``"pb"``: player 0 calls above this (c0; None when simplified).
    p1_bluff: at ``"p"``: player 1 bets below this after a check (d1; None when simplified).
    p1_value: at ``"p"``: player 1 bets above this after a check (e1; None when simplified).
  """

  simplified: bool
  p0_bluff: Number
  p0_value: Number
  p1_call: Number
  p0_call: Optional[Number] = None
  p1_bluff: Optional[Number] = None
  p1_value: Optional[Number] = None

  def as_dict(self) -> Dict[str, Number]:
    """The thresholds of the rule set by field name (the None fields left out)."""
    return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
            if f.name != "simplified" and getattr(self, f.name) is not None}


@dataclasses.dataclass(frozen=True)
class Profile:
  """A strategy profile of the continuous game: at each history, the strengths that take
  action 1 (bet or call), as disjoint intervals of [0, 1]; action 0 elsewhere.

  Attributes:
    simplified: the rule set.
    p0_bet: at ``""``: player 0 bets.
    p1_call: at ``"b"``: player 1 calls.
    p1_bet: at ``"p"``: player 1 bets after a check (None when simplified).
    p0_call: at ``"pb"``: player 0 calls after check-bet (None when simplified).
  """

  simplified: bool
  p0_bet: Intervals
  p1_call: Intervals
  p1_bet: Optional[Intervals] = None
  p0_call: Optional[Intervals] = None


@dataclasses.dataclass(frozen=True)
class Indifference:
  """A player's gain (action 1 minus action 0) at a strength where its action changes.

  Attributes:
    history: the betting history of the decision.
    player: 0 or 1.
    strength: the boundary of the action-1 set.
    gain: the exact gain there; an equilibrium needs 0 (gains are continuous in the strength).
  """

  history: str
  player: int
  strength: Fraction
  gain: Fraction


@dataclasses.dataclass(frozen=True)
class Certificate:
  """Exact values of one profile of the continuous game.

  Attributes:
    value: player 0's expected payoff under the profile, from player 0's payoff functions.
    value_from_player_1: minus player 1's expected payoff, from player 1's (must equal ``value``).
    best_response_0: player 0's best-response payoff against player 1's strategy.
    best_response_1: player 1's best-response payoff against player 0's strategy.
    closed_form_value: ``game_value`` of the game.
    indifferences: the gain at every boundary of every action-1 set inside (0, 1).
  """

  value: Fraction
  value_from_player_1: Fraction
  best_response_0: Fraction
  best_response_1: Fraction
  closed_form_value: Fraction
  indifferences: Tuple[Indifference, ...]

  @property
  def nash_conv(self) -> Fraction:
    """(BR_0 - value) + (BR_1 + value): zero iff the profile is an equilibrium."""
    return (self.best_response_0 - self.value) + (self.best_response_1 + self.value)

  @property
  def indifferent(self) -> bool:
    """Every boundary gain is exactly zero."""
    return all(item.gain == 0 for item in self.indifferences)

  @property
  def ok(self) -> bool:
    """An exact equilibrium with the closed-form value: no deviation gains, every boundary is
    indifferent, and both players' accounts of the value agree with the closed form."""
    return (self.nash_conv == 0 and self.indifferent
            and self.value == self.value_from_player_1 == self.closed_form_value)


def thresholds(ante: Number = 1, bet: Number = 1, simplified: bool = False) -> Thresholds:
  """The equilibrium thresholds of the continuous game in closed form (module docstring).

  Args:
    ante: a > 0 (int, float or Fraction; floats are taken at their exact binary value).
    bet: b > 0.
    simplified: the rule set.

  Returns:
    ``Thresholds`` in Fractions; for the standard game those of the reference member.

  Raises:
    ValueError: for a non-positive or non-finite ante or bet.
  """
  a, b = _positive(ante, "ante"), _positive(bet, "bet")
  if simplified:
    # Von Neumann: (2a + b) alpha = b (1 - beta), beta = (1 + gamma) / 2, 2a alpha = D gamma - b.
    q = (a + b) * (4 * a + b)
    return Thresholds(simplified=True, p0_bluff=a * b / q,
                      p0_value=(2 * a * a + 4 * a * b + b * b) / q,
                      p1_call=b * (3 * a + b) / q)
  d = 2 * a + b
  v = 2 * a * a / (d * (a + b))  # Conditions (i) to (vi) of the module docstring.
  return Thresholds(simplified=False, p0_bluff=b * v / d, p0_value=1 - v, p1_call=b / d,
                    p0_call=b / d, p1_bluff=a * b / (d * (a + b)), p1_value=b / (a + b))


def game_value(ante: Number = 1, bet: Number = 1, simplified: bool = False) -> Fraction:
  """Value of the continuous game for player 0.

  Simplified (von Neumann): a^2 b / ((a + b)(4a + b)); standard: -a^2 b^2 / ((2a + b)^2 (a + b)).

  Raises:
    ValueError: for a non-positive or non-finite ante or bet.
  """
  a, b = _positive(ante, "ante"), _positive(bet, "bet")
  if simplified:
    return a * a * b / ((a + b) * (4 * a + b))
  return -a * a * b * b / ((2 * a + b) ** 2 * (a + b))


def family_ranges(ante: Number = 1, bet: Number = 1) -> Dict[str, Tuple[Fraction, Fraction]]:
  """Ranges of the threshold-form family of the standard game (module docstring).

  Returns:
    {"bluff_start": (0, d1 - a0), "value_start": (e1, 1 - v)}: player 0 bluffs with
    [t, t + a0] and bets for value with [s, s + v] for any t, s in these ranges.

  Raises:
    ValueError: for a non-positive or non-finite ante or bet.
  """
  th = thresholds(ante, bet, simplified=False)
  return {"bluff_start": (_ZERO, th.p1_bluff - th.p0_bluff),
          "value_start": (th.p1_value, th.p0_value)}


def equilibrium(ante: Number = 1, bet: Number = 1, simplified: bool = False,
                bluff_start: Optional[Number] = None,
                value_start: Optional[Number] = None) -> Profile:
  """An equilibrium of the continuous game as a ``Profile``.

  Args:
    ante: a > 0.
    bet: b > 0.
    simplified: the rule set.
    bluff_start: standard game only: t, player 0 bluffs with [t, t + a0]; default 0.
    value_start: standard game only: s, player 0 bets for value with [s, s + v]; default 1 - v
      (with t = 0 the reference member: bet iff x < a0 or x > 1 - v).

  Raises:
    ValueError: for a bad ante or bet, a family parameter in the simplified game (its
      equilibrium is unique), or one outside ``family_ranges``.
  """
  th = thresholds(ante, bet, simplified)
  if simplified:
    if bluff_start is not None or value_start is not None:
      raise ValueError("bluff_start and value_start apply to the standard game only; "
                       "von Neumann's equilibrium is unique")
    return Profile(simplified=True, p0_bet=intervals([(0, th.p0_bluff), (th.p0_value, 1)]),
                   p1_call=intervals([(th.p1_call, 1)]))
  ranges = family_ranges(ante, bet)
  t = _in_range(bluff_start, "bluff_start", ranges["bluff_start"], _ZERO)
  s = _in_range(value_start, "value_start", ranges["value_start"], th.p0_value)
  return Profile(simplified=False,
                 p0_bet=intervals([(t, t + th.p0_bluff), (s, s + 1 - th.p0_value)]),
                 p1_call=intervals([(th.p1_call, 1)]),
                 p1_bet=intervals([(0, th.p1_bluff), (th.p1_value, 1)]),
                 p0_call=intervals([(th.p0_call, 1)]))


def threshold_profile(th: Thresholds) -> Profile:
  """The profile that plays the thresholds ``th`` in the reference member's form: player 0 bets
  iff x < p0_bluff or x > p0_value, player 1 calls iff y > p1_call, and in the standard game
  player 1 bets after a check iff y < p1_bluff or y > p1_value and player 0 calls iff
  x > p0_call. For perturbing an equilibrium (``certify`` of a perturbed profile must fail).

  Raises:
    ValueError: for a threshold outside [0, 1] or p0_bluff > p0_value or p1_bluff > p1_value.
  """
  values = {name: to_fraction(x, name) for name, x in th.as_dict().items()}
  for name, x in values.items():
    if not 0 <= x <= 1:
      raise ValueError(f"{name} must lie in [0, 1], got {x}")
  pairs = [("p0_bluff", "p0_value")] + ([] if th.simplified else [("p1_bluff", "p1_value")])
  for low, high in pairs:
    if values[low] > values[high]:
      raise ValueError(f"{low} = {values[low]} must be <= {high} = {values[high]}")
  profile = Profile(simplified=th.simplified,
                    p0_bet=intervals([(0, values["p0_bluff"]), (values["p0_value"], 1)]),
                    p1_call=intervals([(values["p1_call"], 1)]))
  if th.simplified:
    return profile
  return dataclasses.replace(
      profile, p1_bet=intervals([(0, values["p1_bluff"]), (values["p1_value"], 1)]),
      p0_call=intervals([(values["p0_call"], 1)]))


def certify(ante: Number = 1, bet: Number = 1, simplified: bool = False,
            profile: Optional[Profile] = None) -> Certificate:
  """Exact values, best responses and boundary gains of a profile of the continuous game.

  Each action's payoff as a function of the actor's own strength is built from the opponent's
  sets as an exact ``PiecewiseLinear`` (module docstring, payoffs of each rule set):

  * player 0, x: bet = a |K^c| + (a + b)(|K < x| - |K > x|) with K player 1's call set;
    simplified: pass = a (2x - 1); standard: check = showdown + (call or fold) where, with T
    player 1's bet set after a check, showdown = a (|T^c < x| - |T^c > x|),
    call = (a + b)(|T < x| - |T > x|), fold = -a |T|;
  * player 1, y (its own payoff): with S player 0's bet set, call = (a + b)(|S < y| - |S > y|),
    fold = -a |S|; simplified: plus a (|S^c < y| - |S^c > y|) from player 0's passes; standard:
    with H = S^c the checked hands, Q the hands of H in player 0's call set and F the rest of H,
    bet = a |F| + (a + b)(|Q < y| - |Q > y|), check = a (|H < y| - |H > y|).

  A best response takes the better action at every strength (and, for player 0 after its own
  check, the better answer to a bet), so its payoff is the integral of the pointwise maximum,
  exact because the crossing points of two lines are rational. The profile's value is the
  integral of each action's payoff over the set that plays it, once from each player's side.
  The boundary gains are those of the decision's own two actions; at player 0's first decision
  of the standard game, check is followed by the best answer to a bet (the profile's own answer
  where that is a best answer, as at an equilibrium).

  Args:
    ante: a > 0.
    bet: b > 0.
    simplified: the rule set.
    profile: the profile to certify; default ``equilibrium(ante, bet, simplified)``.

  Returns:
    The ``Certificate``; ``ok`` is True iff the profile is an exact equilibrium.

  Raises:
    ValueError: for a bad ante or bet, or a profile of the other rule set or with sets outside
      [0, 1].
  """
  a, b = _positive(ante, "ante"), _positive(bet, "bet")
  if profile is None:
    profile = equilibrium(a, b, simplified)
  if profile.simplified != simplified:
    raise ValueError(f"profile is for simplified={profile.simplified}, the game for "
                     f"simplified={simplified}")
  sets = {name: _checked(getattr(profile, name), name) for name in _profile_fields(simplified)}
  build = _simplified_payoffs if simplified else _standard_payoffs
  (value, value_1, br_0, br_1, decisions) = build(a, b, sets)
  indifferences = tuple(
      Indifference(history, player, e, gain(e))
      for history, player, action_set, gain in decisions
      for interval in action_set for e in interval if 0 < e < 1)
  return Certificate(value=value, value_from_player_1=value_1, best_response_0=br_0,
                     best_response_1=br_1, closed_form_value=game_value(a, b, simplified),
                     indifferences=indifferences)


def _simplified_payoffs(a: Fraction, b: Fraction, sets: Dict[str, Intervals]):
  """Values, best responses and decisions (history, player, action-1 set, gain) of von Neumann's
  model (``certify``)."""
  below, above = PiecewiseLinear.mass_below, PiecewiseLinear.mass_above
  const = PiecewiseLinear.constant
  s, k = sets["p0_bet"], sets["p1_call"]
  # Player 0 at x.
  pass0 = (below(UNIT) - above(UNIT)).scaled(a)  # a (2x - 1).
  bet0 = const(a * (1 - measure(k))) + (below(k) - above(k)).scaled(a + b)
  # Player 1 at y (its own payoff).
  passes = complement(s)
  passed1 = (below(passes) - above(passes)).scaled(a)
  call1 = (below(s) - above(s)).scaled(a + b)
  fold1 = const(-a * measure(s))
  value = bet0.integral(s) + pass0.integral(passes)
  value_1 = -(passed1.integral() + call1.integral(k) + fold1.integral(complement(k)))
  br_0 = bet0.maximum(pass0).integral()
  br_1 = passed1.integral() + call1.maximum(fold1).integral()
  decisions = (("", 0, s, bet0 - pass0), ("b", 1, k, call1 - fold1))
  return value, value_1, br_0, br_1, decisions


def _standard_payoffs(a: Fraction, b: Fraction, sets: Dict[str, Intervals]):
  """Values, best responses and decisions of the standard continuous game (``certify``)."""
  below, above = PiecewiseLinear.mass_below, PiecewiseLinear.mass_above
  const = PiecewiseLinear.constant
  s, k, t, c = sets["p0_bet"], sets["p1_call"], sets["p1_bet"], sets["p0_call"]
  # Player 0 at x.
  bet0 = const(a * (1 - measure(k))) + (below(k) - above(k)).scaled(a + b)
  checks1 = complement(t)
  showdown0 = (below(checks1) - above(checks1)).scaled(a)
  call0 = (below(t) - above(t)).scaled(a + b)
  fold0 = const(-a * measure(t))
  answer0 = call0.maximum(fold0)  # Best answer to a bet after checking.
  # Player 1 at y (its own payoff).
  checked = complement(s)
  callers = intersect(checked, c)
  folders = intersect(checked, complement(c))
  call1 = (below(s) - above(s)).scaled(a + b)
  fold1 = const(-a * measure(s))
  bet1 = const(a * measure(folders)) + (below(callers) - above(callers)).scaled(a + b)
  check1 = (below(checked) - above(checked)).scaled(a)
  value = (bet0.integral(s) + showdown0.integral(checked) + call0.integral(callers)
           + fold0.integral(folders))
  value_1 = -(call1.integral(k) + fold1.integral(complement(k)) + bet1.integral(t)
              + check1.integral(checks1))
  br_0 = bet0.maximum(showdown0 + answer0).integral()
  br_1 = call1.maximum(fold1).integral() + bet1.maximum(check1).integral()
  decisions = (("", 0, s, bet0 - showdown0 - answer0), ("pb", 0, c, call0 - fold0),
               ("b", 1, k, call1 - fold1), ("p", 1, t, bet1 - check1))
  return value, value_1, br_0, br_1, decisions


def _profile_fields(simplified: bool) -> Tuple[str, ...]:
  return ("p0_bet", "p1_call") if simplified else ("p0_bet", "p1_call", "p1_bet", "p0_call")


def _checked(s: Optional[Intervals], name: str) -> Intervals:
  """``s`` as exact merged intervals inside [0, 1]."""
  if s is None:
    raise ValueError(f"profile.{name} is required by the rule set")
  pairs = [(to_fraction(p, name), to_fraction(q, name)) for p, q in s]
  if any(not 0 <= p <= q <= 1 for p, q in pairs):
    raise ValueError(f"profile.{name} must be intervals (low, high) with 0 <= low <= high <= 1, "
                     f"got {s}")
  return intervals(pairs)


def _in_range(x: Optional[Number], name: str, bounds: Tuple[Fraction, Fraction],
              default: Fraction) -> Fraction:
  if x is None:
    return default
  value = to_fraction(x, name)
  if not bounds[0] <= value <= bounds[1]:
    raise ValueError(f"{name} = {value} outside its range [{bounds[0]}, {bounds[1]}]")
  return value


def _positive(x: Number, name: str) -> Fraction:
  value = to_fraction(x, name)
  if value <= 0:
    raise ValueError(f"{name} must be > 0, got {x!r}")
  return value

