"""Tests of algorithms.exact.kuhn_equilibria: the closed forms against the sequence-form LP,
OpenSpiel's exploitability, an exact expected-value computation from the rules, and Kuhn (1950)."""

import fractions
import itertools

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.exact import kuhn_equilibria
from algorithms.exact import sequence_form_lp
import spiel_games  # noqa: F401  (registers kuhn_poker_ante)
from spiel_games import kuhn_rules

F = fractions.Fraction
EXACT = 1e-9
EPS = F(1, 1000)

# r = ante / bet: every regime boundary, points just either side of it, and regime interiors.
_BOUNDARIES = {False: (F(1, 2), F(1)), True: (F(1, 2),)}
_INTERIORS = (F(1, 5), F(3, 4), F(3, 2), F(4))


def _ratios(simplified):
  points = set(_INTERIORS)
  for r in _BOUNDARIES[simplified]:
    points.update([r - EPS, r, r + EPS])
  return sorted(points)


# (ante, bet, simplified): each ratio with bet 1, and a few with another bet to test scaling.
GRID = [(float(r), 1.0, s) for s in (False, True) for r in _ratios(s)]
GRID += [(float(r * 3 / 2), 1.5, s) for s in (False, True) for r in (F(1, 5), F(1, 2), F(1), F(4))]


def _members(ante, bet, simplified):
  """The default member and, for a family, its members on a grid of each parameter (0, 1/2, 1
  of the range), corners included."""
  params = kuhn_equilibria.family_parameters(ante, bet, simplified)
  grids = [[p.low + (p.high - p.low) * k / 2 for k in range(3)] for p in params]
  members = [kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified)]
  for values in itertools.product(*grids):
    chosen = {p.name: v for p, v in zip(params, values)}
    if chosen.get("p1_call_mid", 0) > chosen.get("p1_bluff", 1):
      continue  # Outside the passive_edge triangle.
    members.append(kuhn_equilibrium_checked(ante, bet, simplified, chosen))
  return members


def kuhn_equilibrium_checked(ante, bet, simplified, chosen):
  member = kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified, **chosen)
  assert member.family == chosen
  return member


@pytest.fixture(scope="module")
def solved():
  """(ante, bet, simplified) -> (game, LP solution) over the grid."""
  out = {}
  for ante, bet, simplified in GRID:
    game = pyspiel.load_game("kuhn_poker_ante",
                             {"ante": ante, "bet": bet, "simplified": simplified})
    out[(ante, bet, simplified)] = (game, sequence_form_lp.solve_game(game))
  return out


def test_grid_crosses_every_regime():
  for simplified in (False, True):
    names = {kuhn_equilibria.regime_of(a, b, s).name for a, b, s in GRID if s == simplified}
    assert names == {r.name for r in kuhn_equilibria.regimes(simplified)}


@pytest.mark.parametrize("ante, bet, simplified", GRID)
def test_closed_form_value_equals_lp_value(solved, ante, bet, simplified):
  # Independent reference: the sequence-form LP (von Stengel 1996) on the pyspiel game.
  _, solution = solved[(ante, bet, simplified)]
  value = kuhn_equilibria.game_value(ante, bet, simplified)
  assert float(value) == pytest.approx(solution.value, abs=1e-12)
  assert kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified).value == value


@pytest.mark.parametrize("ante, bet, simplified", GRID)
def test_closed_form_and_lp_policies_are_equilibria(solved, ante, bet, simplified):
  # Independent reference: OpenSpiel's exploitability (best responses by tree walks).
  game, solution = solved[(ante, bet, simplified)]
  assert exploitability.exploitability(game, solution.policy) < EXACT
  for member in _members(ante, bet, simplified):
    assert exploitability.exploitability(game, member.policy(game)) < EXACT, member


@pytest.mark.parametrize("ante, bet, simplified", GRID)
def test_family_ranges_equal_the_lp_optimal_face(solved, ante, bet, simplified):
  # Every family parameter is a first-move probability (its sequence weight). Its range over all
  # optimal plans of its player (the LP's optimal face) must be exactly [low, high]: the family
  # is the whole set, not a subset.
  _, solution = solved[(ante, bet, simplified)]
  form = sequence_form_lp.sequence_form(solution.tree)
  for param in kuhn_equilibria.family_parameters(ante, bet, simplified):
    player = 0 if len(param.info_state) % 2 == 1 else 1
    seqs = solution.tree.players[player]
    infoset = seqs.infoset_keys.index(param.info_state)
    assert seqs.parent_seq[infoset] == 0
    sequence = int(seqs.seq_start[infoset]) + seqs.legal_actions[infoset].index(1)
    if player == 0:
      args = (form.payoff, form.constraints[0], form.rhs[0], form.constraints[1], form.rhs[1],
              solution.value)
    else:
      args = (-form.payoff.T, form.constraints[1], form.rhs[1], form.constraints[0], form.rhs[0],
              -solution.value)
    low, high = sequence_form_lp.sequence_weight_range(*args, sequence)
    assert low == pytest.approx(float(param.low), abs=1e-6), param
    assert high == pytest.approx(float(param.high), abs=1e-6), param


# Information states where every equilibrium plays the same (module docstring of
# kuhn_equilibria), by regime: there the LP's policy must equal the closed form.
_DETERMINED = {
    (False, "passive"): ("0", "1", "1pb", "0p", "1p", "1b"),
    (False, "passive_edge"): ("0", "1", "2", "1pb", "1p"),
    (False, "p1_bluffs"): ("0", "1", "2", "1pb", "0p"),
    (False, "kuhn"): ("0p", "1b", "1p"),
    (False, "both_bluff"): ("0", "1", "2", "1pb", "0p", "1b"),
    (True, "passive"): ("0", "1", "1b"),
    (True, "passive_edge"): ("1", "1b"),
    (True, "bluffing"): ("0", "1", "2", "1b"),
}


@pytest.mark.parametrize("ante, bet, simplified", GRID)
def test_lp_strategy_equals_closed_form_where_unique(solved, ante, bet, simplified):
  _, solution = solved[(ante, bet, simplified)]
  equilibrium = kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified)
  probs = equilibrium.action_probabilities()
  for key in _DETERMINED.get((simplified, equilibrium.regime), ()):
    assert solution.policy.policy_for_key(key)[1] == pytest.approx(float(probs[key]), abs=1e-7)


def _exact_value(equilibrium):
  """Player 0's expected utility of the strategy profile, exactly, from KuhnRules' payoffs."""
  rules = kuhn_rules.KuhnRules(ante=equilibrium.ante, bet=equilibrium.bet,
                               simplified=equilibrium.simplified)
  probs = equilibrium.action_probabilities()
  def value(cards, history):
    if rules.is_terminal(history):
      return F(rules.returns(history, cards)[0])
    bet = probs[f"{cards[rules.current_player(history)]}{history}"]
    return (1 - bet) * value(cards, history + "p") + bet * value(cards, history + "b")
  return sum(rules.deal_probability() * value(cards, "") for cards in rules.deals())


@pytest.mark.parametrize("ante, bet, simplified", GRID)
def test_value_formula_equals_exact_expected_utility(ante, bet, simplified):
  # Second computation in exact arithmetic: enumerate deals and histories with KuhnRules.
  for member in _members(ante, bet, simplified):
    assert _exact_value(member) == member.value


def test_default_is_kuhn_1950():
  # Kuhn 1950: value -1/18; player 1 bluffs J and calls with Q with probability 1/3.
  equilibrium = kuhn_equilibria.kuhn_equilibrium()
  assert equilibrium.value == F(-1, 18)
  assert equilibrium.regime == "kuhn"
  assert (equilibrium.p1_bluff, equilibrium.p1_call_mid) == (F(1, 3), F(1, 3))
  game = pyspiel.load_game("kuhn_poker")
  assert exploitability.exploitability(game, equilibrium.policy(game)) < EXACT


@pytest.mark.parametrize("alpha", [F(0), F(1, 6), F(1, 3)])
def test_kuhn_alpha_family(alpha):
  # Kuhn 1950: bet J w.p. alpha, K w.p. 3 alpha, call with Q w.p. alpha + 1/3.
  equilibrium = kuhn_equilibria.kuhn_equilibrium(2, 2, p0_bluff=alpha)
  assert equilibrium.p0_bet == (alpha, 0, 3 * alpha)
  assert equilibrium.p0_call_mid == alpha + F(1, 3)
  assert equilibrium.value == F(-2, 18)


@pytest.mark.parametrize("s", [F(1, 2), F(3, 4), F(1), F(2), F(10)])
def test_bluffing_formula_holds_from_s_one_half(s):
  # The simplified game's bluffing regime at ante S, bet 1 (derivation in the docstring of
  # algorithms/exact/kuhn_equilibria.py, from the two indifference conditions p D - b = 0 and
  # 2a - b - q D = 0): p = 1/(1 + 2S), q = (2S - 1)/(1 + 2S), value (2S - 1)/(6 (1 + 2S)),
  # checked here in exact arithmetic; valid for S >= 1/2 only. At S = 1/2 it is the top member of
  # the passive_edge family (p1 in [0, 1/2]), not the default.
  family = {"p0_bluff": 1 / (1 + 2 * s)} if s == F(1, 2) else {}
  equilibrium = kuhn_equilibria.kuhn_equilibrium(s, 1, simplified=True, **family)
  assert equilibrium.p0_bluff == 1 / (1 + 2 * s)
  assert equilibrium.p1_call_mid == (2 * s - 1) / (1 + 2 * s)
  assert equilibrium.value == (2 * s - 1) / (6 * (1 + 2 * s))


@pytest.mark.parametrize("s", [F(1, 100), F(1, 4), F(49, 100)])
def test_small_antes_replace_the_bluffing_formula(s):
  # For S < 1/2 the bluffing formula's q = (2S - 1)/(1 + 2S) is negative; the passive regime has
  # no bluff, no call with Q.
  assert (2 * s - 1) / (1 + 2 * s) < 0
  equilibrium = kuhn_equilibria.kuhn_equilibrium(s, 1, simplified=True)
  assert equilibrium.regime == "passive"
  assert (equilibrium.p0_bluff, equilibrium.p1_call_mid, equilibrium.value) == (0, 0, 0)


def test_inputs_are_exact():
  equilibrium = kuhn_equilibria.kuhn_equilibrium(F(3, 2), 1)
  assert equilibrium.value == F(-1, 24)  # -b^2 / (6 (2a + b)) with a = 3/2, b = 1.
  assert kuhn_equilibria.kuhn_equilibrium(1.5, 1.0).value == equilibrium.value


def test_regimes_partition_the_ratios():
  for simplified in (False, True):
    found = kuhn_equilibria.regimes(simplified)
    assert found[0].low == 0 and found[-1].high is None
    for left, right in zip(found, found[1:]):
      assert left.high == right.low
      assert left.is_point != right.is_point
    for r in _ratios(simplified):
      assert sum(regime.contains(r) for regime in found) == 1


@pytest.mark.parametrize("kwargs, message", [
    (dict(ante=0), "ante must be > 0"),
    (dict(ante=-1), "ante must be > 0"),
    (dict(bet=float("nan")), "bet must be finite"),
    (dict(bet=float("inf")), "bet must be finite"),
    (dict(ante="1"), "ante must be an int, float or Fraction"),
    (dict(ante=True), "ante must be an int, float or Fraction"),
    (dict(p0_bluff=0.5), "p0_bluff = 1/2 outside its range"),
    (dict(p1_call_mid=0.2), r"unknown family parameter\(s\) \['p1_call_mid'\]"),
    (dict(ante=1, bet=2, p1_bluff=F(1, 4), p1_call_mid=F(1, 2)), "must be <= p1_bluff"),
])
def test_bad_input_is_refused(kwargs, message):
  with pytest.raises(ValueError, match=message):
    kuhn_equilibria.kuhn_equilibrium(**kwargs)


def test_policy_refuses_another_game():
  equilibrium = kuhn_equilibria.kuhn_equilibrium(2, 1)
  with pytest.raises(ValueError, match="differ from the equilibrium"):
    equilibrium.policy(pyspiel.load_game("kuhn_poker_ante"))
  with pytest.raises(ValueError, match="differ from the equilibrium"):
    equilibrium.policy(pyspiel.load_game("kuhn_poker"))  # OpenSpiel's: ante = bet = 1.
  for other in ("leduc_poker", "kuhn_poker(players=3)"):
    with pytest.raises(ValueError, match="not a Kuhn poker game"):
      equilibrium.policy(pyspiel.load_game(other))


def test_policy_matches_action_probabilities():
  game = pyspiel.load_game("kuhn_poker_ante", {"ante": 0.75})
  equilibrium = kuhn_equilibria.kuhn_equilibrium(0.75, 1)
  tabular = equilibrium.policy(game)
  for key, p in equilibrium.action_probabilities().items():
    np.testing.assert_array_equal(tabular.policy_for_key(key), [1 - float(p), float(p)])


def test_member_matching_reads_the_family_parameters():
  # Round trip: the member with alpha = 1/6 (Kuhn 1950) is recovered from its own probabilities.
  member = kuhn_equilibria.kuhn_equilibrium(1, 1, p0_bluff=F(1, 6))
  probs = member.action_probabilities()
  assert kuhn_equilibria.member_matching(1, 1, False, probs).family == {"p0_bluff": F(1, 6)}
  # Out of range (floats accepted): clipped to alpha <= 1/3.
  probs["0"] = 0.5
  assert kuhn_equilibria.member_matching(1, 1, False, probs).p0_bluff == F(1, 3)


def test_member_matching_follows_kuhns_relations():
  # Kuhn 1950: with J bluff alpha, player 0 bets K with 3 alpha and calls with Q alpha + 1/3.
  member = kuhn_equilibria.member_matching(1, 1, False, {"0": 0.2}).action_probabilities()
  assert float(member["2"]) == pytest.approx(0.6)
  assert float(member["1pb"]) == pytest.approx(0.2 + 1 / 3)


def test_member_matching_clips_into_the_passive_edge_triangle():
  # passive_edge (a = 1, b = 2): p1_bluff in [0, 1/2], p1_call_mid in [0, p1_bluff].
  member = kuhn_equilibria.member_matching(1, 2, False, {"0p": 0.25, "1b": 0.75})
  assert member.family == {"p1_bluff": F(1, 4), "p1_call_mid": F(1, 4)}


def test_member_matching_needs_the_parameter_states():
  with pytest.raises(ValueError, match="lack information state '0'"):
    kuhn_equilibria.member_matching(1, 1, False, {"1b": 0.3})
