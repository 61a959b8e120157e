"""Tests of algorithms.exact.kuhn3_equilibria: the Szafron-Gibson-Sturtevant family of three-player
Kuhn equilibria (AAMAS 2013), certified exactly by algorithms.exact.exact_nash_conv (NashConv = 0 in
Fractions) and cross-checked with OpenSpiel's exploitability.nash_conv, pyspiel.nash_conv and
expected_game_score on the C++ game kuhn_poker(players=3)."""

import dataclasses
import fractions
import json

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.exact import exact_nash_conv
from algorithms.exact import kuhn3_equilibria as k3

F = fractions.Fraction
TOLERANCE = 1e-12
STEP = F(1, 1000)  # How far past a range bound the negative controls step.
GRID = k3.certified_grid()


@pytest.fixture(scope="module")
def game():
  return pyspiel.load_game("kuhn_poker(players=3)")


@pytest.fixture(scope="module")
def tree(game):
  return exact_nash_conv.ExactGameTree(game)


def assert_certified(tree, member):
  certificate = tree.certificate(member.profile())
  assert certificate.nash_conv == 0, (member, certificate.gains)
  assert certificate.values == member.values, (member, certificate.values)


@pytest.mark.slow
def test_certified_grid_members_are_exact_equilibria_with_the_stated_values(tree):
  # Every free parameter of every sub-family at both ends and the middle of its range.
  assert len(GRID) > 500
  for member in GRID:
    assert_certified(tree, member)


@pytest.mark.parametrize("parameters", [
    dict(b11=F(1, 8), b21=F(1, 5), b32=F(1, 3), c33=F(1, 4), c34=F(2, 7)),
    dict(c11=F(1, 3), b11=F(1, 7), b32=F(2, 3), c33=F(1, 13), c34=F(1, 3)),
    dict(c11=F(1, 2), b11=F(1, 5), b21=F(1, 10), b23=F(1, 30), b32=F(1, 2), c33=F(1, 4)),
    dict(c11=F(2, 5), b11=F(1, 5), b32=F(1, 7), c33=F(1, 2))])
def test_interior_rational_members_are_exact_equilibria(tree, parameters):
  assert_certified(tree, k3.kuhn3_equilibrium(**parameters))


def test_grid_reaches_both_ends_of_every_free_parameter_in_every_sub_family():
  reached = set()
  for member in GRID:
    chosen = {}
    for name, value in member.parameters().items():
      low, high = k3.parameter_range(name, chosen)
      chosen[name] = value
      if name in k3.free_parameters(member.sub_family) and low < high:
        for end, bound in (("low", low), ("high", high)):
          if value == bound:
            reached.add((member.sub_family, name, end))
  expected = {(s, p, end) for s in k3.SUB_FAMILIES for p in k3.free_parameters(s)
              for end in ("low", "high") if p != "c11"}
  assert expected <= reached
  # The curved edge of 0 < c11 < 1/2, c11 = (2 - b11)/(3 + 4 b11) with b11 > 1/6, is on the grid.
  assert any(m.sub_family == "0<c11<1/2" and m.b11 > F(1, 6)
             and m.c11 * (3 + 4 * m.b11) == 2 - m.b11 for m in GRID)


@pytest.mark.parametrize("seed", range(4))
def test_value_formulas_on_the_parameter_box(tree, seed):
  # Module docstring, on the box (not only the family): v_P1 = -(1 + 2 b21 + 4 c11 (b11 - b21))/48
  # and v_P2 = -(1 + 4 b23 (1 - 2 c11)(1 - b21))/48, whatever b32, c33, c34.
  rng = np.random.default_rng(seed)

  def draw(high):
    return F(int(rng.integers(0, 13)), 12) * high

  point = k3.Kuhn3Equilibrium(c11=draw(F(1, 2)), b11=draw(F(1, 4)), b21=draw(F(1, 4)),
                              b23=draw(F(1, 8)), b32=draw(1), c33=draw(1), c34=draw(1))
  c11, b11, b21, b23 = point.c11, point.b11, point.b21, point.b23
  values = tree.expected_values(point.profile())
  assert values[0] == -(1 + 2 * b21 + 4 * c11 * (b11 - b21)) / 48
  assert values[1] == -(1 + 4 * b23 * (1 - 2 * c11) * (1 - b21)) / 48
  assert sum(values) == 0


def test_values_constant_and_moving_parts_over_the_grid():
  # Module docstring: v_P2 = -1/48 on the whole family; v_P1 = -1/48 - beta/24 and
  # v_P3 = 1/24 + beta/24 with beta = max(b11, b21) in [0, 1/4].
  values = [m.values for m in GRID]
  assert {v[1] for v in values} == {F(-1, 48)}
  assert min(v[0] for v in values) == F(-1, 32) and max(v[0] for v in values) == F(-1, 48)
  assert min(v[2] for v in values) == F(1, 24) and max(v[2] for v in values) == F(5, 96)
  assert all(sum(v) == 0 for v in values)


# Every tenth grid member, in two halves (about 1 s each): the quick subset checks every
# twentieth; the other half runs the same comparisons on other members and is slow.
@pytest.mark.parametrize("start", [0, pytest.param(10, marks=pytest.mark.slow)])
def test_openspiel_nash_conv_and_values_agree(game, start):
  # OpenSpiel's Python and C++ best responses on the C++ game, float arithmetic.
  for member in GRID[start::20]:
    policy = member.policy(game)
    assert exploitability.nash_conv(game, policy) < TOLERANCE
    assert pyspiel.nash_conv(game, policy_lib.python_policy_to_pyspiel_policy(policy)) < TOLERANCE
    values = expected_game_score.policy_value(game.new_initial_state(), [policy] * 3)
    assert list(values) == pytest.approx([float(v) for v in member.values], abs=TOLERANCE)


def bound_steps():
  """(description, parameters) one STEP past one range bound of the module docstring each."""
  base1 = dict(c11=F(0), b11=F(1, 8), b21=F(1, 4), b23=F(0), b32=F(1, 4), c33=F(1, 4),
               c34=F(1, 2))
  b32_max1 = F(1, 2) + F(3, 4) * (F(1, 8) + F(1, 4)) + F(1, 16)
  c33_max1 = F(1, 4) + b32_max1 - F(1, 2)
  base3 = dict(c11=F(1, 3), b11=F(1, 6), b21=F(1, 6), b23=F(0), b32=F(1, 2), c33=F(1, 4),
               c34=F(1, 2))
  base2 = dict(c11=F(1, 2), b11=F(1, 5), b21=F(1, 10), b23=F(0), b32=F(1, 2), c33=F(1, 4),
               c34=F(1, 2))
  b23_max2 = (F(1, 5) - F(1, 10)) / (2 * (1 - F(1, 10)))
  return [
      ("c11=0: b21 > 1/4", {**base1, "b21": F(1, 4) + STEP}),
      ("c11=0: b11 > b21", {**base1, "b21": F(1, 8) - STEP}),
      ("c11=0: b32 above its range", {**base1, "b32": b32_max1 + STEP, "c33": F(0)}),
      ("c11=0: c33 below 1/2 - b32", {**base1, "c33": F(1, 4) - STEP}),
      ("c11=0: c33 above its range", {**base1, "c33": c33_max1 + STEP}),
      ("c11 = STEP with b11 != b21", {**base1, "c11": STEP}),
      ("0<c11<1/2: b21 > b11", {**base3, "b21": F(1, 6) + STEP}),
      ("0<c11<1/2: b21 < b11", {**base3, "b21": F(1, 6) - STEP}),
      ("0<c11<1/2: c11 > (2 - b11)/(3 + 4 b11)",
       {**base3, "b11": F(1, 5), "b21": F(1, 5), "c11": F(9, 19) + STEP}),
      ("0<c11<1/2: b23 > 0", {**base3, "b23": STEP}),
      ("c11=1/2: b23 above its range", {**base2, "b23": b23_max2 + STEP}),
      ("c11=1/2: b21 > 1/2 - 2 b11", {**base2, "b21": F(1, 10) + STEP}),
      ("c11=1/2: b21 > b11", {**base2, "b11": F(1, 8), "b21": F(1, 8) + STEP}),
      ("c11=1/2: b11 > 1/4", {**base2, "b11": F(1, 4) + STEP, "b21": F(0)}),
  ]


@pytest.mark.parametrize("description, parameters", bound_steps(),
                         ids=[d for d, _ in bound_steps()])
def test_each_range_bound_is_tight(tree, game, description, parameters):
  # Negative control: one STEP past a bound, the certificate finds a positive gain, OpenSpiel
  # agrees, and kuhn3_equilibrium refuses the parameters with a one-line message.
  outside = k3.Kuhn3Equilibrium(**parameters)  # The dataclass itself does not check ranges.
  certificate = tree.certificate(outside.profile())
  assert certificate.nash_conv > 0, description
  reference = exploitability.nash_conv(game, outside.policy(game))
  assert float(certificate.nash_conv) == pytest.approx(reference, abs=TOLERANCE)
  with pytest.raises(ValueError, match="outside its range") as error:
    k3.kuhn3_equilibrium(**parameters)
  assert "\n" not in str(error.value)


def test_on_the_bounds_themselves_still_equilibria(tree):
  # The counterparts of the negative controls, exactly on each bound.
  # b32 = 1/2 + 3/4 (1/8 + 1/4) + 1/4 * 1/4 = 27/32 leaves c33 = 0 only.
  assert_certified(tree, k3.kuhn3_equilibrium(b11=F(1, 8), b21=F(1, 4), b32=F(27, 32), c33=F(0)))
  assert_certified(tree, k3.kuhn3_equilibrium(c11=F(9, 19), b11=F(1, 5)))
  assert_certified(tree, k3.kuhn3_equilibrium(c11=F(1, 2), b11=F(1, 5), b21=F(1, 10),
                                              b23=F(1, 18)))


def test_perturbed_member_has_positive_gain(tree, game):
  # P1 bluffing J w.p. 1/1000 (the family never bets with P1): P2 and P3 gain nothing from it
  # but P1's own deviation loses, so its best response gains; OpenSpiel agrees.
  member = k3.kuhn3_equilibrium(b11=F(1, 8), b21=F(1, 4), b32=F(1, 2), c33=F(1, 4))
  profile = member.profile()
  profile["0"] = {0: 1 - STEP, 1: STEP}
  certificate = tree.certificate(profile)
  assert certificate.gains[0] > 0
  tabular = member.policy(game)
  tabular.policy_for_key("0")[:] = [float(1 - STEP), float(STEP)]
  reference = exploitability.nash_conv(game, tabular, return_only_nash_conv=False)
  assert [float(g) for g in certificate.gains] == pytest.approx(
      list(reference.player_improvements), abs=TOLERANCE)


def test_member_tables_follow_the_paper_notation():
  member = k3.kuhn3_equilibrium(c11=F(1, 2), b11=F(1, 5), b21=F(1, 10), b23=F(1, 30),
                                b32=F(1, 2), c33=F(1, 4), c34=F(1, 3))
  probs = member.action_probabilities()
  assert len(probs) == 48
  # Derived parameters: b41 = 2 (b11 + b21), c21 = 1/2 - c11,
  # b33 = 1/2 + (b11 + b21)/2 + beta/2 - b23 (1 - b21) = 1/2 + 3/20 + 1/10 - 3/100.
  assert probs["3p"] == member.b41 == F(3, 5)
  assert probs["1pp"] == member.c21 == 0
  assert probs["2ppbp"] == member.b33 == F(18, 25)
  assert (probs["0pp"], probs["0p"], probs["1p"], probs["1ppbp"], probs["2b"], probs["2bp"],
          probs["2bb"]) == tuple(member.parameters().values())
  assert probs["2pbp"] == F(1, 2) and probs["3"] == 0 and probs["3ppb"] == 1


def test_policy_fills_every_information_state_of_the_cpp_game(game):
  member = k3.kuhn3_equilibrium(c11=F(1, 4), b11=F(1, 8))
  tabular = member.policy(game)
  probs = member.action_probabilities()
  assert set(tabular.state_lookup) == set(probs)
  for key, p in probs.items():
    assert list(tabular.policy_for_key(key)) == [float(1 - p), float(p)]


def test_policy_refuses_other_games():
  with pytest.raises(ValueError, match="has 2 players; the family is for 3"):
    k3.kuhn3_equilibrium().policy(pyspiel.load_game("kuhn_poker"))
  with pytest.raises(ValueError, match="has 4 players"):
    k3.kuhn3_equilibrium().policy(pyspiel.load_game("kuhn_poker(players=4)"))


def test_policy_on_kuhn_poker_ante_with_three_players():
  ante_game = pyspiel.load_game("kuhn_poker_ante(players=3)")
  member = k3.kuhn3_equilibrium(b11=F(1, 8), b21=F(1, 4))
  assert exploitability.nash_conv(ante_game, member.policy(ante_game)) < TOLERANCE
  with pytest.raises(ValueError, match="ante=2.0"):
    member.policy(pyspiel.load_game("kuhn_poker_ante(players=3,ante=2.0)"))


@pytest.mark.parametrize("parameters, message", [
    (dict(c11=F(3, 5)), r"c11 = 3/5 outside its range \[0, 1/2\]"),
    (dict(b11=F(1, 3)), r"b11 = 1/3 outside its range \[0, 1/4\]"),
    (dict(b11=F(1, 8), b21=F(1, 16)), r"b21 = 1/16 outside its range \[1/8, 1/4\]"),
    (dict(c34=-0.5), r"c34 = -1/2 outside its range \[0, 1\]"),
    (dict(b32="x"), "b32 must be an int, float or Fraction"),
])
def test_parameters_outside_the_family_raise_one_line_errors(parameters, message):
  with pytest.raises(ValueError, match=message) as error:
    k3.kuhn3_equilibrium(**parameters)
  assert "\n" not in str(error.value)


def test_parameter_range_errors():
  with pytest.raises(ValueError, match="unknown parameter 'b99'"):
    k3.parameter_range("b99", {})
  with pytest.raises(ValueError, match="the range of b21 needs c11, b11"):
    k3.parameter_range("b21", {})
  with pytest.raises(ValueError, match="unknown sub-family"):
    k3.free_parameters("c11=1")


# Every fifth member's certificate, in two halves (about 1 s each) as above.
@pytest.mark.parametrize("start", [0, pytest.param(5, marks=pytest.mark.slow)])
def test_golden_data_is_json_and_matches_the_certificate(tree, start):
  data = json.loads(json.dumps(k3.golden_data()))
  assert data["game"] == "kuhn_poker(players=3)"
  assert data["value_formulas"] == {"player_0": "-1/48 - beta/24", "player_1": "-1/48",
                                    "player_2": "1/24 + beta/24", "beta": "max(b11, b21)"}
  assert data["parameter_names"] == list(k3.PARAMETERS)
  assert len(data["members"]) == len(GRID)
  for entry in data["members"][start::10]:
    member = k3.kuhn3_equilibrium(**dict(zip(data["parameter_names"],
                                             map(F, entry["parameters"]))))
    assert member.sub_family == entry["sub_family"]
    certificate = tree.certificate(member.profile())
    assert [str(v) for v in certificate.values] == entry["values"]
    assert certificate.nash_conv == 0


# Every 25th member; every 50th in the quick subset (0.1-0.3 s each).
@pytest.mark.parametrize("index", [index if index % 50 == 0 else
                                   pytest.param(index, marks=pytest.mark.slow)
                                   for index in range(0, len(GRID), 25)])
def test_nearest_member_of_a_member_is_itself(game, index):
  member = GRID[index]
  nearest = k3.nearest_member(member.policy(game))
  assert nearest.distance < 1e-9
  assert nearest.member == member


def test_nearest_member_of_a_perturbed_member():
  # Perturbing information states the family fixes (P1's opening bet with J, P2's call with J):
  # the nearest member is the member itself, at the perturbation's Euclidean length.
  member = k3.kuhn3_equilibrium(c11=F(1, 2), b11=F(1, 5), b21=F(1, 10), b23=F(1, 30),
                                b32=F(1, 2), c33=F(1, 4), c34=F(1, 3))
  probs = {key: float(p) for key, p in member.action_probabilities().items()}
  probs["0"], probs["0b"] = 0.03, 0.04
  nearest = k3.nearest_member(probs)
  assert nearest.member == member
  assert nearest.distance == pytest.approx(0.05, abs=1e-9)
  assert nearest.max_deviation == pytest.approx(0.04, abs=1e-9)
  # Moving along the family (c34, an off-path call) gives another member at distance 0.
  probs = {key: float(p) for key, p in member.action_probabilities().items()}
  probs["2bb"] = 0.625
  nearest = k3.nearest_member(probs)
  assert nearest.distance < 1e-9
  assert nearest.member == dataclasses.replace(member, c34=F(5, 8))


@pytest.fixture(scope="module")
def grid_vectors():
  """(information states, array of the grid members' action-1 probabilities at them)."""
  keys = sorted(GRID[0].action_probabilities())
  return keys, np.array([[float(m.action_probabilities()[key]) for key in keys] for m in GRID])


@pytest.mark.parametrize("seed, scale", [(0, 0.02), (1, 0.1), (2, 0.3), (3, 1.0)])
def test_nearest_member_is_no_farther_than_any_grid_member(grid_vectors, seed, scale):
  # Random policies around a grid member: the search returns a valid member at least as close
  # as the closest of the 500+ certified grid members.
  rng = np.random.default_rng(seed)
  keys, grid = grid_vectors
  probs = np.clip(grid[rng.integers(len(grid))] + scale * rng.normal(size=len(keys)), 0, 1)
  nearest = k3.nearest_member(dict(zip(keys, probs)))
  assert k3.kuhn3_equilibrium(**nearest.member.parameters()) == nearest.member
  assert nearest.distance <= np.linalg.norm(grid - probs, axis=1).min() + 1e-9
  assert nearest.distance == pytest.approx(min(nearest.by_sub_family.values()))


def test_nearest_member_refuses_incomplete_policies():
  with pytest.raises(ValueError, match="lacks information states"):
    k3.nearest_member({"0": 0.5})
  probs = {key: 0.5 for key in k3.kuhn3_equilibrium().action_probabilities()}
  probs["0"] = 1.5
  with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
    k3.nearest_member(probs)
