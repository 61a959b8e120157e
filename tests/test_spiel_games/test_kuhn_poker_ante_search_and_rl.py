"""OpenSpiel's search and learning interfaces on ``kuhn_poker_ante``: ``resample_from_infostate``,
information-set MCTS (Cowling, Powley and Whitehouse, "Information set Monte Carlo tree search",
IEEE Trans. Computational Intelligence and AI in Games, 2012) and ``rl_environment``.

References: OpenSpiel's C++ ``kuhn_poker(players=N)``, whose ``ResampleFromInfostate`` and whose
states the Python game must match draw for draw given the same random numbers; and the exact
conditional distribution of chance's deal given a player's card (uniform over the deals that
leave the player its card), which is what OpenSpiel's resampling draws from.
"""

import collections

import numpy as np
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.algorithms import get_all_states
from open_spiel.python.algorithms import ismcts
from open_spiel.python.algorithms import mcts
import pyspiel
import pytest

import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games import kuhn_poker_ante

SETTINGS = [
    "kuhn_poker_ante",
    "kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5)",
    "kuhn_poker_ante(ante=1.5,deck_size=5,simplified=True)",
    "kuhn_poker_ante(players=3)",
    "kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5,players=3)",
    "kuhn_poker_ante(deck_size=3,players=3)",
]


def _states(game):
  return get_all_states.get_all_states(game, include_terminals=True, include_chance_states=True,
                                       to_string=lambda s: s.history_str())


def _load_pair(num_players):
  return (pyspiel.load_game("kuhn_poker", {"players": num_players}),
          pyspiel.load_game("kuhn_poker_ante", {"players": num_players}))


# ---------------------------------------------------------------------------------------------
# resample_from_infostate


# Three players with one seed: 1,828 redraws compared, one per state and player (three seeds
# took 2 s here).
@pytest.mark.parametrize("num_players,seeds", [(2, 3), (3, 1),
                                               pytest.param(4, 1, marks=pytest.mark.slow)])
def test_resample_draws_the_same_states_as_cpp_kuhn_from_the_same_numbers(num_players, seeds):
  """Every state after the player's deal, every player: C++ and ours redraw the same cards."""
  cpp, ours = _load_pair(num_players)
  cpp_states, our_states = _states(cpp), _states(ours)
  compared = 0
  for key, cpp_state in cpp_states.items():
    for player in range(min(len(our_states[key].cards), num_players)):
      for seed in range(seeds):
        cpp_numbers, our_numbers = np.random.RandomState(seed), np.random.RandomState(seed)
        cpp_sample = cpp_state.resample_from_infostate(player, cpp_numbers.uniform)
        our_sample = our_states[key].resample_from_infostate(player, our_numbers.uniform)
        assert our_sample.history() == cpp_sample.history(), (key, player, seed)
        assert str(our_sample) == str(cpp_sample)
        # The same count of numbers used (C++ redraws its own card too).
        assert our_numbers.uniform() == cpp_numbers.uniform()
        compared += 1
  assert compared > 100


@pytest.mark.parametrize("game_string", SETTINGS)
def test_resampled_states_keep_the_information_state(game_string):
  game = pyspiel.load_game(game_string)
  numbers = np.random.RandomState(0)
  for state in _states(game).values():
    for player in range(len(state.cards)):
      sample = state.resample_from_infostate(player, numbers.uniform)
      assert isinstance(sample, kuhn_poker_ante.KuhnPokerAnteState)
      assert sample.information_state_string(player) == state.information_state_string(player)
      assert sample.information_state_tensor(player) == state.information_state_tensor(player)
      assert sample.betting == state.betting and sample.cards[player] == state.cards[player]
      assert len(sample.cards) == len(state.cards) == len(set(sample.cards))
      assert sample.current_player() == state.current_player()
      assert sample.move_number() == state.move_number()


@pytest.mark.parametrize("game_string,actions,player", [
    # Three players, five cards: player 1 holds card 2 after "pb" (player 0 passed, 1 bet).
    ("kuhn_poker_ante(ante=2.0,bet=0.5,deck_size=5,players=3)", [4, 2, 0, 0, 1], 1),
    # C++ kuhn_poker(players=3)'s deck; player 2, facing a bet, holds the top card.
    ("kuhn_poker_ante(players=3)", [0, 1, 3, 1], 2),
    # Two players, player 0 after a check and a bet.
    ("kuhn_poker_ante(deck_size=5)", [3, 1, 0, 1], 0),
])
def test_resampled_deals_follow_chance_given_the_own_card(game_string, actions, player):
  """The other cards are drawn from chance's conditional distribution given the player's card:
  uniform over the (n - 1)! / (n - N)! deals of the other cards, whatever the betting; this is
  C++ kuhn_poker's rule (test above), not a posterior under anyone's policy."""
  game = pyspiel.load_game(game_string)
  state = game.new_initial_state()
  for action in actions:
    state.apply_action(action)
  rules = game.rules
  own = state.cards[player]
  consistent = [deal for deal in rules.deals() if deal[player] == own]
  exact = 1 / len(consistent)  # Chance's deals are equally likely (rules.deal_probability()).
  numbers = np.random.RandomState(1)
  num_samples = 400 * len(consistent)
  counts = collections.Counter(tuple(state.resample_from_infostate(player, numbers.uniform).cards)
                               for _ in range(num_samples))
  assert set(counts) == set(consistent)
  # Multinomial counts: each within 5 standard deviations, and Pearson's chi-square below its
  # 0.999 quantile (at most 50.3 for the 23 degrees of freedom of the largest case here).
  sigma = np.sqrt(num_samples * exact * (1 - exact))
  assert all(abs(c - num_samples * exact) < 5 * sigma for c in counts.values())
  chi_square = sum((c - num_samples * exact)**2 / (num_samples * exact) for c in counts.values())
  assert chi_square < 50.3


def test_resample_refuses_a_player_without_a_card_and_bad_numbers():
  state = pyspiel.load_game("kuhn_poker_ante(players=3)").new_initial_state()
  state.apply_action(2)
  with pytest.raises(ValueError, match=r"^player 1 has no card to keep; dealt cards: \[2\]$"):
    state.resample_from_infostate(1, np.random.RandomState(0).uniform)
  state.apply_action(1)
  with pytest.raises(ValueError, match=r"numbers in \[0, 1\), got 1.0"):
    state.resample_from_infostate(1, lambda: 1.0)


# ---------------------------------------------------------------------------------------------
# Information-set MCTS (OpenSpiel's Python ISMCTSBot).


class _ISMCTSBot(ismcts.ISMCTSBot):
  """OpenSpiel's Python ISMCTSBot with ``restart_at``, which ``evaluate_bots`` calls first.

  OpenSpiel 2.0.2's ISMCTSBot does not define it (pyspiel.Bot's default raises "RestartAt(state)
  not implemented", on C++ kuhn_poker as on any game); its search keeps no state between moves
  (``run_search`` resets the tree), so restarting is a no-op.
  """

  def restart_at(self, state):
    del state


def _ismcts_bots(game, seed, resampler_numbers=None):
  bots = []
  for player in range(game.num_players()):
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed + player))
    bot = _ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=60,
                     random_state=np.random.RandomState(seed + 10 + player))
    if resampler_numbers is not None:
      bot.set_resampler(lambda state, player: state.resample_from_infostate(
          player, resampler_numbers.uniform))
    bots.append(bot)
  return bots


@pytest.mark.parametrize("game_string", SETTINGS)
def test_ismcts_plays_every_setting_through_evaluate_bots(game_string):
  """With the bot's own resampler, ``pyspiel.UniformProbabilitySampler`` as in OpenSpiel."""
  game = pyspiel.load_game(game_string)
  rules = game.rules
  bots = _ismcts_bots(game, seed=0)
  rng = np.random.RandomState(0)
  for _ in range(5):
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert len(returns) == game.num_players() and sum(returns) == pytest.approx(0, abs=1e-12)
    assert min(returns) >= -(rules.ante + rules.bet) and max(returns) <= game.max_utility()


@pytest.mark.parametrize("num_players", [2, 3])
def test_ismcts_plays_the_same_hands_as_on_cpp_kuhn(num_players):
  """Seeded bots, rollouts, deals and resampling numbers: identical moves on both games, so
  the searches saw identical trees (resampled worlds, legal actions, returns)."""
  cpp, ours = _load_pair(num_players)
  results = []
  for game in (cpp, ours):
    numbers = np.random.RandomState(5)
    bots = _ismcts_bots(game, seed=1, resampler_numbers=numbers)
    rng = np.random.RandomState(2)
    hands = []
    for _ in range(8):
      state = game.new_initial_state()
      returns = evaluate_bots.evaluate_bots(state, bots, rng)
      hands.append((state.history(), returns))
    results.append(hands)
  assert results[1] == results[0]
  assert len({tuple(history) for history, _ in results[0]}) > 1  # Not one hand replayed.


# ---------------------------------------------------------------------------------------------
# rl_environment


@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("observation_type", [rl_environment.ObservationType.INFORMATION_STATE,
                                              rl_environment.ObservationType.OBSERVATION])
def test_rl_environment_steps_as_on_cpp_kuhn(num_players, observation_type):
  """The same seeds give the same time steps (observations, legal actions, rewards) as on
  C++ kuhn_poker(players=N), and the final rewards are the hand's returns."""
  episodes = []
  for game in _load_pair(num_players):
    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=3),
        observation_type=observation_type)
    assert env.num_players == num_players
    specs = env.observation_spec()
    size = (game.information_state_tensor_size()
            if observation_type == rl_environment.ObservationType.INFORMATION_STATE
            else game.observation_tensor_size())
    assert specs["info_state"] == (size,) and env.action_spec()["num_actions"] == 2
    agent_rng = np.random.RandomState(4)
    steps = []
    for _ in range(20):
      time_step = env.reset()
      while True:
        steps.append((time_step.step_type, time_step.rewards, time_step.discounts,
                      time_step.observations["info_state"],
                      time_step.observations["legal_actions"],
                      time_step.observations["current_player"]))
        if time_step.last():
          assert time_step.rewards == env.get_state.returns()
          break
        player = time_step.observations["current_player"]
        time_step = env.step([agent_rng.choice(time_step.observations["legal_actions"][player])])
    episodes.append(steps)
  cpp_steps, our_steps = episodes
  assert len(our_steps) == len(cpp_steps)
  for ours, cpp in zip(our_steps, cpp_steps):
    assert ours[:3] == cpp[:3] and ours[4:] == cpp[4:]
    for our_tensor, cpp_tensor in zip(ours[3], cpp[3]):
      np.testing.assert_array_equal(our_tensor, cpp_tensor)


def test_rl_environment_loads_the_game_by_name_with_settings():
  env = rl_environment.Environment("kuhn_poker_ante", players=3, ante=2.0)
  assert env.num_players == 3 and env.game.rules.ante == 2.0
  time_step = env.reset()
  assert time_step.observations["current_player"] == 0
  assert [len(legal) for legal in time_step.observations["legal_actions"]] == [2, 0, 0]

