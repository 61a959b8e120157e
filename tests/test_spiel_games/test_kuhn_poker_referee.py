"""Tests of the public-referee game spiel_games/kuhn_poker_referee.py.

References: the closed-form equilibria of algorithms/exact/kuhn_equilibria.py (Kuhn 1950 for the
standard game, value -1/18; for the simplified game p1 = 1/(1+2S), p2 = (2S-1)/(1+2S), value
(2S-1)/(6(1+2S)) with S = ante/bet, derived in that module's docstring); OpenSpiel's own
kuhn_poker as an independent implementation of the base game.
"""

from fractions import Fraction
import itertools
import pickle
import random

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import mcts
from open_spiel.python.bots import uniform_random
import pyspiel
import pytest

from algorithms.exact import kuhn_equilibria
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games import kuhn_poker_referee as referee
from spiel_games.kuhn_rules import KuhnRules
from spiel_games.public_belief_state import PublicBeliefState

F = Fraction


def _load(**params):
  return pyspiel.load_game("kuhn_poker_referee", params)


def profile_value_exact(rules, profile):
  """Player 0's exact value when every decision announces profile[history], via PBS updates."""

  def value(pbs):
    if pbs.is_terminal:
      return pbs.expected_returns()[0]
    total = F(0)
    for action, p in enumerate(pbs.action_probabilities(profile[pbs.history])):
      if p:
        total += p * value(pbs.update(profile[pbs.history], action)[0])
    return total

  return value(PublicBeliefState.initial(rules))


def profile_value_states(game, profile):
  """The same value through the pyspiel states: announcements, referee outcomes, returns."""

  def value(state):
    if state.is_terminal():
      return state.returns()[0]
    if state.is_chance_node():
      total = 0.0
      for action, p in state.chance_outcomes():
        child = state.clone()
        child.apply_action(action)
        total += p * value(child)
      return total
    child = state.clone()
    child.apply_action(referee.encode_policy(profile[state.pbs.history], game.grid))
    return value(child)

  return value(game.new_initial_state())


def equilibrium_profile(equilibrium):
  """Announcement of each public history in a closed-form equilibrium (kuhn_equilibria)."""
  profile = {"": equilibrium.p0_bet, "b": equilibrium.p1_call}
  if not equilibrium.simplified:
    profile.update({"p": equilibrium.p1_bet, "pb": equilibrium.p0_call})
  return profile


def test_game_type_and_info():
  game = _load()
  game_type = game.get_type()
  assert game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
  assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
  assert game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
  assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
  assert game_type.reward_model == pyspiel.GameType.RewardModel.TERMINAL
  # (grid + 1) ** deck_size = 4 ** 3 announcements; referee outcomes pass and bet.
  assert game.num_distinct_actions() == 64
  assert game.max_chance_outcomes() == 2
  assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-2.0, 2.0, 0.0)
  # Decisions pass/bet/bet (pbb); each followed by one referee move.
  assert game.max_game_length() == 3 and game.max_history_length() == 6
  simplified = _load(simplified=True, grid=5, ante=2.0)
  assert simplified.num_distinct_actions() == 216
  assert (simplified.min_utility(), simplified.max_utility()) == (-3.0, 3.0)
  assert simplified.max_game_length() == 2
  assert _load(deck_size=4, grid=2).num_distinct_actions() == 81
  assert str(game) == ("kuhn_poker_referee(ante=1.0,bet=1.0,deck_size=3,grid=3,players=2,"
                       "simplified=False)")
  assert str(_load(players=2)) == str(game)  # An explicit players=2 is the default game.
  assert game.rules == KuhnRules() and game.grid == 3


@pytest.mark.parametrize("params, message", [
    ({"grid": 0}, "parameter 'grid' must be an integer >= 1, got 0"),
    ({"deck_size": 1}, "parameter 'deck_size' must be an integer >= 2, got 1"),
    # Two-player only, although it shares kuhn_poker_ante's parameters (players=2 is accepted).
    ({"players": 3}, r"parameter 'players' must be 2 \(the public-referee game is two-player\), "
                     r"got 3$"),
    ({"players": 11}, r"parameter 'players' must be an integer from 2 to 10, got 11$"),
    ({"ante": 0.0}, r"parameter 'ante' must be a finite number > 0 \(e.g. ante=2.0\), got 0.0"),
    ({"bet": -1.0}, r"parameter 'bet' must be a finite number > 0 \(e.g. bet=2.0\), got -1.0"),
    ({"grid": 10, "deck_size": 5}, r"\(grid\+1\)\*\*deck_size = 11\*\*5 = 161051 announcements "
                                   "per decision exceeds the limit 100000"),
])
def test_bad_parameters_fail_at_load_with_one_line_naming_this_game(params, message):
  # The base game's parameters are reported as this game's: no "base game kuhn_poker_ante" prefix.
  with pytest.raises(ValueError, match=r"^kuhn_poker_referee: " + message) as error:
    _load(**params)
  assert "\n" not in str(error.value) and "kuhn_poker_ante" not in str(error.value)


def test_announcement_encoding():
  grid, n = 3, 3
  table = referee.announcement_table(grid, n)
  assert table.shape == (64, 3)
  for action in range(64):
    numerators = referee.decode_announcement(action, grid, n)
    assert tuple(table[action]) == numerators
    assert referee.encode_announcement(numerators, grid) == action
  # Card 0 (J) is the least significant digit in base grid + 1.
  assert referee.encode_announcement([1, 0, 3], grid) == 1 + 3 * 16
  assert referee.encode_policy([F(1, 3), 0, 1], grid) == 49
  with pytest.raises(ValueError, match="not on the grid of step 1/3"):
    referee.encode_policy([F(1, 2), 0, 1], grid)
  with pytest.raises(ValueError, match=r"announcement must be in \[0, 64\)"):
    referee.decode_announcement(64, grid, n)


def test_action_strings_and_chance_outcomes():
  game = _load()
  state = game.new_initial_state()
  assert state.current_player() == 0
  assert state.action_to_string(0, 49) == "bet: J=1/3 Q=0 K=1"
  state.apply_action(49)
  assert state.is_chance_node()
  # P(bet) = (1/3)(1/3) + (1/3)(1) = 4/9 (hand computation, see test_public_belief_state).
  outcomes = dict(state.chance_outcomes())
  assert outcomes == pytest.approx({0: 5 / 9, 1: 4 / 9}, abs=1e-15)
  assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "Referee: Bet"
  state.apply_action(1)
  assert state.current_player() == 1
  assert state.action_to_string(1, 63) == "call: J=1 Q=1 K=1"
  # After the bet player 0 holds J or K only; calling with J and K only: P(call) is
  # P(player 1 holds J or K) = 3/8 + 1/8 (see test_public_belief_state), fold otherwise.
  state.apply_action(referee.encode_announcement([3, 0, 3], 3))
  assert dict(state.chance_outcomes()) == pytest.approx({0: 1 / 2, 1: 1 / 2}, abs=1e-15)
  assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "Referee: Fold"


def test_zero_probability_referee_outcomes_are_left_out():
  state = _load().new_initial_state()
  state.apply_action(referee.encode_announcement([3, 3, 3], 3))  # Always bet.
  assert state.chance_outcomes() == [(1, 1.0)]
  state = _load().new_initial_state()
  state.apply_action(0)  # Never bet.
  assert state.chance_outcomes() == [(0, 1.0)]
  with pytest.raises(ValueError, match="probability zero"):
    state.apply_action(1)


def test_observation_is_the_whole_state():
  game = _load()
  state = game.new_initial_state()
  for action in [49, 0, 63, 1]:  # bet J=1/3 K=1 -> pass; bet everything -> bet.
    state.apply_action(action)
  expected = ("history=pb belief[JQ=1/5 JK=1/5 QJ=3/10 QK=3/10 KJ=0 KQ=0] announced "
              "[bet: J=1/3 Q=0 K=1] -> p [bet: J=1 Q=1 K=1] -> b")
  assert str(state) == expected
  for player in (0, 1):
    assert state.observation_string(player) == expected
    assert state.information_state_string(player) == expected
  tensor = np.array(state.observation_tensor(0))
  assert tensor.shape == (3 * 2 + 3 + 3 * 3 + 6,)
  assert np.array_equal(tensor, state.information_state_tensor(1))
  betting, announced, announcements, belief = np.split(tensor, [6, 9, 18])
  assert list(betting) == [1, 0, 0, 1, 0, 0]
  assert list(announced) == [1, 1, 0]
  np.testing.assert_allclose(announcements, [1 / 3, 0, 1, 1, 1, 1, 0, 0, 0], atol=1e-7)
  np.testing.assert_allclose(belief, [0.2, 0.2, 0.3, 0.3, 0, 0], atol=1e-7)


@pytest.mark.parametrize("spec", [
    "kuhn_poker_referee(grid=2)",
    "kuhn_poker_referee(simplified=True,grid=5,ante=2.0)",
    "kuhn_poker_referee(deck_size=4,grid=1,bet=2.0)",
])
def test_random_sim_with_serialization(spec):
  pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=10, serialize=True, verbose=False)


def test_pickle_and_serialization_round_trip():
  game = _load(simplified=True, grid=5, ante=2.0)
  assert str(pickle.loads(pickle.dumps(game))) == str(game)
  state = game.new_initial_state()
  for action in [100, 1, 7]:
    state.apply_action(action)
  new_game, new_state = pyspiel.deserialize_game_and_state(
      pyspiel.serialize_game_and_state(game, state))
  assert str(new_game) == str(game) and str(new_state) == str(state)
  assert new_state.history() == [100, 1, 7]
  copy = pickle.loads(pickle.dumps(state))
  assert str(copy) == str(state) and copy.chance_outcomes() == state.chance_outcomes()


@pytest.mark.parametrize("simplified, ante, grid, family", [
    (False, 1, 3, {"p0_bluff": F(0)}),      # Kuhn's alpha = 0 ...
    (False, 1, 3, {"p0_bluff": F(1, 3)}),   # ... and alpha = 1/3: value -1/18 (Kuhn 1950).
    (False, 1, 6, {"p0_bluff": F(1, 6)}),   # alpha = 1/6 needs sixths.
    (True, 1, 3, {}),                       # p1 = p2 = 1/3, value 1/18.
    (True, 2, 5, {}),                       # p1 = 1/5, p2 = 3/5, value 1/10.
])
def test_announcing_an_equilibrium_reproduces_the_base_game_value(simplified, ante, grid,
                                                                    family):
  # Closed forms of algorithms/exact/kuhn_equilibria.py (Kuhn 1950; the module's own derivation
  # for the simplified game), played as announcements through the referee game.
  equilibrium = kuhn_equilibria.kuhn_equilibrium(ante, 1, simplified, **family)
  profile = equilibrium_profile(equilibrium)
  game = _load(simplified=simplified, ante=float(ante), grid=grid)
  assert profile_value_exact(game.rules, profile) == equilibrium.value
  assert profile_value_states(game, profile) == pytest.approx(float(equilibrium.value), abs=1e-12)


def test_referee_value_of_any_profile_matches_openspiel_kuhn_poker():
  # The referee game with fixed announcements is the base game under the same behaviour policy:
  # compare with OpenSpiel's own kuhn_poker and expected_game_score (independent code).
  kuhn = pyspiel.load_game("kuhn_poker")
  game = _load(grid=3)
  rng = random.Random(0)
  for _ in range(8):
    profile = {h: tuple(F(rng.randint(0, 3), 3) for _ in range(3))
               for h in game.rules.decision_histories()}
    tabular = policy_lib.TabularPolicy(kuhn)
    for info_state, row in tabular.state_lookup.items():
      p_bet = float(profile[info_state[1:]][int(info_state[0])])
      tabular.action_probability_array[row] = [1 - p_bet, p_bet]
    reference = expected_game_score.policy_value(kuhn.new_initial_state(), [tabular] * 2)[0]
    assert float(profile_value_exact(game.rules, profile)) == pytest.approx(reference, abs=1e-12)
    assert profile_value_states(game, profile) == pytest.approx(reference, abs=1e-12)


def test_mcts_plays_full_games_against_random():
  # OpenSpiel's MCTS (random rollouts) against a uniform random bot, both seats, fixed seeds.
  game = _load(simplified=True, grid=3)
  mcts_returns = []
  for seed, seat in itertools.product(range(10), (0, 1)):
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=100,
                       evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng,
                       solve=False)
    other = uniform_random.UniformRandomBot(1 - seat, rng)
    bots = [bot, other] if seat == 0 else [other, bot]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert returns[0] + returns[1] == pytest.approx(0.0, abs=1e-12)
    assert game.min_utility() <= returns[0] <= game.max_utility()
    mcts_returns.append(returns[seat])
  # Searching beats announcing at random: the searching player comes out ahead on average.
  assert np.mean(mcts_returns) > 0
