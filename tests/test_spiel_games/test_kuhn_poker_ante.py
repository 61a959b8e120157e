"""Tests of the pyspiel game ``kuhn_poker_ante`` (spiel_games/kuhn_poker_ante.py).

Independent references: OpenSpiel's C++ ``kuhn_poker(players=N)`` (walked in lockstep over every
state for N = 2, 3, 4 and along random hands up to N = 10, with the other parameters at their
defaults), Kuhn's game value -1/18 (Kuhn 1950), the value of the simplified game derived in
``test_game_value_within_nash_conv_of_closed_form``, payoffs worked out by hand from the rules,
and two implementations of each evaluation (C++ and Python best response / NashConv).
"""

import itertools
import math
import multiprocessing
import pickle

import numpy as np
from open_spiel.python import observation as observation_lib
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
from open_spiel.python.algorithms import external_sampling_mccfr
from open_spiel.python.algorithms import get_all_states
from open_spiel.python.algorithms import outcome_sampling_mccfr
import pyspiel
import pytest

from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

# Both rule sets, deck sizes 2, 3 and 5, chip amounts that are not whole or not 1; three
# players with OpenSpiel's deck, a larger one and a deck with no card left over.
SETTINGS = [
    "kuhn_poker_ante",
    "kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5)",
    "kuhn_poker_ante(deck_size=2)",
    "kuhn_poker_ante(simplified=True)",
    "kuhn_poker_ante(ante=0.5,bet=1.5,deck_size=2,simplified=True)",
    "kuhn_poker_ante(ante=1.5,deck_size=5,simplified=True)",
    "kuhn_poker_ante(players=3)",
    "kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5,players=3)",
    "kuhn_poker_ante(deck_size=3,players=3)",
]
PRIVATE = pyspiel.PrivateInfoType
# Every observation type the C++ kuhn_poker answers with cards (private info NONE or own card).
CPP_OBSERVATION_TYPES = [None] + [
    pyspiel.IIGObservationType(perfect_recall=recall, public_info=public, private_info=private)
    for recall, public, private in itertools.product(
        [False, True], [False, True], [PRIVATE.NONE, PRIVATE.SINGLE_PLAYER])]


def iig_id(iig_type) -> str:
  """A test id naming the fields (the type's ``str`` is its address, which differs from process
  to process, and parallel test processes must collect the same ids)."""
  if iig_type is None:
    return "default"
  return (f"recall={iig_type.perfect_recall},public={iig_type.public_info},"
          f"private={iig_type.private_info.name}")


PUBLIC_STATE_TYPE = pyspiel.IIGObservationType(
    perfect_recall=True, public_info=True, private_info=PRIVATE.NONE)
KUHN_VALUE = -1 / 18  # Player 0's equilibrium value, Kuhn 1950.


def all_states(game):
  return get_all_states.get_all_states(
      game, include_terminals=True, include_chance_states=True, to_string=lambda s: s.history_str())


def _load_pair(num_players):
  """C++ kuhn_poker and ours with ``num_players`` players (the default game string for 2)."""
  if num_players == 2:
    return pyspiel.load_game("kuhn_poker"), pyspiel.load_game("kuhn_poker_ante")
  return (pyspiel.load_game(f"kuhn_poker(players={num_players})"),
          pyspiel.load_game(f"kuhn_poker_ante(players={num_players})"))


# The walk of 4 players (7,886 states, about 1 s per test) is slow: the quick subset walks 2 and 3
# players, and follows random hands of 4 and 10 players in lockstep with the same comparisons
# (test_random_hands_match_cpp_kuhn_up_to_ten_players).
@pytest.fixture(scope="module", params=[2, 3, pytest.param(4, marks=pytest.mark.slow)],
                ids=lambda n: f"players={n}")
def cpp_and_ours(request):
  cpp, ours = _load_pair(request.param)
  return cpp, ours, all_states(cpp), all_states(ours)


def _num_states(rules):
  """Chance states (partial deals) plus every deal times every betting history.

  With N players and n cards there are n! / (n - k)! partial deals of k < N cards. The standard
  rules have 1 + N 2^N betting histories: N runs of passes "p"^k (k < N) before any bet, "p"^N,
  and for each of the N first-bet positions the bet followed by j answers, 2^j for j < N
  (module docstring of spiel_games/kuhn_rules.py); the simplified rules have 5: "", p, b, bp, bb.
  """
  n, num = rules.deck_size, rules.num_players
  num_histories = 5 if rules.simplified else 1 + num * 2**num
  return sum(math.perm(n, k) for k in range(num)) + math.perm(n, num) * num_histories


def _state_facts(state):
  """Everything a user of OpenSpiel's API can ask a state (except observers), as plain data."""
  player = state.current_player()
  players = range(state.num_players())
  return dict(
      str=str(state), history=state.history(), history_str=state.history_str(),
      current_player=player, is_terminal=state.is_terminal(), is_chance=state.is_chance_node(),
      move_number=state.move_number(), returns=state.returns(),
      rewards=None if state.is_chance_node() else state.rewards(),
      chance_outcomes=state.chance_outcomes() if state.is_chance_node() else None,
      legal_actions=state.legal_actions(),
      action_strings=[state.action_to_string(player, a) for a in state.legal_actions()],
      info_strings=[state.information_state_string(p) for p in players],
      info_tensors=[state.information_state_tensor(p) for p in players],
      obs_strings=[state.observation_string(p) for p in players],
      obs_tensors=[state.observation_tensor(p) for p in players])


def _assert_observations_match(cpp_obs, our_obs, cpp_state, our_state, key):
  for player in range(cpp_state.num_players()):
    cpp_obs.set_from(cpp_state, player)
    our_obs.set_from(our_state, player)
    np.testing.assert_array_equal(our_obs.tensor, cpp_obs.tensor, err_msg=key)
    assert (our_obs.string_from(our_state, player)
            == cpp_obs.string_from(cpp_state, player)), (key, player)


# ---------------------------------------------------------------------------------------------
# With players=N and the other parameters at their defaults the game is C++ kuhn_poker(players=N).


@pytest.mark.parametrize("num_players", range(2, 11))
def test_game_level_methods_match_cpp_kuhn(num_players):
  cpp, ours = _load_pair(num_players)
  for method in ["num_distinct_actions", "max_chance_outcomes", "num_players", "min_utility",
                 "max_utility", "utility_sum", "max_game_length", "max_chance_nodes_in_history",
                 "max_history_length", "max_move_number", "information_state_tensor_shape",
                 "observation_tensor_shape", "policy_tensor_shape"]:
    assert getattr(ours, method)() == getattr(cpp, method)(), method
  cpp_type, our_type = cpp.get_type(), ours.get_type()
  for field in ["dynamics", "chance_mode", "information", "utility", "reward_model",
                "max_num_players", "min_num_players",
                "provides_information_state_string", "provides_information_state_tensor",
                "provides_observation_string", "provides_observation_tensor",
                "provides_factored_observation_string"]:
    assert getattr(our_type, field) == getattr(cpp_type, field), field


def test_every_state_matches_cpp_kuhn(cpp_and_ours):
  cpp, ours, cpp_states, our_states = cpp_and_ours
  assert list(our_states) == list(cpp_states)
  assert len(our_states) == _num_states(ours.rules)  # 58, 617, 7886 for 2, 3, 4 players.
  for key, cpp_state in cpp_states.items():
    assert _state_facts(our_states[key]) == _state_facts(cpp_state), key


@pytest.mark.parametrize("iig_type", CPP_OBSERVATION_TYPES, ids=iig_id)
def test_every_observation_matches_cpp_kuhn(cpp_and_ours, iig_type):
  cpp, ours, cpp_states, our_states = cpp_and_ours
  cpp_obs = observation_lib.make_observation(cpp, iig_type)
  our_obs = observation_lib.make_observation(ours, iig_type)
  assert {k: v.shape for k, v in our_obs.dict.items()} == {
      k: v.shape for k, v in cpp_obs.dict.items()}
  for key, cpp_state in cpp_states.items():
    _assert_observations_match(cpp_obs, our_obs, cpp_state, our_states[key], key)


# 5 to 9 players are slow (0.4-1.1 s each): the code has no case per number of players, and the
# quick subset keeps 2 to 4 and 10 (the two-digit card).
@pytest.mark.parametrize("num_players", [2, 3, 4, *(pytest.param(n, marks=pytest.mark.slow)
                                                    for n in range(5, 10)), 10])
def test_random_hands_match_cpp_kuhn_up_to_ten_players(num_players):
  """Spot checks where the full walk is too large (10 players: 11! deals): every state along
  random hands, with every observation type, including the two-digit card 10 of 10 players."""
  cpp, ours = _load_pair(num_players)
  observations = [(observation_lib.make_observation(cpp, iig_type),
                   observation_lib.make_observation(ours, iig_type))
                  for iig_type in CPP_OBSERVATION_TYPES]
  rng = np.random.RandomState(num_players)
  for _ in range(20):
    cpp_state, our_state = cpp.new_initial_state(), ours.new_initial_state()
    while True:
      key = cpp_state.history_str()
      assert _state_facts(our_state) == _state_facts(cpp_state), key
      for cpp_obs, our_obs in observations:
        _assert_observations_match(cpp_obs, our_obs, cpp_state, our_state, key)
      if cpp_state.is_terminal():
        break
      action = rng.choice(cpp_state.legal_actions())
      cpp_state.apply_action(action)
      our_state.apply_action(action)


def test_ten_players_concatenate_the_card_10_as_cpp_kuhn():
  cpp, ours = _load_pair(10)
  # Player 0 holds 10 and bets; players 1 to 8 fold, player 9 calls.
  actions = [10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1] + [0] * 8 + [1]
  cpp_state, our_state = cpp.new_initial_state(), ours.new_initial_state()
  for action in actions:
    cpp_state.apply_action(action)
    our_state.apply_action(action)
  assert our_state.information_state_string(0) == "10bppppppppb"
  assert our_state.observation_string(0) == "10" + "2111111112"  # Card, then chips in the pot.
  assert _state_facts(our_state) == _state_facts(cpp_state)
  # Spaces come back where numbers of several players' cards would otherwise run together.
  all_cards = observation_lib.make_observation(ours, pyspiel.IIGObservationType(
      perfect_recall=True, public_info=True, private_info=PRIVATE.ALL_PLAYERS))
  assert all_cards.string_from(our_state, 0) == "10 0 1 2 3 4 5 6 7 8 bppppppppb"


@pytest.mark.parametrize("alpha", [0.0, 1 / 6, 1 / 3])
def test_kuhn_optimal_policies_apply_unchanged(alpha):
  game = pyspiel.load_game("kuhn_poker_ante")
  optimal = pyspiel.kuhn_poker.get_optimal_policy(alpha)  # An equilibrium for alpha in [0, 1/3].
  assert abs(pyspiel.exploitability(game, optimal)) < 1e-12
  python_policy = policy_lib.pyspiel_policy_to_python_policy(game, optimal)
  assert abs(exploitability.nash_conv(game, python_policy)) < 1e-12
  values = expected_game_score.policy_value(game.new_initial_state(), [python_policy] * 2)
  np.testing.assert_allclose(values, [KUHN_VALUE, -KUHN_VALUE], atol=1e-12)


@pytest.mark.parametrize("num_players", [2, 3])
def test_tabular_policy_of_cpp_kuhn_gives_same_values_on_ours(num_players):
  cpp, ours = _load_pair(num_players)
  tabular = policy_lib.TabularPolicy(cpp)
  rng = np.random.RandomState(7)
  tabular.action_probability_array[:] = rng.dirichlet([1, 1], size=len(tabular.states))
  profile = [tabular] * num_players
  expected = expected_game_score.policy_value(cpp.new_initial_state(), profile)
  got = expected_game_score.policy_value(ours.new_initial_state(), profile)
  np.testing.assert_array_equal(got, expected)
  assert exploitability.nash_conv(ours, tabular) == exploitability.nash_conv(cpp, tabular)


@pytest.mark.parametrize("num_players", [2, 3])
def test_cpp_cfr_average_policy_is_the_same_as_on_cpp_kuhn(num_players):
  """10 iterations of C++ CFR; measured difference 0 for 2 and 3 players (4 players take 5 s).

  From the second iteration on the average holds regret matching of the first iteration's values
  at every information set, so a difference in any state's returns, chance probabilities,
  legal actions or information-state string shows after 10 iterations as after 50 (2.3 s for 3
  players here)."""
  cpp, ours = _load_pair(num_players)
  solvers = [pyspiel.CFRSolver(cpp), pyspiel.CFRSolver(ours)]
  for _ in range(10):
    for solver in solvers:
      solver.evaluate_and_update_policy()
  cpp_table, our_table = (s.tabular_average_policy().policy_table() for s in solvers)
  assert sorted(our_table) == sorted(cpp_table)
  # (N + 1) cards times N 2^(N - 1) decision histories.
  assert len(our_table) == (num_players + 1) * num_players * 2**(num_players - 1)
  for info_state, cpp_probs in cpp_table.items():
    np.testing.assert_allclose(our_table[info_state], cpp_probs, rtol=0, atol=1e-14)
  cpp_policy, our_policy = (s.tabular_average_policy() for s in solvers)
  # Three evaluations of NashConv agree: C++ on C++ kuhn_poker, C++ and Python on ours.
  cpp_nash_conv = pyspiel.nash_conv(cpp, cpp_policy)
  assert pyspiel.nash_conv(ours, our_policy) == pytest.approx(cpp_nash_conv, abs=1e-12)
  python_policy = policy_lib.pyspiel_policy_to_python_policy(ours, our_policy)
  assert exploitability.nash_conv(ours, python_policy) == pytest.approx(cpp_nash_conv, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Other parameters.


@pytest.mark.parametrize("params,cards,betting,expected", [
    # Worked out by hand from the rules: a fold loses the folder's chips in the pot, a showdown
    # wins the loser's chips.
    (dict(ante=2.0, bet=3.0), (0, 2), "pp", (-2.0, 2.0)),
    (dict(ante=2.0, bet=3.0), (0, 2), "bp", (2.0, -2.0)),
    (dict(ante=2.0, bet=3.0), (2, 0), "pbp", (-2.0, 2.0)),
    (dict(ante=2.0, bet=3.0), (2, 0), "pbb", (5.0, -5.0)),
    (dict(ante=2.0, bet=3.0, deck_size=5), (1, 4), "bb", (-5.0, 5.0)),
    (dict(ante=0.5, bet=1.5, deck_size=2, simplified=True), (1, 0), "p", (0.5, -0.5)),
    (dict(ante=0.5, bet=1.5, deck_size=2, simplified=True), (0, 1), "p", (-0.5, 0.5)),
    (dict(ante=0.5, bet=1.5, deck_size=2, simplified=True), (0, 1), "bp", (0.5, -0.5)),
    (dict(ante=0.5, bet=1.5, deck_size=2, simplified=True), (0, 1), "bb", (-2.0, 2.0)),
    # Three players: after a bet every other player answers once; the highest card among the
    # bettor and the callers wins everyone's chips.
    (dict(players=3), (0, 1, 2), "ppp", (-1.0, -1.0, 2.0)),
    (dict(players=3), (2, 1, 0), "bpp", (2.0, -1.0, -1.0)),
    (dict(players=3), (0, 1, 2), "pbpb", (-2.0, 3.0, -1.0)),  # Player 1 bets, 0 calls, 2 folds.
    # Player 2 bets, 0 and 1 call; player 0's card 3 takes 5 chips from each.
    (dict(players=3, ante=2.0, bet=3.0), (3, 0, 2), "ppbbb", (10.0, -5.0, -5.0)),
    # Player 3 bets, 0 folds, 1 calls, 2 folds; player 1's card 1 beats player 3's card 0, the
    # folded cards 5 and 4 do not play: player 1 wins 0.5 + 0.5 + 2.
    (dict(players=4, ante=0.5, bet=1.5, deck_size=6), (5, 1, 4, 0), "pppbpbp",
     (-0.5, 3.0, -0.5, -2.0)),
])
def test_returns_worked_out_by_hand(params, cards, betting, expected):
  game = pyspiel.load_game("kuhn_poker_ante", {**kuhn_poker_ante.DEFAULT_PARAMS, **params})
  state = game.new_initial_state()
  for action in list(cards) + ["pb".index(c) for c in betting]:
    assert not state.is_terminal()
    state.apply_action(action)
  assert state.is_terminal()
  assert state.returns() == list(expected)


@pytest.mark.parametrize("game_string", SETTINGS + ["kuhn_poker_ante(ante=0.5,bet=1.5,players=4)",
                                                    "kuhn_poker_ante(deck_size=4,players=4)"])
def test_game_info_is_exact(game_string):
  game = pyspiel.load_game(game_string)
  states = all_states(game).values()
  terminals = [s for s in states if s.is_terminal()]
  returns = [r for s in terminals for r in s.returns()]
  rules = game.rules
  num_players = rules.num_players
  assert game.num_players() == num_players
  # A caller who loses loses ante + bet; a winner called by everyone wins N - 1 times that.
  assert game.min_utility() == min(returns) == -(rules.ante + rules.bet)
  assert game.max_utility() == max(returns) == (num_players - 1) * (rules.ante + rules.bet)
  assert all(sum(s.returns()) == 0 for s in terminals) and game.utility_sum() == 0
  assert game.max_game_length() == max(len(s.history()) - num_players for s in terminals)
  assert game.max_chance_nodes_in_history() == num_players == min(
      len(s.history()) - len(s.betting) for s in terminals)
  assert game.max_chance_outcomes() == max(len(s.chance_outcomes())
                                           for s in states if s.is_chance_node())
  assert game.max_chance_outcomes() == rules.deck_size
  assert game.num_distinct_actions() == 2
  assert len(states) == _num_states(rules)


@pytest.mark.parametrize("game_string", SETTINGS)
def test_chance_deals_uniformly_without_replacement(game_string):
  game = pyspiel.load_game(game_string)
  n = game.rules.deck_size
  root = game.new_initial_state()
  assert root.chance_outcomes() == [(c, 1 / n) for c in range(n)]
  root.apply_action(n - 1)
  assert root.chance_outcomes() == [(c, 1 / (n - 1)) for c in range(n - 1)]


@pytest.mark.parametrize("players", [2, 3])
def test_scaling_ante_and_bet_scales_returns_only(players):
  """Multiplying ante and bet by k multiplies every return by k and changes no string."""
  k = 2.5
  base = pyspiel.load_game(f"kuhn_poker_ante(deck_size=4,players={players})")
  scaled = pyspiel.load_game(f"kuhn_poker_ante(ante=2.5,bet=2.5,deck_size=4,players={players})")
  base_states, scaled_states = all_states(base), all_states(scaled)
  assert list(base_states) == list(scaled_states)
  n = players  # The observation tensor ends with the N pot contributions.
  for key, state in base_states.items():
    other = scaled_states[key]
    assert other.returns() == [k * r for r in state.returns()]
    for p in range(players):
      assert other.information_state_string(p) == state.information_state_string(p)
      assert other.information_state_tensor(p) == state.information_state_tensor(p)
      base_obs, scaled_obs = state.observation_tensor(p), other.observation_tensor(p)
      assert scaled_obs[:-n] == base_obs[:-n] and scaled_obs[-n:] == [k * x for x in base_obs[-n:]]


@pytest.mark.parametrize("game_string,info_shape,obs_shape", [
    ("kuhn_poker_ante(deck_size=5)", [2 + 5 + 3 * 2], [2 + 5 + 2]),
    ("kuhn_poker_ante(simplified=True)", [2 + 3 + 2 * 2], [2 + 3 + 2]),
    ("kuhn_poker_ante(deck_size=2,simplified=True)", [2 + 2 + 2 * 2], [2 + 2 + 2]),
    # N players: N + cards + (2 N - 1) x 2 betting, N + cards + N contributions.
    ("kuhn_poker_ante(deck_size=6,players=3)", [3 + 6 + 5 * 2], [3 + 6 + 3]),
    ("kuhn_poker_ante(players=10)", [10 + 11 + 19 * 2], [10 + 11 + 10]),
])
def test_tensor_shapes_widen_with_deck_and_length(game_string, info_shape, obs_shape):
  game = pyspiel.load_game(game_string)
  assert game.information_state_tensor_shape() == info_shape
  assert game.observation_tensor_shape() == obs_shape


def test_strings_show_real_chip_amounts():
  state = pyspiel.load_game("kuhn_poker_ante(ante=2.0,bet=1.0)").new_initial_state()
  for action in [2, 0, 1]:
    state.apply_action(action)
  assert str(state) == "2 0 b"
  assert state.information_state_string(0) == "2b"
  assert state.observation_string(0) == "232"  # Card 2, then 3 and 2 chips in the pot.
  state = pyspiel.load_game("kuhn_poker_ante(ante=1.5,deck_size=12)").new_initial_state()
  for action in [11, 0, 1]:
    state.apply_action(action)
  assert state.information_state_string(0) == "11 b"
  assert state.observation_string(1) == "0 2.5 1.5"
  np.testing.assert_array_equal(state.observation_tensor(1)[-2:], [2.5, 1.5])
  # Three players: one contribution each; a two-digit card of a larger deck brings the spaces.
  state = pyspiel.load_game("kuhn_poker_ante(ante=2.0,deck_size=12,players=3)").new_initial_state()
  for action in [3, 10, 0, 0, 1, 0]:
    state.apply_action(action)
  assert str(state) == "3 10 0 pbp"
  assert state.information_state_string(0) == "3pbp"
  assert state.observation_string(0) == "3232"  # Card 3; 2, 3 and 2 chips from players 0, 1, 2.
  assert state.observation_string(1) == "10 2 3 2"


@pytest.mark.parametrize("game_string", SETTINGS + [
    # Two-digit cards and chip amounts, where plain concatenation would be ambiguous:
    # card 1 with 11 + 1 chips and card 11 with 1 + 1 chips would both read "1111".
    "kuhn_poker_ante(ante=1.0,bet=10.0,deck_size=12)"])
@pytest.mark.parametrize("iig_type", [None, pyspiel.IIGObservationType(perfect_recall=True)],
                         ids=["observation", "information_state"])
def test_observation_strings_and_tensors_determine_each_other(game_string, iig_type):
  game = pyspiel.load_game(game_string)
  observation = observation_lib.make_observation(game, iig_type)
  string_to_tensor, tensor_to_string = {}, {}
  for state in all_states(game).values():
    for player in range(game.num_players()):
      observation.set_from(state, player)
      # The tensor holds the observing player, the string does not.
      string = (player, observation.string_from(state, player))
      tensor = tuple(observation.tensor)
      assert string_to_tensor.setdefault(string, tensor) == tensor, string
      assert tensor_to_string.setdefault(tensor, string) == string, string


# ---------------------------------------------------------------------------------------------
# Factored observations.


@pytest.mark.parametrize("game_string", SETTINGS)
def test_public_observation_identifies_the_public_state(game_string):
  game = pyspiel.load_game(game_string)
  observation = observation_lib.make_observation(game, PUBLIC_STATE_TYPE)
  assert observation.tensor.shape == (game.max_game_length() * 2,)
  public_state_of_string = {}
  for state in all_states(game).values():
    strings = {observation.string_from(state, p) for p in range(game.num_players())}
    assert len(strings) == 1  # Public: the same for every player.
    string = strings.pop()
    if state.betting:
      assert string == state.betting
    public_state = (len(state.cards), state.betting)
    assert public_state_of_string.setdefault(string, public_state) == public_state, string
  # One public state per number of cards dealt before the betting, then one per betting history
  # (counted in _num_states).
  num_players = game.num_players()
  num_betting_histories = 5 if game.rules.simplified else 1 + num_players * 2**num_players
  assert len(public_state_of_string) == num_players + num_betting_histories


@pytest.mark.parametrize("game_string", SETTINGS)
def test_private_observation_is_the_own_card(game_string):
  game = pyspiel.load_game(game_string)
  recall = observation_lib.make_observation(game, pyspiel.IIGObservationType(
      perfect_recall=True, public_info=False, private_info=PRIVATE.SINGLE_PLAYER))
  no_recall = observation_lib.make_observation(game, pyspiel.IIGObservationType(
      perfect_recall=False, public_info=False, private_info=PRIVATE.SINGLE_PLAYER))
  n = game.rules.deck_size
  for state in all_states(game).values():
    for player in range(game.num_players()):
      has_card = len(state.cards) > player
      card = state.cards[player] if has_card else None
      assert recall.string_from(state, player) == (str(card) if has_card else "")
      just_dealt = has_card and len(state.cards) == player + 1 and not state.betting
      assert no_recall.string_from(state, player) == (
          f"Received card {card}" if just_dealt else "")
      recall.set_from(state, player)
      np.testing.assert_array_equal(recall.dict["private_card"],
                                    np.eye(n)[card] if has_card else np.zeros(n))


@pytest.mark.parametrize("game_string,actions,string", [
    ("kuhn_poker_ante(deck_size=4)", [3, 1, 0, 1], "31pb"),
    ("kuhn_poker_ante(players=3)", [3, 1, 0, 0, 1], "310pb"),
])
def test_all_players_private_information_shows_every_card(game_string, actions, string):
  game = pyspiel.load_game(game_string)
  observation = observation_lib.make_observation(game, pyspiel.IIGObservationType(
      perfect_recall=True, public_info=True, private_info=PRIVATE.ALL_PLAYERS))
  state = game.new_initial_state()
  for action in actions:
    state.apply_action(action)
  num_players = game.num_players()
  betting = np.zeros((2 * num_players - 1, 2))
  betting[[0, 1], [0, 1]] = 1  # Pass, then bet.
  for player in range(num_players):
    observation.set_from(state, player)
    assert observation.string_from(state, player) == string
    np.testing.assert_array_equal(observation.dict["private_cards"],
                                  np.eye(4)[actions[:num_players]])
    np.testing.assert_array_equal(observation.dict["betting"], betting)


@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(ante=2.0,deck_size=4,simplified=True)",
                                         "kuhn_poker_ante(ante=0.5,deck_size=5,players=3)"])
@pytest.mark.parametrize("iig_type", CPP_OBSERVATION_TYPES, ids=iig_id)
def test_observers_made_through_cpp_match_the_python_observer(iig_type, game_string):
  """C++ code asks ``Game::MakeObserver``, which pyspiel forwards to ``make_py_observer``."""
  game = pyspiel.load_game(game_string)
  cpp_observer = (game.make_observer({}) if iig_type is None
                  else game.make_observer(iig_type, {}))
  # The wrapper make_observation() uses for C++ games.
  through_cpp = observation_lib._Observation(game, cpp_observer)  # pylint: disable=protected-access
  python = observation_lib.make_observation(game, iig_type)
  assert list(through_cpp.dict) == list(python.dict)
  for state in all_states(game).values():
    for player in range(game.num_players()):
      through_cpp.set_from(state, player)
      python.set_from(state, player)
      np.testing.assert_array_equal(through_cpp.tensor, python.tensor)
      assert through_cpp.string_from(state, player) == python.string_from(state, player)


def test_observer_parameters_are_rejected():
  game = pyspiel.load_game("kuhn_poker_ante")
  with pytest.raises(ValueError, match="no parameters"):
    observation_lib.make_observation(game, None, {"card_names": True})


# ---------------------------------------------------------------------------------------------
# Parameters.


def test_rules_attribute_exposes_the_variant():
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5,simplified=True)")
  assert game.rules == KuhnRules(ante=2.0, bet=0.5, deck_size=5, simplified=True)
  assert pyspiel.load_game("kuhn_poker_ante").rules == KuhnRules()


@pytest.mark.parametrize("params,message", [
    ({"ante": 0.0}, r"'ante' must be a finite number > 0 \(e.g. ante=2.0\), got 0.0"),
    ({"ante": -1.0}, r"'ante' must be a finite number > 0"),
    ({"ante": float("inf")}, r"'ante' must be a finite number > 0 .*got inf"),
    ({"bet": 0.0}, r"'bet' must be a finite number > 0"),
    ({"bet": float("nan")}, r"'bet' must be a finite number > 0 .*got nan"),
    ({"deck_size": 1}, r"'deck_size' must be an integer >= 2, got 1 \(each of the 2 players is "
                       r"dealt a card; -1, the default, means players \+ 1\)$"),
    ({"deck_size": -3}, r"'deck_size' must be an integer >= 2, got -3"),
    ({"deck_size": 2, "players": 3},
     r"'deck_size' must be an integer >= 3, got 2 \(each of the 3 "),
    ({"players": 1}, r"'players' must be an integer from 2 to 10, got 1$"),
    ({"players": 11}, r"'players' must be an integer from 2 to 10, got 11$"),
    ({"players": 3, "simplified": True}, r"'simplified' must be false with players=3 \(the "
                                         r"simplified rules are defined for 2 players only\)$"),
])
def test_bad_values_fail_at_load_game_with_one_clear_message(params, message):
  with pytest.raises(ValueError, match=r"^kuhn_poker_ante: parameter " + message):
    pyspiel.load_game("kuhn_poker_ante", params)


@pytest.mark.parametrize("game_string,players,deck_size", [
    ("kuhn_poker_ante", 2, 3),
    ("kuhn_poker_ante(players=2)", 2, 3),  # kuhn_poker accepts an explicit players=2 too.
    ("kuhn_poker_ante(players=3)", 3, 4),  # The deck follows the players, as kuhn_poker's.
    ("kuhn_poker_ante(players=10)", 10, 11),
    ("kuhn_poker_ante(deck_size=-1,players=4)", 4, 5),
    ("kuhn_poker_ante(deck_size=3,players=3)", 3, 3),  # Every card dealt.
    ("kuhn_poker_ante(deck_size=7,players=3)", 3, 7),
])
def test_players_and_deck_size_resolve_and_round_trip(game_string, players, deck_size):
  game = pyspiel.load_game(game_string)
  assert (game.num_players(), game.rules.num_players, game.rules.deck_size) == (
      players, players, deck_size)
  expected = dict(ante=1.0, bet=1.0, deck_size=deck_size, players=players, simplified=False)
  assert game.get_parameters() == expected
  assert str(game) == (f"kuhn_poker_ante(ante=1.0,bet=1.0,deck_size={deck_size},"
                       f"players={players},simplified=False)")
  for copy in (pyspiel.load_game(str(game)), pickle.loads(pickle.dumps(game)),
               pyspiel.deserialize_game_and_state(
                   pyspiel.serialize_game_and_state(game, game.new_initial_state()))[0]):
    assert copy.get_parameters() == expected and copy.rules == game.rules


@pytest.mark.parametrize("game_string,message", [
    # pyspiel checks names and types against parameter_specification before the game is built.
    ("kuhn_poker_ante(antes=2.0)", "Unknown parameter 'antes'. Available parameters are: "
     "ante, bet, deck_size, players, simplified"),
    ("kuhn_poker_ante(players=3.0)", "Wrong type for parameter players. Expected type: kInt"),
    ("kuhn_poker_ante(deck_size=2.5)", "Wrong type for parameter deck_size. Expected type: kInt"),
    ("kuhn_poker_ante(simplified=1)", "Wrong type for parameter simplified. Expected type: kBool"),
    ("kuhn_poker_ante(bet=big)", "Wrong type for parameter bet. Expected type: kDouble"),
    # An int for a float parameter: pyspiel's strict type check rejects it, so users write 2.0.
    ("kuhn_poker_ante(ante=2)", "Wrong type for parameter ante. Expected type: kDouble, got kInt"),
])
def test_unknown_names_and_wrong_types_are_rejected_by_pyspiel(game_string, message):
  with pytest.raises(pyspiel.SpielError) as error:
    pyspiel.load_game(game_string)
  assert str(error.value).startswith(message)


def test_int_ante_is_accepted_when_the_game_is_built_directly():
  game = kuhn_poker_ante.KuhnPokerAnteGame({"ante": 2, "deck_size": np.int64(4)})
  assert game.rules == KuhnRules(ante=2.0, deck_size=4)
  assert str(game) == str(pyspiel.load_game("kuhn_poker_ante(ante=2.0,deck_size=4)"))


@pytest.mark.parametrize("params,message", [
    ({"antes": 2.0},
     "unknown parameter 'antes'; allowed: ante, bet, deck_size, players, simplified"),
    ({"players": 3.0}, "parameter 'players' must be an integer from 2 to 10, got 3.0"),
    ({"players": True}, "parameter 'players' must be an integer from 2 to 10, got True"),
    ({"ante": True}, "parameter 'ante' must be a finite number > 0"),
    ({"ante": "2"}, "parameter 'ante' must be a finite number > 0"),
    ({"deck_size": 3.0}, "parameter 'deck_size' must be an integer >= 2"),
    ({"simplified": 1}, "parameter 'simplified' must be true or false, got 1"),
])
def test_rules_from_params_rejects_what_pyspiel_would(params, message):
  with pytest.raises(ValueError, match=message):
    kuhn_poker_ante.rules_from_params(params)


def test_rules_from_params_names_the_calling_game():
  # A game built on these rules (kuhn_poker_referee) reports bad values as its own, in one line.
  with pytest.raises(ValueError, match=r"^kuhn_poker_referee: parameter 'deck_size' must be an "
                                       r"integer >= 2, got 1 \(each of the 2 players"):
    kuhn_poker_ante.rules_from_params({"deck_size": 1}, game_name="kuhn_poker_referee")


def test_illegal_actions_raise():
  state = pyspiel.load_game("kuhn_poker_ante").new_initial_state()
  with pytest.raises(ValueError, match=r"cannot deal card 3: the undealt cards are \[0, 1, 2\]"):
    state.apply_action(3)
  state.apply_action(1)
  with pytest.raises(ValueError, match="cannot deal card 1"):
    state.apply_action(1)
  state.apply_action(0)
  with pytest.raises(ValueError, match=r"action must be 0 \(pass\) or 1 \(bet\), got 2"):
    state.apply_action(2)
  state.apply_action(1)
  state.apply_action(0)
  with pytest.raises(ValueError, match="cannot apply action 1: the hand 1 0 bp is over"):
    state.apply_action(1)


# ---------------------------------------------------------------------------------------------
# OpenSpiel machinery: simulation, serialization, pickling.


@pytest.mark.parametrize("game_string", SETTINGS)
def test_random_sim_test_with_serialization(game_string):
  pyspiel.random_sim_test(pyspiel.load_game(game_string), num_sims=10, serialize=True,
                          verbose=False)


# The largest setting (three players, five cards: 1.3 s) slow: three players and five cards are
# checked quick in SETTINGS[6], [8] and [1].
@pytest.mark.parametrize("game_string", [
    pytest.param(game_string, marks=pytest.mark.slow) if game_string == SETTINGS[7]
    else game_string for game_string in SETTINGS])
def test_serialize_and_pickle_round_trip_every_state(game_string):
  game = pyspiel.load_game(game_string)
  unpickled_game = pickle.loads(pickle.dumps(game))
  assert str(unpickled_game) == str(game) and unpickled_game.rules == game.rules
  for state in all_states(game).values():
    text = pyspiel.serialize_game_and_state(game, state)
    game_copy, state_copy = pyspiel.deserialize_game_and_state(text)
    assert str(game_copy) == str(game)
    for other in (state_copy, pickle.loads(pickle.dumps(state))):
      assert isinstance(other, kuhn_poker_ante.KuhnPokerAnteState)
      assert _state_facts(other) == _state_facts(state)


def _terminal_returns(game_and_actions):
  game, actions = game_and_actions
  state = game.new_initial_state()
  for action in actions:
    state.apply_action(action)
  return state.returns()


def test_games_cross_process_boundaries():
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5)")
  three = pyspiel.load_game("kuhn_poker_ante(ante=2.0,bet=0.5,players=3)")
  hands = [(game, (4, 0, 0, 1, 1)), (game, (0, 4, 1, 0)), (three, (1, 3, 0, 1, 0, 1))]
  with multiprocessing.get_context("spawn").Pool(2) as pool:
    results = pool.map(_terminal_returns, hands)
  # Showdown won by card 4; fold by player 1; player 2 calls player 0's bet with the low card.
  assert results == [[2.5, -2.5], [2.0, -2.0], [4.5, -2.0, -2.5]]


# ---------------------------------------------------------------------------------------------
# OpenSpiel algorithms.


@pytest.mark.parametrize("game_string,value", [
    ("kuhn_poker_ante", KUHN_VALUE),
    # Scaling ante and bet by 2 scales every payoff by 2 (test above), hence the value.
    ("kuhn_poker_ante(ante=2.0,bet=2.0)", 2 * KUHN_VALUE),
    # Simplified rules, ante S, bet 1, 3 cards: player 0 bets the top card, passes the middle
    # one and bluffs the bottom one with p = 1 / (1 + 2S); player 1 calls with the middle card
    # with q = (2S - 1) / (2S + 1) (each makes the other indifferent: the derivation in
    # algorithms/exact/kuhn_equilibria.py). Player 0 then wins S + q / 2 with the top card on
    # average, 0 with the middle one and loses S with the bottom one: value q / 6 for S >= 1/2.
    ("kuhn_poker_ante(simplified=True)", (2 - 1) / (6 * (2 + 1))),
    ("kuhn_poker_ante(ante=2.0,simplified=True)", (4 - 1) / (6 * (4 + 1))),
    # Two cards: the high card wins the antes whatever is played (value 0 by symmetry).
    ("kuhn_poker_ante(deck_size=2)", 0.0),
    ("kuhn_poker_ante(ante=0.5,bet=1.5,deck_size=2,simplified=True)", 0.0),
])
def test_game_value_within_nash_conv_of_closed_form(game_string, value):
  """C++ CFR: for any profile, |value of player 0 - game value| <= NashConv."""
  game = pyspiel.load_game(game_string)
  solver = pyspiel.CFRSolver(game)
  for _ in range(150):
    solver.evaluate_and_update_policy()
  average = solver.average_policy()
  nash_conv = pyspiel.nash_conv(game, average)
  # CFR's NashConv shrinks like 1/sqrt(T) (Zinkevich et al. 2007). In chips, so the bound scales
  # with the stakes; measured after 150 iterations: 0.0065 (ante + bet) for default Kuhn and
  # its doubling, at most 0.0052 (ante + bet) for the others. The bound only needs to keep the
  # value check below meaningful.
  assert nash_conv < 0.015 * game.max_utility()
  value_0 = pyspiel.expected_returns(game.new_initial_state(), average, -1, True)[0]
  assert abs(value_0 - value) <= nash_conv


# Three players on four and five cards slow (1.4 and 3.4 s): three players are checked quick on
# three cards (SETTINGS[8]), five cards with two players.
@pytest.mark.parametrize("game_string", [
    pytest.param(game_string, marks=pytest.mark.slow) if game_string in SETTINGS[6:8]
    else game_string for game_string in SETTINGS])
def test_cpp_and_python_evaluations_agree(game_string):
  """CFR+ (C++), then NashConv and best responses in C++ and in Python."""
  game = pyspiel.load_game(game_string)
  solver = pyspiel.CFRPlusSolver(game)
  for _ in range(20):
    solver.evaluate_and_update_policy()
  cpp_policy = solver.tabular_average_policy()
  python_policy = policy_lib.pyspiel_policy_to_python_policy(game, cpp_policy)
  cpp_nash_conv = pyspiel.nash_conv(game, cpp_policy)
  root = game.new_initial_state()
  players = range(game.num_players())
  cpp_br = [pyspiel.TabularBestResponse(game, p, cpp_policy).value(root.history_str())
            for p in players]
  py_br = [best_response.BestResponsePolicy(game, p, python_policy).value(root)
           for p in players]
  np.testing.assert_allclose(py_br, cpp_br, atol=1e-12)
  assert exploitability.nash_conv(game, python_policy) == pytest.approx(cpp_nash_conv, abs=1e-12)
  assert sum(cpp_br) == pytest.approx(cpp_nash_conv, abs=1e-12)  # Zero-sum: NashConv = sum BR.
  values = expected_game_score.policy_value(root, [python_policy] * game.num_players())
  cpp_values = pyspiel.expected_returns(root, cpp_policy, -1, True)
  np.testing.assert_allclose(values, cpp_values, atol=1e-12)


@pytest.mark.parametrize("num_players,expected", [
    (2, 11 / 12),  # As in OpenSpiel's kuhn_poker_test.
    (3, 33 / 16),  # NashConv of C++ kuhn_poker(players=3), checked below.
])
def test_uniform_policy_nash_conv_is_known(num_players, expected):
  cpp, game = _load_pair(num_players)
  assert pyspiel.nash_conv(cpp, pyspiel.UniformRandomPolicy(cpp)) == pytest.approx(
      expected, abs=1e-12)
  assert exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game)) == pytest.approx(
      expected, abs=1e-12)
  assert pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game)) == pytest.approx(
      expected, abs=1e-12)


# External sampling on every setting; outcome sampling (1-2.3 s per setting) on Kuhn's game in
# the quick subset, on the others slow: the same solver on the same game code.
@pytest.mark.parametrize("kind,game_string,value", [
    (kind, game_string, value) if kind == "external" or game_string == "kuhn_poker_ante"
    else pytest.param(kind, game_string, value, marks=pytest.mark.slow)
    for game_string, value in [
        ("kuhn_poker_ante", KUHN_VALUE),
        ("kuhn_poker_ante(ante=2.0,simplified=True)", 0.1),  # Closed form above.
        ("kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5)", None),
        ("kuhn_poker_ante(players=3)", None)]
    for kind in ("external", "outcome")])
def test_python_mccfr_converges(kind, game_string, value):
  solver_class, iterations = {
      "external": (external_sampling_mccfr.ExternalSamplingSolver, 1000),
      "outcome": (outcome_sampling_mccfr.OutcomeSamplingSolver, 3000)}[kind]
  game = pyspiel.load_game(game_string)
  np.random.seed(1)
  uniform_nash_conv = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
  solver = solver_class(game)
  for _ in range(iterations):
    solver.iteration()
  average = solver.average_policy()
  nash_conv = exploitability.nash_conv(game, average)
  # MCCFR converges to an equilibrium in two-player zero-sum games (Lanctot et al. 2009); these
  # seeded runs reach at most 0.11 of the uniform policy's NashConv (measured), so a bound of 0.2
  # catches a failure to converge without depending on the luck of the sampling. With three
  # players there is no such guarantee, but the runs reach 0.04 (external) and 0.12 (outcome).
  assert nash_conv < 0.2 * uniform_nash_conv
  if value is not None:
    value_0 = expected_game_score.policy_value(game.new_initial_state(), [average] * 2)[0]
    assert abs(value_0 - value) <= nash_conv


@pytest.mark.parametrize("game_string", SETTINGS[:3] + SETTINGS[6:7])
def test_python_cfr_plus_equals_cpp_cfr_plus(game_string):
  """Two implementations of CFR+ (Tammelin 2014) give the same average policy."""
  game = pyspiel.load_game(game_string)
  python_solver, cpp_solver = cfr.CFRPlusSolver(game), pyspiel.CFRPlusSolver(game)
  for _ in range(10):
    python_solver.evaluate_and_update_policy()
    cpp_solver.evaluate_and_update_policy()
  python_table = python_solver.average_policy()
  for info_state, probs in cpp_solver.tabular_average_policy().policy_table().items():
    row = python_table.policy_for_key(info_state)
    np.testing.assert_allclose(row, [p for _, p in probs], atol=1e-12, err_msg=info_state)


@pytest.mark.parametrize("make_solver,iterations", [
    (lambda game: pyspiel.ExternalSamplingMCCFRSolver(game, 5), 1000),
    (lambda game: pyspiel.OutcomeSamplingMCCFRSolver(game, 0.6, 5), 3000),
], ids=["external", "outcome"])
# Three players (SETTINGS[7], 1.5 s per solver) slow: the C++ solvers run on our three-player game
# quick in test_cpp_cfr_average_policy_is_the_same_as_on_cpp_kuhn and
# test_cpp_and_python_evaluations_agree, and MCCFR converges on it in test_python_mccfr_converges.
@pytest.mark.parametrize("game_string", [SETTINGS[1], SETTINGS[5],
                                         pytest.param(SETTINGS[7], marks=pytest.mark.slow)])
def test_cpp_mccfr_converges(make_solver, iterations, game_string):
  game = pyspiel.load_game(game_string)
  uniform_nash_conv = pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game))
  solver = make_solver(game)
  for _ in range(iterations):
    solver.run_iteration()
  # As in the Python MCCFR test above: these runs reach at most 0.09 of the uniform NashConv
  # (three players, no guarantee: 0.06 external, 0.08 outcome).
  assert pyspiel.nash_conv(game, solver.average_policy()) < 0.2 * uniform_nash_conv


@pytest.mark.parametrize("game_string", SETTINGS)
def test_random_bots_average_the_uniform_policy_value(game_string):
  game = pyspiel.load_game(game_string)
  rules = game.rules
  num_players = game.num_players()
  exact = expected_game_score.policy_value(
      game.new_initial_state(), [policy_lib.UniformRandomPolicy(game)] * num_players)[0]
  bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(num_players)]
  rng = np.random.RandomState(3)
  returns = np.array([evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
                      for _ in range(400)])
  np.testing.assert_array_equal(returns.sum(axis=1), 0)
  # Player 0 loses its ante, or ante and bet; or wins the others' antes and j of their bets.
  wins = {(num_players - 1) * rules.ante + j * rules.bet for j in range(num_players)}
  assert set(returns[:, 0]) <= {-rules.ante, -(rules.ante + rules.bet)} | wins
  standard_error = returns[:, 0].std() / np.sqrt(len(returns))
  assert abs(returns[:, 0].mean() - exact) < 4 * standard_error


def test_rules_of_names_the_variant_of_kuhn_games_only():
  # kuhn_poker's rules are Kuhn (1950)'s: ante 1, bet 1, three cards, standard betting; with N
  # players N + 1 cards.
  rules_of = kuhn_poker_ante.rules_of
  assert rules_of(pyspiel.load_game("kuhn_poker")) == KuhnRules()
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0,deck_size=4,simplified=True)")
  assert rules_of(game) == KuhnRules(ante=2.0, bet=1.0, deck_size=4, simplified=True)
  assert rules_of(pyspiel.load_game("leduc_poker")) is None
  assert rules_of(pyspiel.load_game("leduc_poker"), num_players=None) is None
  # Two players unless asked otherwise: the two-player tools see no Kuhn game in these.
  three_cpp = pyspiel.load_game("kuhn_poker(players=3)")
  three_ours = pyspiel.load_game("kuhn_poker_ante(deck_size=3,players=3)")
  assert rules_of(three_cpp) is None and rules_of(three_ours) is None
  assert rules_of(three_cpp, num_players=None) == KuhnRules(deck_size=4, num_players=3)
  assert rules_of(three_ours, num_players=3) == KuhnRules(deck_size=3, num_players=3)
  assert rules_of(three_ours, num_players=2) is None
