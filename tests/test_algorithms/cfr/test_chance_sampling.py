"""Chance-sampling CFR: unbiasedness of the sampled update, convergence, determinism."""

import fractions

import numpy as np
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.cfr import regret_matching as rm
from algorithms.cfr import sampled_kernel
from algorithms.cfr import tree_passes
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.chance_sampling import ChanceSampler
from algorithms.exact import kuhn_equilibria
from algorithms.exact import sequence_form_lp
from algorithms.tree.game_tree import CHANCE
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

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


def regrets(arrays, sigma, player, terminals, weights):
  """One pass's counterfactual regrets from the values of the listed terminals (dense passes)."""
  x = tree_passes.realization(arrays, sigma)
  c = tree_passes.terminal_values(arrays, x, weights, player, terminals)
  return tree_passes.counterfactual_regrets(arrays, c, sigma)


def sampled_delta(engine, sampler, start):
  """The regret change of one sampled iteration from ``start`` (regrets, numerators, t)."""
  engine.restore(*start)
  engine.iterate_sampled(sampler.tables, sampler.draw(len(engine.passes())))
  return engine.regrets - start[1]


# Samples: the false-alarm rate above holds for any sample size where the CLT does (thousands),
# and the biased sampler below misses by far more than Z at these sizes: measured at 1,000
# samples its largest deviation is 110 (Kuhn), 850 (Leduc) and 415 (three players) standard
# errors, growing as the square root of the samples (20,000 and 8,000 took 1-1.7 s each here).
@pytest.mark.parametrize("game_string,samples", [("kuhn_poker", 4000), ("leduc_poker", 2000),
                                                 ("kuhn_poker(players=3)", 4000)])
@pytest.mark.parametrize("alternating", [True, False])
def test_sampled_update_is_unbiased(game_string, samples, alternating):
  # Lanctot et al. 2009: E[sampled regret update] = the vanilla CFR update from the same
  # regrets (same policy). The reference is the engine's exact full-width pass; a sampler that
  # forgot the importance weight (weighting visited terminals by pi_c(z) instead of 1) must
  # fail. With alternating updates the first pass (player 0) is the one from the given policy;
  # with simultaneous updates the one pass updates every player from it.
  game = pyspiel.load_game(game_string)
  arrays = algorithms.CFRSolver(game).engine.arrays
  warm = algorithms.CFRSolver(game, tree=arrays.tree).solve(3)  # A non-uniform policy.
  rule = UpdateRule(alternating_updates=alternating)
  start = (3, warm.engine.regrets.copy(), np.zeros(arrays.num_sequences))
  player = 0 if alternating else None
  exact_engine = CFREngine(arrays, rule)
  exact_engine.restore(*start)
  exact_engine.update(player)
  checked = arrays.seq_player == 0 if alternating else np.ones(arrays.num_sequences, bool)
  exact = (exact_engine.regrets - start[1])[checked]
  sampler = ChanceSampler(arrays, np.random.default_rng(2024))
  engine = CFREngine(arrays, rule)
  mean, se = sample_moments(lambda: sampled_delta(engine, sampler, start)[checked], samples)
  assert within(mean, se, exact)
  assert np.count_nonzero(se) > 0.5 * np.count_nonzero(exact)  # The estimate does vary.

  def draw_biased():
    terminals, _ = sampler.sample()
    return regrets(arrays, warm.engine.sigma, player, terminals,
                   arrays.weighted_utility[terminals])[checked]

  biased_mean, biased_se = sample_moments(draw_biased, samples)
  assert not within(biased_mean, biased_se, exact)


def dense_sampled_pass(arrays, rule, state, player, draws, sampler):
  """A sampled pass by the dense passes, over the whole tree with the visited terminals at
  weight u(z): regrets everywhere (0 off the sampled subtree), numerators w_t x n(I)."""
  t, regrets, cumulative, sigma = state
  terminals, visits = sampler.sample(draws)
  x = tree_passes.realization(arrays, sigma)
  c = tree_passes.terminal_values(arrays, x, arrays.tree.utility[terminals], player, terminals)
  r = tree_passes.counterfactual_regrets(arrays, c, sigma)
  n = arrays.num_players
  mine = (arrays.seq_player == player) if player is not None else np.ones(len(r), bool)
  mine[:n] = False
  regrets = regrets + r * mine
  if rule.regret_matching_plus:
    regrets = np.maximum(regrets, 0.0)
  weight = t**rule.averaging_gamma
  cumulative = cumulative + weight * x * np.append(visits, 0.0)[arrays.seq_infoset] * mine
  sigma = sigma.copy()
  sigma[n:] = rm.regret_matching(regrets[n:], rm.Blocks.from_sizes(arrays.infoset_num_actions))
  return t, regrets, cumulative, sigma, visits


@pytest.mark.parametrize("game_string", ["leduc_poker", "kuhn_poker(players=3)"])
@pytest.mark.parametrize("alternating", [True, False])
def test_sampled_pass_updates_only_the_sampled_subtree(game_string, alternating):
  # The kernel's sampled pass equals the dense computation with the same visited terminals
  # (whole-tree passes, zero values off the sample) up to the order of the sums; and every
  # regret, numerator and policy entry outside the visited information sets of the updated
  # players is bit for bit unchanged.
  game = pyspiel.load_game(game_string)
  solver = algorithms.ChanceSamplingCFRSolver(game, seed=1, alternating_updates=alternating,
                                              linear_averaging=True,
                                              regret_matching_plus=True).solve(30)
  engine, arrays = solver.engine, solver.engine.arrays
  sampler = ChanceSampler(arrays, np.random.default_rng(9))
  draws = sampler.draw(len(engine.passes()))
  state = (engine.iteration + 1, engine.regrets.copy(), engine.cumulative.copy(),
           engine.sigma.copy())
  touched = np.zeros(arrays.num_sequences, bool)
  for row, player in enumerate(engine.passes()):
    *state, visits = dense_sampled_pass(arrays, engine.rule, state, player, draws[row], sampler)
    owner_ok = arrays.infoset_player == player if player is not None else True
    sets = np.flatnonzero((visits > 0) & owner_ok)
    for k in sets:
      touched[arrays.infoset_start[k]:arrays.infoset_start[k] + arrays.infoset_num_actions[k]] = 1
  before = (engine.regrets.copy(), engine.cumulative.copy(), engine.sigma.copy())
  engine.iterate_sampled(sampler.tables, draws)
  assert 0 < touched.sum() < 0.5 * arrays.num_sequences  # A part of the tree.
  for ours, dense, old in zip((engine.regrets, engine.cumulative, engine.sigma), state[1:],
                              before):
    np.testing.assert_allclose(ours, dense, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours[~touched], old[~touched])


def chance_outcomes_above(tree, node):
  """The chance outcomes on the path to ``node``, root first."""
  outcomes = []
  while node > 0:
    if tree.node_player[tree.node_parent[node]] == CHANCE:
      outcomes.append(int(tree.node_action[node]))
    node = int(tree.node_parent[node])
  return outcomes[::-1]


def test_one_deal_per_pass():
  # Leduc: one draw per chance depth is one deal (two private cards, then the board card) for
  # every betting history. Of its 5520 terminals, 120 end in a first-round fold (4 per private
  # deal, 6 * 5 of these) and 5400 after the board card (45 per full deal, 6 * 5 * 4 of these):
  # 4 + 45 visited terminals per pass, all below the same cards.
  game = pyspiel.load_game("leduc_poker")
  arrays = algorithms.CFRSolver(game).engine.arrays
  sampler = ChanceSampler(arrays, np.random.default_rng(0))
  assert sampler.num_draws == 3
  depth = [len(chance_outcomes_above(arrays.tree, node)) for node in arrays.tree.terminal_node]
  assert np.bincount(depth).tolist() == [0, 0, 120, 5400]
  for _ in range(20):
    terminals, _ = sampler.sample()
    assert len(terminals) == 49
    deals = {tuple(chance_outcomes_above(arrays.tree, node))
             for node in arrays.tree.terminal_node[terminals]}
    longest = max(deals, key=len)
    assert len(longest) == 3 and all(deal == longest[:len(deal)] for deal in deals)


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


def test_solve_equals_single_iterations():
  # solve(n) draws the numbers of n iterations in one block from the same generator: the same
  # stream, so the same run as n calls of evaluate_and_update_policy.
  game = pyspiel.load_game("leduc_poker")
  block = algorithms.ChanceSamplingCFRSolver(game, seed=5).solve(60)
  single = algorithms.ChanceSamplingCFRSolver(game, seed=5)
  for _ in range(60):
    single.evaluate_and_update_policy()
  for name in ("regrets", "cumulative", "sigma"):
    np.testing.assert_array_equal(getattr(block.engine, name), getattr(single.engine, name))


def test_chance_outcome_equals_a_scan_from_the_first():
  # The pass picks an outcome from a guess (u times the number of outcomes) on the running
  # sums; it must pick what a scan from the first outcome picks (OpenSpiel's SampleAction): the
  # first e with u < p_0 + ... + p_e, the last outcome taking any rounding gap below 1. Unequal
  # and zero probabilities, and draws on the running sums themselves, included.
  rng = np.random.default_rng(11)
  for size in (1, 2, 3, 5, 8, 13, 100):
    for _ in range(20):
      p = rng.random(size) * (rng.random(size) > 0.3)
      if p.sum() == 0:
        p[-1] = 1.0
      p /= p.sum()
      ptr = np.array([0, size])
      cumulative = sampled_kernel.running_sums(ptr, p)
      draws = np.concatenate([rng.random(30), cumulative[:-1], [np.nextafter(1.0, 0.0), 0.0]])
      for u in draws:
        total, e = p[0], 0
        while e < size - 1 and u >= total:  # The scan of the pass this one replaced.
          e += 1
          total += p[e]
        assert sampled_kernel.first_above(cumulative, 0, size - 1, u) == e
