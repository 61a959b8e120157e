"""Chance-sampling CFR: unbiasedness of the sampled update, convergence, determinism."""

import fractions

import numpy as np
import pytest
import pyspiel

from open_spiel.python.algorithms import exploitability, expected_game_score

import spiel_games  # pylint: disable=unused-import
import algorithms
from algorithms import kuhn_equilibria, sequence_form_lp, tree_passes
from algorithms.chance_sampling import ChanceSampler

# |mean - exact| <= Z standard errors per component. Each component's sample mean over N
# independent samples is approximately normal (CLT), so one component exceeds 5 SE with
# probability ~6e-7; over the <= 2,200 components of Leduc the family-wise false-alarm rate is
# below 2e-3, and the fixed seeds make the outcome reproducible.
Z = 5.0


def sample_moments(draw, n):
  """Mean and standard error of the vectors returned by ``draw()`` over n calls."""
  first = draw()
  total, squares = first.copy(), first**2
  for _ in range(n - 1):
    value = draw()
    total += value
    squares += value**2
  mean = total / n
  variance = np.maximum(squares / n - mean**2, 0.0) * n / (n - 1)
  return mean, np.sqrt(variance / n)


def within(mean, se, exact):
  return np.all(np.abs(mean - exact) <= Z * se + 1e-12 * (1 + np.abs(exact)))


def regrets(arrays, sigma, player, terminals=None, weights=None):
  """One pass's counterfactual regrets from the terminals' values (all terminals, at
  u(z) pi_c(z), if ``terminals`` is None)."""
  x = tree_passes.realization(arrays, sigma)
  if terminals is None:
    weights = arrays.weighted_utility
  c = tree_passes.terminal_values(arrays, x, weights, player, terminals)
  return tree_passes.counterfactual_regrets(arrays, c, sigma)


@pytest.mark.parametrize("game_string,samples", [("kuhn_poker", 20000), ("leduc_poker", 8000),
                                                 ("kuhn_poker(players=3)", 20000)])
def test_sampled_update_is_unbiased(game_string, samples):
  # Lanctot et al. 2009: E[sampled regret update] = the vanilla CFR update from the same
  # regrets (same policy). The reference is the engine's exact update; a sampler that forgot
  # the importance weight (weighting visited terminals by pi_c(z) instead of 1) must fail. The
  # sampled values are the hook's (ChanceSampler as the engine calls it).
  game = pyspiel.load_game(game_string)
  solver = algorithms.CFRSolver(game).solve(3)  # A non-uniform current policy.
  arrays, sigma = solver.engine.arrays, solver.engine.sigma
  sampler = ChanceSampler(arrays, np.random.default_rng(2024))
  x = tree_passes.realization(arrays, sigma)
  for player in range(game.num_players()):
    exact = regrets(arrays, sigma, player)

    def draw(player=player):
      return tree_passes.counterfactual_regrets(arrays, sampler(x, player).values, sigma)

    mean, se = sample_moments(draw, samples)
    assert within(mean, se, exact)
    assert np.count_nonzero(se) > 0.5 * np.count_nonzero(exact)  # The estimate does vary.

    def draw_biased(player=player):
      terminals, _ = sampler.sample()
      return regrets(arrays, sigma, player, terminals, arrays.weighted_utility[terminals])

    biased_mean, biased_se = sample_moments(draw_biased, samples)
    assert not within(biased_mean, biased_se, exact)


@pytest.mark.parametrize("game_string", ["leduc_poker", "kuhn_poker(players=3)"])
def test_visit_counts_are_chance_weighted(game_string):
  # E[number of visited histories of I] = sum_{h in I} pi_c(h), chance reach from the tree.
  game = pyspiel.load_game(game_string)
  solver = algorithms.ChanceSamplingCFRSolver(game, seed=0)
  arrays, tree = solver.engine.arrays, solver.tree
  sampler = ChanceSampler(arrays, np.random.default_rng(7))
  mean, se = sample_moments(lambda: sampler.sample()[1], 8000)
  reach = np.ones(tree.num_nodes)
  for n in range(1, tree.num_nodes):
    reach[n] = reach[tree.node_parent[n]] * tree.node_prob[n]
  expected = np.zeros(arrays.num_infosets)
  for pl in range(game.num_players()):
    nodes = np.flatnonzero(tree.node_player == pl)
    np.add.at(expected, arrays.global_infoset[pl][tree.node_infoset[nodes]], reach[nodes])
  assert within(mean, se, expected)
  def visited_terminals():
    out = np.zeros(tree.num_terminals)
    out[sampler.sample()[0]] = 1.0
    return out

  terminal_mean, terminal_se = sample_moments(visited_terminals, 8000)
  assert within(terminal_mean, terminal_se, tree.chance_reach)


def game_value(game_string):
  if game_string == "kuhn_poker":
    return -1 / 18  # Kuhn 1950.
  game = pyspiel.load_game(game_string)
  lp_value = sequence_form_lp.solve_game(game).value
  rules = game.rules
  closed = kuhn_equilibria.game_value(fractions.Fraction(rules.ante), fractions.Fraction(rules.bet),
                                      rules.simplified)
  assert lp_value == pytest.approx(float(closed), abs=1e-9)
  return lp_value


@pytest.mark.parametrize("game_string", ["kuhn_poker", "kuhn_poker_ante(ante=2.0)",
                                         "kuhn_poker_ante(ante=2.0,simplified=true)"])
def test_converges(game_string):
  game = pyspiel.load_game(game_string)
  solver = algorithms.ChanceSamplingCFRSolver(game, seed=0).solve(20000)
  average = solver.average_policy()
  assert exploitability.exploitability(game, average) < 1e-2
  value = expected_game_score.policy_value(game.new_initial_state(), [average, average])[0]
  assert value == pytest.approx(game_value(game_string), abs=1e-2)


def test_deterministic_for_a_seed():
  game = pyspiel.load_game("leduc_poker")
  runs = [algorithms.ChanceSamplingCFRSolver(game, seed=s).solve(50) for s in (3, 3, 4)]
  np.testing.assert_array_equal(runs[0].engine.regrets, runs[1].engine.regrets)
  np.testing.assert_array_equal(runs[0].engine.cumulative, runs[1].engine.cumulative)
  assert not np.array_equal(runs[0].engine.regrets, runs[2].engine.regrets)


def test_without_chance_equals_vanilla_cfr():
  # With no chance node every terminal is visited with weight 1 = pi_c(z): the regrets are
  # vanilla CFR's exactly; average numerators are scaled per information set by its number of
  # histories, which cancels in the average policy.
  game = pyspiel.load_game("turn_based_simultaneous_game(game=matrix_rps())")
  sampled = algorithms.ChanceSamplingCFRSolver(game, seed=0).solve(30)
  vanilla = algorithms.CFRSolver(game).solve(30)
  np.testing.assert_array_equal(sampled.engine.regrets, vanilla.engine.regrets)
  np.testing.assert_allclose(sampled.average_policy().action_probability_array,
                             vanilla.average_policy().action_probability_array, atol=1e-14)
