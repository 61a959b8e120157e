"""Tests of experiments.harness.measures and the n-player helpers of experiments.harness.game_loader
and experiments.harness.jobs."""

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import measures
from helpers import uniform_profile_ties


def random_policy(game, seed):
  tabular = policy_lib.TabularPolicy(game)
  rng = np.random.default_rng(seed)
  probs = rng.random(tabular.action_probability_array.shape) * tabular.legal_actions_mask
  tabular.action_probability_array[:] = probs / probs.sum(axis=1, keepdims=True)
  return tabular


@pytest.mark.parametrize("game_string", ["kuhn_poker(players=3)", "kuhn_poker_ante(players=3)",
                                         "kuhn_poker_ante(players=3,ante=2.0,bet=0.5)",
                                         "kuhn_poker(players=4)"])
def test_measures_of_more_players(game_string):
  game = pyspiel.load_game(game_string)
  measure = measures.measure_for(game)
  assert measure.name == measures.NASH_CONV
  # The tree's NashConv against OpenSpiel's exploitability.nash_conv, on random policies.
  for seed in range(2):
    pol = random_policy(game, seed)
    assert measure.ours(pol) == pytest.approx(exploitability.nash_conv(game, pol), abs=1e-10)
    assert measure.openspiel(pol) == exploitability.nash_conv(game, pol)
  if game_string == "kuhn_poker(players=3)":
    # Uniform play (OpenSpiel's nash_conv; the engine's number in test_convergence).
    assert measure.ours(policy_lib.TabularPolicy(game)) == pytest.approx(2.0625, abs=1e-12)


def test_two_player_games_keep_exploitability():
  game = pyspiel.load_game("kuhn_poker")
  measure = measures.measure_for(game)
  assert measure.name == measures.EXPLOITABILITY
  pol = random_policy(game, 0)
  assert measure.ours(pol) == pytest.approx(exploitability.exploitability(game, pol), abs=1e-12)
  assert measures.to_nash_conv(measure.name, 0.25) == 0.5


@pytest.mark.parametrize("game_string", [
    "kuhn_poker", "kuhn_poker(players=3)", "kuhn_poker(players=4)",
    "kuhn_poker_ante(deck_size=5)", "kuhn_poker_ante(players=3,ante=2.0)"])
def test_uniform_profile_ties_match_the_exact_walk(game_string):
  # The float test of the engine's regrets against the exact walk in fractions of the solvers'
  # differential tests.
  game = pyspiel.load_game(game_string)
  assert game_loader.uniform_profile_ties(game) == uniform_profile_ties(game)


def test_python_games_and_solver_refusals():
  assert game_loader.is_python_game(pyspiel.load_game("kuhn_poker_ante(players=3)"))
  assert not game_loader.is_python_game(pyspiel.load_game("kuhn_poker(players=3)"))
  assert jobs.refusal("our_cfr", "kuhn_poker(players=3)") is None
  assert jobs.refusal("cfr_avg", "kuhn_poker(players=3)") is None  # No depth limit: any game.
  assert jobs.refusal("cfr_avg_d1", "kuhn_poker") is None
  assert "has 3 players" in jobs.refusal("cfr_avg_d1", "kuhn_poker(players=3)")
  assert jobs.skip_reason("cfr", "kuhn_poker(players=3)") is None
  assert "too slow" in jobs.skip_reason("cfr", "kuhn_poker_ante(players=3)")
  assert jobs.skip_reason("cs_cfr", "kuhn_poker_ante(players=3)") is None


def test_runs_on_skips_a_default_solver_and_refuses_a_named_one():
  # A default solver is left out where skip_reason names a reason; a named one that refuses the
  # game is a one-line ValueError; one that is merely slow on a Python game still runs if named.
  assert jobs.runs_on("cfr_avg_d1", "kuhn_poker", default_solvers=False)
  assert not jobs.runs_on("cfr_avg_d1", "kuhn_poker(players=3)", default_solvers=True)
  assert not jobs.runs_on("cfr", "kuhn_poker_ante(players=3)", default_solvers=True)
  assert jobs.runs_on("cfr", "kuhn_poker_ante(players=3)", default_solvers=False)
  assert jobs.runs_on("cs_cfr", "kuhn_poker_ante(players=3)", default_solvers=True)
  with pytest.raises(ValueError, match="needs a two-player zero-sum game; .* has 3 players"):
    jobs.runs_on("cfr_avg_d1", "kuhn_poker(players=3)", default_solvers=False)
