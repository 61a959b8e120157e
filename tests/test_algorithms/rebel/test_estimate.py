"""Tests of the estimate of ReBeL's agent's exploitability from sampled draws
(algorithms/rebel/agent/estimate.py, behaviour.mixed_plans).

References: the exact enumeration (``behaviour.behaviour_strategy``, itself tested against
OpenSpiel's CFR and Monte-Carlo play in test_agent.py); OpenSpiel's
``expected_game_score.policy_value`` (the exact value of the fixed responses against the
enumerated behaviour, computed on the game's states, independently of the project's arrays),
``exploitability.exploitability`` and ``best_response.BestResponsePolicy``. Where enumeration is
feasible (small T) the estimate's interval must cover the exact value; the coverage of the 95%
interval measured over seeds 0-399 on ``kuhn_poker`` at lookahead 1, T = 100 is 378/400.
"""

import numpy as np
from open_spiel.python.algorithms import best_response
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.cfr import tree_passes
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import mixed_plans
from algorithms.rebel.agent.behaviour import plan_to_policy
from algorithms.rebel.agent.behaviour import search_count
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.agent.estimate import estimate_exploitability
from algorithms.rebel.agent.estimate import estimate_search_count
from algorithms.rebel.agent.estimate import response_exploitability
from algorithms.rebel.leaves.forest import ForestCFRLeafSolver
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

KUHN = "kuhn_poker"
ANTE = "kuhn_poker_ante(ante=2.0)"
ROUNDING = 1e-12  # Sums of a few hundred products of numbers in [0, 1]: float64 rounding.


def _agent(game_string, lookahead, iterations, weighting="uniform"):
  # A cache keeps the searches between the estimates of one test (seeds, replicates).
  return ReBeLAgent(pyspiel.load_game(game_string), lookahead=lookahead, iterations=iterations,
                    weighting=weighting, cache_size=100_000)


def _exact_response_value(agent, behaviour, responses):
  """e(b; X) by OpenSpiel: the responses against the enumerated behaviour, on the game's states."""
  game = agent.game
  mine, theirs = tabular_policy(agent, responses), tabular_policy(agent, behaviour.policy)
  root = game.new_initial_state()
  v0 = expected_game_score.policy_value(root, [mine, theirs])[0]
  v1 = expected_game_score.policy_value(root, [theirs, mine])[1]
  return (v0 + v1 - game.utility_sum()) / 2


@pytest.mark.parametrize("game_string,lookahead,iterations,exact_levels", [
    (KUHN, 1, 10, 1), (KUHN, 1, 10, 0), (ANTE, 2, 10, 0)])
def test_interval_covers_the_exact_value(game_string, lookahead, iterations, exact_levels):
  # Reference: OpenSpiel's value of the estimate's fixed responses against the enumerated
  # behaviour. Seed 0, 95% interval; the interval's low end is below OpenSpiel's exploitability
  # of the enumerated behaviour (a lower bound for any fixed response).
  agent = _agent(game_string, lookahead, iterations)
  exact = behaviour_strategy(agent)
  estimate = estimate_exploitability(agent, replicates=30, exact_levels=exact_levels, seed=0)
  value = _exact_response_value(agent, exact, estimate.responses)
  assert estimate.interval[0] <= value <= estimate.interval[1]
  assert estimate.interval[0] <= exploitability.exploitability(
      agent.game, tabular_policy(agent, exact.policy))
  assert estimate.standard_error > 0  # Sampled draws: a real interval, not a point.


def test_coverage_over_seeds():
  # Coverage of the 95% interval over seeds 0-19 (kuhn_poker, lookahead 1, T = 10): at least 16
  # of 20 intervals cover the exact e(b^; X) (P(at most 15 | p = 0.95) = 3e-4); measured over
  # seeds 0-199: 189/200.
  agent = _agent(KUHN, 1, 10)
  exact = behaviour_strategy(agent)
  covered = 0
  for seed in range(20):
    estimate = estimate_exploitability(agent, replicates=30, seed=seed)
    value = response_exploitability(agent, estimate.responses, exact.plan[None])[0]
    covered += estimate.interval[0] <= value <= estimate.interval[1]
  assert covered >= 16


@pytest.mark.parametrize("weighting", ["uniform", "linear"])
def test_replicates_are_unbiased(weighting):
  # E[X~_r] = X (tower property): the mean of 3,000 replicate plans, every draw sampled, lies
  # within 4.5 standard errors of the enumerated plan at every sequence (two-sided 7e-6 each).
  # Linear weighting draws t with probability t / 55, so a sampler ignoring P(t) fails it.
  agent = _agent(KUHN, 1, 10, weighting)
  exact = behaviour_strategy(agent)
  plans, _ = mixed_plans(agent, 3000, 0, np.random.default_rng(0))
  error = plans.std(axis=0, ddof=1) / np.sqrt(len(plans))
  assert np.all(np.abs(plans.mean(axis=0) - exact.plan) <= 4.5 * error + ROUNDING)
  assert np.any(error > 0)


def test_every_level_enumerated_is_exact():
  # exact_levels beyond the chain of searches: every replicate is X itself, so the value is
  # e(b^; X) to rounding, and the plug-in is the exact exploitability (OpenSpiel's).
  agent = _agent(KUHN, 1, 10)
  exact = behaviour_strategy(agent)
  estimate = estimate_exploitability(agent, replicates=2, exact_levels=5)
  assert estimate.standard_error <= ROUNDING
  assert estimate.value == pytest.approx(
      _exact_response_value(agent, exact, estimate.responses), abs=ROUNDING)
  assert estimate.plug_in == pytest.approx(exploitability.exploitability(
      agent.game, tabular_policy(agent, exact.policy)), abs=ROUNDING)


def test_responses_best_respond_to_the_fitted_behaviour():
  # Reference: OpenSpiel's BestResponsePolicy values against the fitted behaviour X^ equal the
  # values of the estimate's responses against it, and their e(b^; X^) is the plug-in.
  agent = _agent(KUHN, 1, 10)
  estimate = estimate_exploitability(agent, replicates=5, exact_levels=0, seed=3)
  fitted = tabular_policy(agent, estimate.behaviour)
  root = agent.game.new_initial_state()
  responses = tabular_policy(agent, estimate.responses)
  for player in (0, 1):
    profile = [fitted, fitted]
    profile[player] = responses
    value = expected_game_score.policy_value(root, profile)[player]
    reference = best_response.BestResponsePolicy(agent.game, player, fitted).value(root)
    assert value == pytest.approx(reference, abs=ROUNDING)
  assert estimate.plug_in == pytest.approx(
      exploitability.exploitability(agent.game, fitted), abs=ROUNDING)


def test_plug_in_curve_is_openspiels_exploitability_of_each_prefix_mean():
  # Reference: OpenSpiel's exploitability of the mean of the first n fit replicates, drawn again
  # from the same seed (the estimate draws fit and evaluation replicates in one walk).
  agent = _agent(KUHN, 1, 10)
  estimate = estimate_exploitability(agent, replicates=3, fit_replicates=5, exact_levels=0,
                                     seed=4)
  plans, _ = mixed_plans(agent, 5 + 3, 0, np.random.default_rng(4))
  assert [n for n, _ in estimate.plug_in_curve] == [1, 2, 4, 5]
  for n, value in estimate.plug_in_curve:
    policy = tabular_policy(agent, plan_to_policy(agent, plans[:n].mean(axis=0)))
    assert value == pytest.approx(exploitability.exploitability(agent.game, policy),
                                  abs=ROUNDING)
  assert estimate.plug_in == estimate.plug_in_curve[-1][1]


def test_estimate_search_count():
  # kuhn_poker cut at depth 1, T = 5: the enumeration runs 1 + 2T + T^2 = 36 searches. With the
  # root enumerated and R replicates: the root, T searches at "b", T at "p", and below each "p"
  # at most min(R, T) at "pb": 1 + 2T + T min(R, T). With every draw sampled, one draw path
  # (root, "p", "b", "pb") per replicate: at most 1 + 3R, capped by 36.
  agent = _agent(KUHN, 1, 5)
  assert search_count(agent) == 36
  assert search_count(agent, plays=lambda _: 1) == 4
  assert estimate_search_count(agent, 3, 1) == 1 + 2 * 5 + 5 * 3
  assert estimate_search_count(agent, 30, 1) == 36
  assert estimate_search_count(agent, 4, 0) == 13
  assert estimate_search_count(agent, 40, 0) == 36
  _, searches = mixed_plans(agent, 3, 1, np.random.default_rng(0))
  assert searches <= 1 + 2 * 5 + 5 * 3


@pytest.mark.parametrize("kwargs,message", [
    ({"replicates": 1}, "replicates must be an integer >= 2, got 1"),
    ({"replicates": True}, "replicates must be an integer >= 2, got True"),
    ({"fit_replicates": 0}, "fit_replicates must be an integer >= 1, got 0"),
    ({"exact_levels": -1}, "exact_levels must be an integer >= 0, got -1"),
    ({"seed": -1}, "seed must be an integer >= 0, got -1"),
    ({"confidence": 1.0}, r"confidence must be a number in \(0, 1\), got 1.0"),
    ({"confidence": "high"}, r"confidence must be a number in \(0, 1\), got 'high'")])
def test_bad_arguments(kwargs, message):
  with pytest.raises(ValueError, match=message):
    estimate_exploitability(_agent(KUHN, 1, 2), **kwargs)


@pytest.mark.slow
def test_interval_covers_the_exact_value_at_t100():
  # As above at T = 100 (enumeration: 10,201 searches, about 5 s), seed 1, 95% interval
  # (measured coverage over seeds 0-399: 378/400; seed 0 is among the misses).
  agent = _agent(KUHN, 1, 100)
  exact = behaviour_strategy(agent)
  estimate = estimate_exploitability(agent, replicates=30, seed=1)
  value = _exact_response_value(agent, exact, estimate.responses)
  assert estimate.interval[0] <= value <= estimate.interval[1]
  assert estimate.searches < exact.searches  # Fewer searches than the enumeration.


def test_sampling_needs_a_generator():
  with pytest.raises(ValueError, match="mixed_plans samples draws below exact_levels: pass rng"):
    mixed_plans(_agent(KUHN, 1, 2), 2, 0)


def test_estimate_covers_the_enumerated_exploitability_on_liars_dice():
  # The smallest Liar's Dice (1 die of 2 faces) at lookahead 2, T = 4, leaves solved together
  # (``leaves.forest``): every draw enumerated (``behaviour_strategy``, OpenSpiel's
  # exploitability of it), the estimate with every draw sampled (ReBeL's released protocol)
  # covers the exact e(b^; X) of its own responses, and here b^ best-responds to X.
  game = pyspiel.load_game("liars_dice(numdice=1,dice_sides=2)")
  agent = ReBeLAgent(game, lookahead=2, iterations=4, cache_size=10**6,
                     leaf_solver=ForestCFRLeafSolver(1e-9, max_iterations=100_000))
  behaviour = behaviour_strategy(agent).policy
  exact = exploitability.exploitability(game, tabular_policy(agent, behaviour))
  estimate = estimate_exploitability(agent, replicates=200, exact_levels=0, seed=0)
  fixed = response_exploitability(
      agent, estimate.responses, tree_passes.realization(agent.arrays, behaviour)[None, :])[0]
  assert fixed == pytest.approx(exact, abs=1e-12)
  assert estimate.interval[0] <= fixed <= estimate.interval[1]
