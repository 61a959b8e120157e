"""Tests of algorithms.exact.exact_nash_conv: exact values, best responses and NashConv against
OpenSpiel's float implementation (``exploitability.nash_conv``, ``expected_game_score``) on
random rational profiles, and against Kuhn's closed-form two-player equilibria (Kuhn 1950)."""

import fractions
import random

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.exact import exact_nash_conv
from algorithms.exact import kuhn_equilibria

F = fractions.Fraction
TOLERANCE = 1e-12


def random_profile(tree, seed):
  """A random profile with small-denominator probabilities at every information state."""
  rng = random.Random(seed)
  profile = {}
  for player in range(tree.num_players):
    for key in tree.information_states(player):
      weights = [rng.randint(0, 7) for _ in range(2)]
      if sum(weights) == 0:
        weights = [1, 0]
      profile[key] = {a: F(w, sum(weights)) for a, w in enumerate(weights)}
  return profile


def as_tabular(game, profile):
  tabular = policy_lib.TabularPolicy(game)
  for key, row in profile.items():
    for action, p in row.items():
      tabular.policy_for_key(key)[action] = float(p)
  return tabular


# Four players take about 1 s per profile (OpenSpiel's Python best responses): the quick subset
# keeps one random profile there, three with two and three players.
@pytest.mark.parametrize("game_string, seed", [
    *((game_string, seed) for game_string in ("kuhn_poker", "kuhn_poker(players=3)")
      for seed in (0, 1, 2)),
    ("kuhn_poker(players=4)", 0),
    *(pytest.param("kuhn_poker(players=4)", seed, marks=pytest.mark.slow) for seed in (1, 2))])
def test_gains_and_values_equal_openspiel_on_random_profiles(game_string, seed):
  # Independent reference: OpenSpiel's Python best response and policy evaluation (floats).
  game = pyspiel.load_game(game_string)
  tree = exact_nash_conv.ExactGameTree(game)
  profile = random_profile(tree, seed)
  certificate = tree.certificate(profile)
  tabular = as_tabular(game, profile)
  reference = exploitability.nash_conv(game, tabular, return_only_nash_conv=False)
  values = expected_game_score.policy_value(game.new_initial_state(),
                                            [tabular] * game.num_players())
  assert [float(g) for g in certificate.gains] == pytest.approx(
      list(reference.player_improvements), abs=TOLERANCE)
  assert float(certificate.nash_conv) == pytest.approx(reference.nash_conv, abs=TOLERANCE)
  assert [float(v) for v in certificate.values] == pytest.approx(list(values), abs=TOLERANCE)
  assert certificate.nash_conv > 0  # Random profiles are not equilibria.


@pytest.mark.parametrize("alpha", [F(0), F(1, 6), F(1, 3)])
def test_kuhn_two_player_equilibria_have_nash_conv_exactly_zero(alpha):
  # Kuhn (1950): player 0 bluffs J w.p. alpha in [0, 1/3]; value -1/18 for player 0.
  game = pyspiel.load_game("kuhn_poker")
  member = kuhn_equilibria.kuhn_equilibrium(p0_bluff=alpha)
  profile = {key: {0: 1 - p, 1: p} for key, p in member.action_probabilities().items()}
  certificate = exact_nash_conv.ExactGameTree(game).certificate(profile)
  assert certificate.nash_conv == 0
  assert certificate.is_equilibrium
  assert certificate.values == (F(-1, 18), F(1, 18))


def test_dominated_deviation_has_exact_positive_gain():
  # Player 1 calls a bet with J against Kuhn's equilibrium with alpha = 1/3 (player 0 always bets
  # K). With J, player 1 faces K's bet in 1/3 * 1/2 = 1/6 of the deals and loses 2 instead of 1
  # there; the rest of its strategy is already a best response, so its gain is exactly 1/6.
  game = pyspiel.load_game("kuhn_poker")
  member = kuhn_equilibria.kuhn_equilibrium(p0_bluff=F(1, 3))
  profile = {key: {0: 1 - p, 1: p} for key, p in member.action_probabilities().items()}
  profile["0b"] = {0: F(0), 1: F(1)}
  certificate = exact_nash_conv.ExactGameTree(game).certificate(profile)
  assert certificate.gains[1] == F(1, 6)
  reference = exploitability.nash_conv(game, as_tabular(game, profile),
                                       return_only_nash_conv=False)
  assert [float(g) for g in certificate.gains] == pytest.approx(
      list(reference.player_improvements), abs=TOLERANCE)


def test_exact_fraction_recovers_simple_fractions_and_refuses_others():
  assert exact_nash_conv.exact_fraction(1 / 3, "p") == F(1, 3)
  assert exact_nash_conv.exact_fraction(0.25, "p") == F(1, 4)
  assert exact_nash_conv.exact_fraction(-2.0, "r") == F(-2)
  with pytest.raises(ValueError, match="not a fraction with denominator"):
    exact_nash_conv.exact_fraction(3.141592653589793, "p")


def test_chance_probabilities_of_kuhn_are_exact():
  tree = exact_nash_conv.ExactGameTree(pyspiel.load_game("kuhn_poker(players=3)"))
  root_probs = [p for _, p, _ in tree.children[0]]
  assert root_probs == [F(1, 4)] * 4
  second = tree.children[0][0][2]
  assert [p for _, p, _ in tree.children[second]] == [F(1, 3)] * 3


def test_bad_profiles_raise_one_line_errors():
  tree = exact_nash_conv.ExactGameTree(pyspiel.load_game("kuhn_poker"))
  profile = {key: {0: F(1, 2), 1: F(1, 2)}
             for p in range(2) for key in tree.information_states(p)}
  missing = dict(profile)
  del missing["0pb"]
  with pytest.raises(ValueError, match="no probabilities for information state '0pb'"):
    tree.certificate(missing)
  with pytest.raises(ValueError, match="sum to 3/4, not 1"):
    tree.certificate({**profile, "1": {0: F(1, 2), 1: F(1, 4)}})
  with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
    tree.certificate({**profile, "1": {0: F(3, 2), 1: F(-1, 2)}})
  with pytest.raises(ValueError, match="outside the legal"):
    tree.certificate({**profile, "1": {0: F(1), 2: F(0)}})
  with pytest.raises(ValueError, match=r"player must be in \[0, 2\)"):
    tree.best_response_value(profile, 2)


def test_unsupported_games_and_size_limit_raise():
  with pytest.raises(ValueError, match="not sequential"):
    exact_nash_conv.ExactGameTree(pyspiel.load_game("matrix_rps"))
  with pytest.raises(ValueError, match="more than max_nodes = 10 nodes"):
    exact_nash_conv.ExactGameTree(pyspiel.load_game("kuhn_poker"), max_nodes=10)
