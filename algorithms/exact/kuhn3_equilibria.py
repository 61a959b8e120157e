"""The Szafron-Gibson-Sturtevant family of equilibria of three-player Kuhn poker, exact.

The game is OpenSpiel's ``kuhn_poker(players=3)``: four cards J < Q < K < A (0 < 1 < 2 < 3), each
player antes 1 and is dealt one card, one bet of 1. Player 0 acts first; a player facing no bet
checks (action 0, "p") or bets (action 1, "b"); after a bet every later player folds ("p") or
calls ("b"); the highest card among the players still in wins the pot. The information-state
string of a player is its card followed by the betting history, e.g. ``"2ppb"``. The same strings
describe ``kuhn_poker_ante(players=3)`` at ante = bet = 1, so every member applies to both.

Notation (D. Szafron, R. Gibson, N. Sturtevant, "A parameterized family of equilibrium profiles
for three-player Kuhn poker", AAMAS 2013): a_ij, b_ij, c_ij are the probabilities that P1, P2, P3
(OpenSpiel players 0, 1, 2) holding card i (1 = J, 2 = Q, 3 = K, 4 = A) bet or call (action 1) in
situation j, where the situations, as information-state suffixes, are:

  j  P1 (player 0)                P2 (player 1)                P3 (player 2)
  1  ""     opens                 "p"     after P1 checked     "pp"  after two checks
  2  "ppb"  P3 bet                "b"     P1 bet               "pb"  P2 bet
  3  "pbp"  P2 bet, P3 folded     "ppbp"  P3 bet, P1 folded    "bp"  P1 bet, P2 folded
  4  "pbb"  P2 bet, P3 called     "ppbb"  P3 bet, P1 called    "bb"  P1 bet, P2 called

The profile (``Kuhn3Equilibrium.action_probabilities``):

* P1 never bets; facing a bet it folds J and Q, calls with A, and with K calls only in situation
  3, with probability a33 = 1/2.
* P2 after a check bets J w.p. b11, Q w.p. b21, never K (b31 = 0) and A w.p. b41 = 2 (b11 + b21).
  Facing P1's bet it calls K w.p. b32 and A always. After "ppbp" it calls Q w.p. b23, K w.p.
  b33 = 1/2 + (b11 + b21)/2 + beta/2 - b23 (1 - b21) with beta = max(b11, b21), A always.
  After "ppbb" it calls only with A.
* P3 after two checks bets J w.p. c11, Q w.p. c21 = 1/2 - c11, never K, always A. Facing P2's bet
  it calls only with A. Facing P1's bet it calls A always and K w.p. c33 ("bp") or c34 ("bb").
  Every other probability is 0.

Free parameters and their ranges, in the order in which each range depends only on earlier
parameters (``parameter_range``); the three sub-families are set by c11:

* c11 = 0 ("c11=0"): 0 <= b11 <= b21 <= 1/4; b23 = 0.
* 0 < c11 < 1/2 ("0<c11<1/2"): 0 <= b11 <= 1/4, b21 = b11, b23 = 0 and
  c11 <= (2 - b11) / (3 + 4 b11) (binding for b11 > 1/6), i.e. b11 <= (2 - 3 c11) / (1 + 4 c11).
* c11 = 1/2 ("c11=1/2"): 0 <= b11 <= 1/4, 0 <= b21 <= min(b11, 1/2 - 2 b11),
  0 <= b23 <= (b11 - b21) / (2 (1 - b21)).
* All: 0 <= b32 <= 1/2 + 3 (b11 + b21)/4 + beta/4; max(0, 1/2 - b32) <= c33 <=
  1/2 - b32 + 3 (b11 + b21)/4 + beta/4; 0 <= c34 <= 1.

Player values (exact, over the whole family; ``Kuhn3Equilibrium.values``):

  v_P1 = -1/48 - beta/24,   v_P2 = -1/48,   v_P3 = 1/24 + beta/24,   beta = max(b11, b21).

So P2's value is constant (-1/48); P1's moves in [-1/32, -1/48] and P3's in [1/24, 5/96], both
with beta only: P2's betting frequency transfers utility from P1 to P3 at no cost to itself.
c11, b23, b32, c33 and c34 change no value (b32, c33, c34 act off the equilibrium path, since P1
never bets; they only keep P1's bet unprofitable). Derivation: on the whole parameter box (the
profile above with free c11, b11, b21, b23), the expected utilities are
v_P1 = -(1 + 2 b21 + 4 c11 (b11 - b21))/48 and v_P2 = -(1 + 4 b23 (1 - 2 c11)(1 - b21))/48
(a computer-algebra walk of the game tree, done while writing this module). Within the family
2 b21 + 4 c11 (b11 - b21) = 2 beta (c11 = 0 and b21 = beta; or b21 = b11 = beta; or c11 = 1/2 and
b11 = beta) and b23 (1 - 2 c11) = 0 (b23 > 0 only at c11 = 1/2), which gives the formulas
above. The tests compare both forms with the exact tree walk (``exact_nash_conv``): the box
formulas at random points of the box, the family's at every member of ``certified_grid``.

Sources and checks. The paper's text was not available to us. The profile and the ranges above
are those of the University of Alberta's ``kuhn_3p_equilibrium_player`` (D. Morrill, 2013; the
Annual Computer Poker Competition's three-player Kuhn equilibrium player, published with the ACPC
dealer), which implements the paper's family and cites the paper for it; its sub-families are
numbered 1 (c11 = 0), 2 (c11 = 1/2) and 3 (0 < c11 < 1/2). The values are derived here (above).
The certificate decides: every member on ``certified_grid`` (each free parameter of each
sub-family at both ends and the middle of its range) is an exact equilibrium with these values
(``exact_nash_conv.ExactGameTree.certificate``: NashConv = 0 in Fractions), and every range bound
is tight: 1/1000 past it a player gains (tests). No disagreement with the implemented family was
found. The family need not contain every equilibrium of the game.
"""

import dataclasses
import fractions
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel
import scipy.optimize

from algorithms.exact.exact_number import Number
from algorithms.exact.exact_number import to_fraction
from algorithms.exact.kuhn_equilibria import two_action_policy

Fraction = fractions.Fraction

NUM_PLAYERS = 3
NUM_CARDS = 4
PARAMETERS = ("c11", "b11", "b21", "b23", "b32", "c33", "c34")
SUB_FAMILIES = ("c11=0", "0<c11<1/2", "c11=1/2")
# The information state each parameter is the probability of action 1 at.
PARAMETER_INFO_STATES = {"c11": "0pp", "b11": "0p", "b21": "1p", "b23": "1ppbp", "b32": "2b",
                         "c33": "2bp", "c34": "2bb"}
VALUE_FORMULAS = ("-1/48 - beta/24", "-1/48", "1/24 + beta/24")
SITUATIONS = (("", "ppb", "pbp", "pbb"), ("p", "b", "ppbp", "ppbb"), ("pp", "pb", "bp", "bb"))

_ZERO = Fraction(0)
_HALF = Fraction(1, 2)
_QUARTER = Fraction(1, 4)
_RATIONAL_DENOMINATOR = 10**6  # Float parameters are read as the nearest such fraction.
# A box containing the family, implied by the ranges (b23 <= b11 / 2 <= 1/8): the search bounds.
_BOX = {"c11": (0.0, 0.5), "b11": (0.0, 0.25), "b21": (0.0, 0.25), "b23": (0.0, 0.125),
        "b32": (0.0, 1.0), "c33": (0.0, 1.0), "c34": (0.0, 1.0)}


@dataclasses.dataclass(frozen=True)
class Kuhn3Equilibrium:
  """One member of the family (module docstring), with its derived probabilities and values.

  Attributes are the free parameters, exact; build members with ``kuhn3_equilibrium``, which
  checks the ranges.
  """

  c11: Fraction
  b11: Fraction
  b21: Fraction
  b23: Fraction
  b32: Fraction
  c33: Fraction
  c34: Fraction

  @property
  def sub_family(self) -> str:
    """``"c11=0"``, ``"0<c11<1/2"`` or ``"c11=1/2"``."""
    if self.c11 == 0:
      return SUB_FAMILIES[0]
    return SUB_FAMILIES[2] if self.c11 == _HALF else SUB_FAMILIES[1]

  @property
  def beta(self) -> Fraction:
    """max(b11, b21): the parameter that moves the values."""
    return max(self.b11, self.b21)

  @property
  def b33(self) -> Fraction:
    """P2 calls K after "ppbp": 1/2 + (b11 + b21)/2 + beta/2 - b23 (1 - b21)."""
    return _b33(self.parameters())

  @property
  def b41(self) -> Fraction:
    """P2 bets A after P1's check: 2 (b11 + b21)."""
    return self.behaviour()[1][0][3]

  @property
  def c21(self) -> Fraction:
    """P3 bets Q after two checks: 1/2 - c11."""
    return self.behaviour()[2][0][1]

  @property
  def values(self) -> Tuple[Fraction, Fraction, Fraction]:
    """Expected utility of players 0, 1, 2: (-1/48 - beta/24, -1/48, 1/24 + beta/24)."""
    return (-Fraction(1, 48) - self.beta / 24, -Fraction(1, 48), Fraction(1, 24) + self.beta / 24)

  def parameters(self) -> Dict[str, Fraction]:
    """The free parameters by name, in ``PARAMETERS`` order."""
    return {name: getattr(self, name) for name in PARAMETERS}

  def behaviour(self) -> Tuple[Tuple[Tuple[Fraction, ...], ...], ...]:
    """``[player][situation j - 1][card i - 1]``: the paper's a_ij, b_ij, c_ij."""
    return _behaviour(self.parameters())

  def action_probabilities(self) -> Dict[str, Fraction]:
    """Probability of action 1 (bet or call) at each of the 48 information-state strings."""
    return _action_probabilities(self.parameters())

  def profile(self) -> Dict[str, Dict[int, Fraction]]:
    """{information state: {action: probability}}, the input of ``exact_nash_conv``."""
    return {key: {0: 1 - p, 1: p} for key, p in self.action_probabilities().items()}

  def policy(self, game: pyspiel.Game) -> policy_lib.TabularPolicy:
    """This member as a ``TabularPolicy`` of ``game`` (all three players).

    Args:
      game: a game with the information states of three-player Kuhn poker at ante = bet = 1:
        ``kuhn_poker(players=3)`` or ``kuhn_poker_ante(players=3)`` at its defaults.

    Raises:
      ValueError: if the game is not such a game.
    """
    check_game(game)
    return two_action_policy(game, self.action_probabilities())


def check_game(game: pyspiel.Game) -> None:
  """Raises ValueError unless ``game`` is three-player Kuhn poker at ante = bet = 1."""
  if game.num_players() != NUM_PLAYERS:
    raise ValueError(f"game {game} has {game.num_players()} players; the family is for 3")
  params = game.get_parameters()
  for name, required in (("ante", 1.0), ("bet", 1.0), ("simplified", False)):
    if name in params and params[name] != required:
      raise ValueError(f"game {game} has {name}={params[name]}; the family needs {required}")
  expected = {f"{card}{h}" for card in range(NUM_CARDS) for s in SITUATIONS for h in s}
  keys = set(policy_lib.TabularPolicy(game).state_lookup)
  if keys != expected:
    raise ValueError(f"game {game} has information states {sorted(keys)[:6]}...; the family "
                     "needs those of kuhn_poker(players=3)")


def parameter_range(name: str, chosen: Mapping[str, Number]) -> Tuple[Fraction, Fraction]:
  """The allowed [low, high] of parameter ``name`` given the parameters before it.

  Args:
    name: one of ``PARAMETERS``.
    chosen: values of the parameters that precede ``name`` in ``PARAMETERS`` (others ignored).

  Returns:
    (low, high), exact; low == high where the parameter is fixed (e.g. b21 = b11 when
    0 < c11 < 1/2). The ranges are those of the module docstring.

  Raises:
    ValueError: for an unknown name or a missing earlier parameter.
  """
  if name not in PARAMETERS:
    raise ValueError(f"unknown parameter {name!r}; allowed: {', '.join(PARAMETERS)}")
  earlier = PARAMETERS[:PARAMETERS.index(name)]
  missing = [p for p in earlier if p not in chosen]
  if missing:
    raise ValueError(f"the range of {name} needs {', '.join(missing)}")
  return _range(name, {p: to_fraction(chosen[p], p) for p in earlier})


def _range(name: str, v: Mapping[str, Number]) -> Tuple[Number, Number]:
  """[low, high] of ``name`` given the earlier parameters ``v`` (Fractions, or floats for the
  search of ``nearest_member``); the ranges of the module docstring."""
  if name == "c11":
    return _ZERO, _HALF
  c11 = v["c11"]
  if name == "b11":
    if 0 < c11 < _HALF:
      return _ZERO, min(_QUARTER, (2 - 3 * c11) / (1 + 4 * c11))
    return _ZERO, _QUARTER
  b11 = v["b11"]
  if name == "b21":
    if c11 == 0:
      return b11, _QUARTER
    if c11 < _HALF:
      return b11, b11
    return _ZERO, min(b11, _HALF - 2 * b11)
  b21 = v["b21"]
  if name == "b23":
    return _ZERO, max(_ZERO, (b11 - b21) / (2 * (1 - b21)))
  span = 3 * (b11 + b21) / 4 + max(b11, b21) / 4
  if name == "b32":
    return _ZERO, _HALF + span
  if name == "c33":
    return max(_ZERO, _HALF - v["b32"]), _HALF - v["b32"] + span
  return _ZERO, Fraction(1)


def free_parameters(sub_family: str) -> Tuple[str, ...]:
  """The parameters that vary within ``sub_family`` (the others are fixed by it)."""
  fixed = {"c11=0": ("c11", "b23"), "0<c11<1/2": ("b21", "b23"), "c11=1/2": ("c11",)}
  if sub_family not in fixed:
    raise ValueError(f"unknown sub-family {sub_family!r}; allowed: {', '.join(SUB_FAMILIES)}")
  return tuple(p for p in PARAMETERS if p not in fixed[sub_family])


def kuhn3_equilibrium(c11: Number = 0, b11: Number = 0, b21: Optional[Number] = None,
                      b23: Number = 0, b32: Number = 0, c33: Optional[Number] = None,
                      c34: Number = 0) -> Kuhn3Equilibrium:
  """The member with these parameters (module docstring); checks every range.

  Args:
    c11: the free parameters of the module docstring, each an int, Fraction, or float (taken at
      its exact binary value).
    b11: as c11.
    b21: as c11; None (the default) for b11.
    b23: as c11.
    b32: as c11.
    c33: as c11; None (the default) for the low end of its range, max(0, 1/2 - b32).
    c34: as c11.

  Raises:
    ValueError: for a parameter outside its range, with the range in the message.
  """
  given = dict(c11=c11, b11=b11, b21=b11 if b21 is None else b21, b23=b23, b32=b32, c33=c33,
               c34=c34)
  chosen: Dict[str, Fraction] = {}
  for name in PARAMETERS:
    low, high = parameter_range(name, chosen)
    value = low if given[name] is None else to_fraction(given[name], name)
    if not low <= value <= high:
      raise ValueError(f"{name} = {value} outside its range [{low}, {high}] given "
                       f"{_describe(chosen)}")
    chosen[name] = value
  return Kuhn3Equilibrium(**chosen)


def grid_members(points: Sequence[Fraction] = (_ZERO, _HALF, Fraction(1)),
                 c11_points: Sequence[Fraction] = (Fraction(1, 1000), Fraction(1, 4),
                                                   Fraction(7, 16), Fraction(499, 1000))
                 ) -> List[Kuhn3Equilibrium]:
  """Members on a grid: each free parameter at the fractions ``points`` of its range.

  In each sub-family, the parameters take in ``PARAMETERS`` order every value
  low + t (high - low), t in ``points``, of their range given the earlier ones (t = 0 and 1 are
  the edges, including the curved edge c11 = (2 - b11)/(3 + 4 b11)), except c11, which is 0 or
  1/2, or takes ``c11_points`` in the open sub-family 0 < c11 < 1/2. Fixed parameters (b21 = b11,
  b23 = 0) have a one-point range. Duplicates are dropped; the order is deterministic.
  """
  c11_values = dict(zip(SUB_FAMILIES, ((_ZERO,), tuple(c11_points), (_HALF,))))
  members: Dict[Tuple[Fraction, ...], Kuhn3Equilibrium] = {}
  for sub_family in SUB_FAMILIES:
    partial = [{"c11": c11} for c11 in c11_values[sub_family]]
    for name in PARAMETERS[1:]:
      extended = []
      for chosen in partial:
        low, high = parameter_range(name, chosen)
        for value in dict.fromkeys(low + t * (high - low) for t in points):
          extended.append({**chosen, name: value})
      partial = extended
    for chosen in partial:
      members.setdefault(tuple(chosen.values()), kuhn3_equilibrium(**chosen))
  return list(members.values())


def certified_grid() -> List[Kuhn3Equilibrium]:
  """The grid certified exactly by the tests: every free parameter of every sub-family at the
  two edges and the midpoint of its range (``grid_members`` with its defaults)."""
  return grid_members()


def golden_data(members: Optional[Sequence[Kuhn3Equilibrium]] = None) -> Dict[str, object]:
  """JSON-ready reference data: the value formulas and the exact values on a grid.

  Args:
    members: the members to list (default: ``certified_grid()``).

  Returns:
    {"game", "reference", "value_formulas" (per player, and "beta"), "parameter_names"
    (``PARAMETERS``), "members": [{"sub_family", "parameters" [fraction strings in
    ``parameter_names`` order], "values" [3 fraction strings]}]}.
  """
  if members is None:
    members = certified_grid()
  return {
      "game": "kuhn_poker(players=3)",
      "reference": ("D. Szafron, R. Gibson, N. Sturtevant, A parameterized family of equilibrium "
                    "profiles for three-player Kuhn poker, AAMAS 2013"),
      "value_formulas": {"player_0": VALUE_FORMULAS[0], "player_1": VALUE_FORMULAS[1],
                         "player_2": VALUE_FORMULAS[2], "beta": "max(b11, b21)"},
      "parameter_names": list(PARAMETERS),
      "members": [{"sub_family": m.sub_family,
                   "parameters": [str(v) for v in m.parameters().values()],
                   "values": [str(v) for v in m.values]} for m in members],
  }


@dataclasses.dataclass(frozen=True)
class NearestMember:
  """The family member closest to a measured policy.

  Attributes:
    member: the member.
    distance: Euclidean distance between the two vectors of action-1 probabilities over the 48
      information states.
    max_deviation: largest absolute difference at one information state.
    by_sub_family: the distance of the nearest member found in each sub-family (its closure).
  """

  member: Kuhn3Equilibrium
  distance: float
  max_deviation: float
  by_sub_family: Mapping[str, float]


def measured_probabilities(policy: Union[policy_lib.TabularPolicy, Mapping[str, Number]]
                           ) -> Dict[str, float]:
  """Probability of action 1 at the 48 information states of a policy.

  Args:
    policy: a ``TabularPolicy`` of a three-player Kuhn game, or {information state: probability
      of action 1} with every one of the 48 states.

  Raises:
    ValueError: for a missing information state or a probability outside [0, 1].
  """
  keys = [f"{card}{h}" for s in SITUATIONS for h in s for card in range(NUM_CARDS)]
  if isinstance(policy, policy_lib.TabularPolicy):
    lookup = policy.state_lookup
    missing = [k for k in keys if k not in lookup]
    probs = {k: float(policy.action_probability_array[lookup[k]][1]) for k in keys
             if k in lookup}
  else:
    missing = [k for k in keys if k not in policy]
    probs = {k: float(policy[k]) for k in keys if k in policy}
  if missing:
    raise ValueError(f"policy lacks information states {missing[:6]} of 3-player Kuhn poker")
  bad = [k for k, p in probs.items() if not 0 <= p <= 1]
  if bad:
    raise ValueError(f"probabilities at {bad[:6]} are outside [0, 1]")
  return probs


def nearest_member(policy: Union[policy_lib.TabularPolicy, Mapping[str, Number]]
                   ) -> NearestMember:
  """The member minimising the squared distance to ``policy`` over the 48 information states.

  min over members m of sum_s (m(s) - p(s))^2, with p(s), m(s) the probabilities of action 1.
  Each sub-family's closure is searched separately with SLSQP (scipy) over its free parameters
  under the range constraints of the module docstring (for c11 = 0 a convex quadratic program),
  from the parameters read off the policy at ``PARAMETER_INFO_STATES`` and from the middle of
  the ranges; the optimum is snapped to a member by reading its parameters as fractions and
  clamping each into its range in ``PARAMETERS`` order, and distances are those of the snapped
  members.

  Args:
    policy: as ``measured_probabilities``.
  """
  measured = measured_probabilities(policy)
  keys = sorted(measured)
  target = np.array([measured[k] for k in keys])
  best: Dict[str, Tuple[float, Kuhn3Equilibrium]] = {}
  for sub_family in SUB_FAMILIES:
    free = free_parameters(sub_family)
    starts = [[measured[PARAMETER_INFO_STATES[p]] for p in free], [0.25] * len(free)]
    candidates = []
    for start in starts:
      x = _fit(sub_family, free, keys, target, np.array(start))
      member = _snap(sub_family, dict(zip(free, x)))
      candidates.append((_distance(member, keys, target), member))
    best[sub_family] = min(candidates, key=lambda c: c[0])
  distance, member = min(best.values(), key=lambda c: c[0])
  diffs = np.abs(_float_vector(member.parameters(), keys) - target)
  return NearestMember(member=member, distance=distance, max_deviation=float(diffs.max()),
                       by_sub_family={k: v[0] for k, v in best.items()})


def _b33(v: Mapping[str, Number]) -> Number:
  """P2 calls K after "ppbp": 1/2 + (b11 + b21)/2 + beta/2 - b23 (1 - b21)."""
  return _HALF + (v["b11"] + v["b21"]) / 2 + max(v["b11"], v["b21"]) / 2 - v["b23"] * (1 - v["b21"])


def _behaviour(v: Mapping[str, Number]) -> Tuple[Tuple[Tuple[Number, ...], ...], ...]:
  """a_ij, b_ij, c_ij as ``[player][j - 1][i - 1]`` for parameters ``v`` (Fractions or floats).

  The profile of the module docstring; the same code serves exact members and the float search
  of ``nearest_member``.
  """
  z, h, one = _ZERO, _HALF, Fraction(1)
  b41, c21 = 2 * (v["b11"] + v["b21"]), _HALF - v["c11"]
  p1 = ((z, z, z, z), (z, z, z, one), (z, z, h, one), (z, z, z, one))
  p2 = ((v["b11"], v["b21"], z, b41), (z, z, v["b32"], one), (z, v["b23"], _b33(v), one),
        (z, z, z, one))
  p3 = ((v["c11"], c21, z, one), (z, z, z, one), (z, z, v["c33"], one), (z, z, v["c34"], one))
  return (p1, p2, p3)


def _action_probabilities(v: Mapping[str, Number]) -> Dict[str, Number]:
  """Probability of action 1 at each information-state string, for parameters ``v``."""
  out = {}
  for situations, table in zip(SITUATIONS, _behaviour(v)):
    for history, row in zip(situations, table):
      for card, p in enumerate(row):
        out[f"{card}{history}"] = p
  return out


def _float_parameters(sub_family: str, free: Tuple[str, ...], x: np.ndarray) -> Dict[str, float]:
  """All parameters (floats) of a sub-family point: the free ones from x, the rest derived."""
  v = dict(zip(free, (float(t) for t in x)))
  if sub_family == "c11=0":
    v.update(c11=0.0, b23=0.0)
  elif sub_family == "0<c11<1/2":
    v.update(b21=v["b11"], b23=0.0)
  else:
    v["c11"] = 0.5
  return v


def _float_vector(v: Mapping[str, float], keys: Sequence[str]) -> np.ndarray:
  """Action-1 probabilities at ``keys`` of the (float) parameters ``v``."""
  probs = _action_probabilities(v)
  return np.array([float(probs[k]) for k in keys])


def _constraints(sub_family: str, free: Tuple[str, ...]) -> Dict[str, object]:
  """The ranges (``_range``) of every parameter of a sub-family point as SLSQP inequalities
  g(x) >= 0: v[p] - low(p) and high(p) - v[p]."""

  def margins(x):
    v = _float_parameters(sub_family, free, x)
    out = []
    for name in PARAMETERS:
      low, high = _range(name, v)
      out += [v[name] - float(low), float(high) - v[name]]
    return np.array(out)

  return {"type": "ineq", "fun": margins}


def _fit(sub_family: str, free: Tuple[str, ...], keys: Sequence[str], target: np.ndarray,
         start: np.ndarray) -> np.ndarray:
  """SLSQP least squares over one sub-family's closure (the optimum's free parameters)."""

  def objective(x):
    r = _float_vector(_float_parameters(sub_family, free, x), keys) - target
    return float(r @ r)

  bounds = [_BOX[name] for name in free]
  start = np.clip(start, [low for low, _ in bounds], [high for _, high in bounds])
  result = scipy.optimize.minimize(objective, start, method="SLSQP", bounds=bounds,
                                   constraints=_constraints(sub_family, free),
                                   options={"ftol": 1e-14, "maxiter": 100})
  return result.x


def _snap(sub_family: str, free_values: Mapping[str, float]) -> Kuhn3Equilibrium:
  """The member nearest the float parameters: each read as a fraction, clamped into its range."""
  v = _float_parameters(sub_family, tuple(free_values), np.array(list(free_values.values())))
  chosen: Dict[str, Fraction] = {}
  for name in PARAMETERS:
    low, high = parameter_range(name, chosen)
    value = Fraction(v[name]).limit_denominator(_RATIONAL_DENOMINATOR)
    chosen[name] = min(max(value, low), high)
  return Kuhn3Equilibrium(**chosen)


def _distance(member: Kuhn3Equilibrium, keys: Sequence[str], target: np.ndarray) -> float:
  return float(np.linalg.norm(_float_vector(member.parameters(), keys) - target))


def _describe(chosen: Mapping[str, Fraction]) -> str:
  return ", ".join(f"{k}={v}" for k, v in chosen.items()) or "nothing"
