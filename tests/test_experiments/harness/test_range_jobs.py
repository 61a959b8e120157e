"""Sweeps on range vectors (experiments.harness: solver_registry, measures, context, jobs,
references, game_loader): two-player Kuhn poker with a large deck runs on the range-vector engine
without its game tree or an OpenSpiel TabularPolicy; batched or not, the same numbers.

References: OpenSpiel's ``exploitability.exploitability`` and ``expected_game_score.policy_value``
of the kept average policy on decks it can walk (13 and 20 cards, 1e-12); the exact walk in
fractions of ``helpers.uniform_profile_ties``; the continuous limit's value -1/18 of the standard
game at ante = bet (``algorithms.exact.continuous_kuhn``'s docstring; Kuhn's value of three-card
poker too).
"""

import dataclasses
import math

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.cfr import range_engine
from algorithms.cfr import solver_backends
from algorithms.tree import game_tree
from experiments.harness import context
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import measures
from experiments.harness import range_cost
from experiments.harness import references
from experiments.harness import solver_registry
from helpers import numbers
from helpers import uniform_profile_ties

LARGE = "kuhn_poker_ante(ante=1.0,bet=1.0,deck_size=1000)"


def large_sweep():
  # Two stakes of one deck and rule set (one batch of our_cfr_plus), and a solver without a
  # batched form on the simplified rules.
  return [jobs.Job("t", LARGE, "our_cfr_plus", 0, 100, measure_at=(10,)),
          jobs.Job("t", "kuhn_poker_ante(ante=2.0,bet=1.0,deck_size=1000)", "our_cfr_plus", 0,
                   100, measure_at=(10,)),
          jobs.Job("t", "kuhn_poker_ante(ante=1.0,bet=1.0,deck_size=1000,simplified=True)",
                   "our_dcfr", 0, 100)]


def refuse_large_decks(monkeypatch):
  """Makes building a flat game tree or a TabularPolicy of a deck of 1,000 cards an error."""
  build = game_tree.GameTree.from_game.__func__
  layout = range_engine.RangeLayout.__init__

  def from_game(cls, game, *args, **kwargs):
    assert "deck_size=1000" not in str(game), f"a GameTree of {game}"
    return build(cls, game, *args, **kwargs)

  def layout_init(self, tree, *args, **kwargs):
    assert tree.num_cards < 1000, f"a TabularPolicy of {tree.game}"
    layout(self, tree, *args, **kwargs)

  monkeypatch.setattr(game_tree.GameTree, "from_game", classmethod(from_game))
  monkeypatch.setattr(range_engine.RangeLayout, "__init__", layout_init)


def test_a_thousand_card_sweep_runs_on_range_vectors(tmp_path, monkeypatch):
  refuse_large_decks(monkeypatch)
  made = large_sweep()
  assert jobs.batches(made) == [tuple(made[:2]), made[2]]
  single = context.Context("t", tmp_path / "single").run_jobs(made)
  batched_ctx = context.Context("t", tmp_path / "batched")
  batched = batched_ctx.run_jobs(made, batch=True)
  assert batched_ctx.failures == [] and len(batched) == 3
  assert numbers(batched) == numbers(single)  # Each game of the batch is solved as alone.
  for result in single:
    solved = result.solved
    assert solved.engine == "range" and solved.measure == measures.EXPLOITABILITY
    # Past OpenSpiel's walk (8,992,001 histories): the range vectors' measure alone.
    assert solved.openspiel is None and solved.policy is None
    game = game_loader.load_game(result.job.game)
    assert 0 < result.final <= references.exploitability_tolerance(game, result.job.solver, 100)
    assert sum(solved.returns) == pytest.approx(0.0, abs=1e-12)  # Zero-sum.
  # The value of the standard game at ante = bet lies within NashConv of the game value, which
  # lies within 0.08 (ante + bet) / N (deck_thresholds.VALUE_BAND) of the continuous limit -1/18.
  first = single[0]
  assert first.value == pytest.approx(-1 / 18, abs=first.final_nash_conv + 0.25 / 1000)


def kept_policy(game, table):
  """OpenSpiel's TabularPolicy of ``game`` (its own walk) holding a kept policy table."""
  policy = policy_lib.TabularPolicy(game)
  for key, probabilities in table.items():
    policy.action_probability_array[policy.state_lookup[key]] = probabilities
  return policy


@pytest.mark.parametrize("game_string, solver, engine", [
    ("kuhn_poker_ante(deck_size=13)", "our_cfr_plus", "range"),
    # 20 cards, not 50 (4.7 s, OpenSpiel's walks of 12,301 histories): the measures run the same
    # code on any deck from 13 cards, and a wrong term shows at any size. That OpenSpiel's walk
    # is still taken at 50 cards: test_the_range_measure_equals_openspiels_on_random_policies.
    ("kuhn_poker_ante(deck_size=20,simplified=True)", "our_cfr", "range"),
    ("kuhn_poker_ante(deck_size=13)", "cfr", None),  # OpenSpiel's TabularPolicy, range measure.
    ("kuhn_poker_ante(deck_size=13)", "cs_cfr", "flat"),  # A flat-only solver: its tree.
])
def test_small_decks_are_measured_as_openspiel_measures_them(game_string, solver, engine):
  # 5 iterations: the measures are compared on the average policy the run ends with, after 5 as
  # after 20 mixed at every information set and not uniform (exploitability 0.05-0.40 on 13
  # cards, the uniform policy's 0.41); 20 took 2 s with OpenSpiel's CFR.
  game = game_loader.load_game(game_string)
  solved = jobs.run_job(jobs.Job("t", game_string, solver, 0, 5, keep_policy=True))[0]
  assert solved.engine == engine
  policy = kept_policy(game, solved.policy)
  openspiel = exploitability.exploitability(game, policy)
  assert solved.curve[-1] == pytest.approx(openspiel, abs=1e-12)
  assert solved.openspiel == pytest.approx(openspiel, abs=1e-12)
  assert solved.returns == pytest.approx(
      expected_game_score.policy_value(game.new_initial_state(), [policy, policy]), abs=1e-12)


def random_policy(game, seed):
  tabular = policy_lib.TabularPolicy(game)
  probs = np.random.default_rng(seed).random(tabular.action_probability_array.shape)
  tabular.action_probability_array[:] = probs / probs.sum(axis=1, keepdims=True)
  return tabular


def test_the_range_measure_equals_openspiels_on_random_policies():
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0,bet=1.0,deck_size=13)")
  measure = measures.measure_for(game)
  assert measure.name == measures.EXPLOITABILITY
  for seed in range(2):
    policy = random_policy(game, seed)
    assert measure.ours(policy) == pytest.approx(exploitability.exploitability(game, policy),
                                                  abs=1e-12)
    assert measure.returns(policy) == pytest.approx(
        expected_game_score.policy_value(game.new_initial_state(), [policy] * 2), abs=1e-12)
  # The compact policy of a range-vector solver measures as its TabularPolicy.
  solver = solver_registry.get_solver("our_cfr").build(game)
  solver.solve(7)
  assert measure.ours(solver.card_policy()) == measure.ours(solver.average_policy())
  assert measure.returns(solver.card_policy()) == measure.returns(solver.average_policy())
  # OpenSpiel's walk measures up to OPENSPIEL_MAX_HISTORIES (50 cards: 22,101 histories).
  assert measures.openspiel_walkable(pyspiel.load_game("kuhn_poker_ante(deck_size=50)"))
  assert measures.measure_for(pyspiel.load_game("kuhn_poker_ante(deck_size=60)")).openspiel is None


def test_a_shared_tree_goes_to_flat_runs_only():
  spec = solver_registry.get_solver("our_cfr")
  game13 = pyspiel.load_game("kuhn_poker_ante(deck_size=13)")
  # A tree handed in would force the flat engine; build ignores it where the run is on ranges.
  assert spec.build(game13, tree=game_tree.GameTree.from_game(game13)).engine_name == "range"
  assert spec.card_tree(game13).num_cards == 13
  assert spec.card_tree(game13, {"engine": "flat"}) is None
  assert solver_registry.get_solver("cs_cfr").card_tree(game13) is None  # Flat only.
  assert solver_registry.get_solver("cfr").card_tree(game13) is None  # OpenSpiel's.
  kuhn = pyspiel.load_game("kuhn_poker")
  tree = game_tree.GameTree.from_game(kuhn)
  assert spec.build(kuhn, tree=tree).tree is tree


def test_range_jobs_are_sized_and_estimated_by_cards(tmp_path, monkeypatch):
  ctx = context.Context("t", tmp_path)
  job = large_sweep()[0]
  assert context.size_text(job) == "1,000 cards, range vectors"
  (a, b), (c, e) = range_cost.RANGE_COSTS[2]
  measured = 2  # Iterations 10 and 100.
  # solve's iterations, the warm-up's and the throwaway solver's; its measures and the returns.
  assert ctx.estimate_seconds(job) == pytest.approx(
      (100 + 2) * (a + b * 1000) + (measured + 1) * (c + e * 1000))
  # A flat-only solver on the same deck: refused by histories, before any work.
  with pytest.raises(ValueError, match="more than 2,000,000 histories, the engine's limit"):
    ctx.run_jobs([dataclasses.replace(job, solver="cs_cfr")])
  # A kept policy table of 5,000 cards (OpenSpiel's TabularPolicy, O(N^2)) is refused.
  with pytest.raises(ValueError, match="its kept policy table .* needs about 4.9 GiB"):
    ctx.run_jobs([jobs.Job("t", "kuhn_poker_ante(deck_size=5000)", "our_cfr", 0, 10,
                           keep_policy=True)])
  # The range vectors' own memory, against the limit.
  monkeypatch.setattr(solver_backends, "DEFAULT_MAX_BYTES", 10**5)
  with pytest.raises(ValueError, match="a range-vector run needs about .* for 1000 cards"):
    ctx.run_jobs([job])
  assert ctx.stats.total == 0


def test_range_cost_model_is_linear_and_fits_its_measurements():
  # The model's form: linear in iterations, measures and cards, per number of players; and its
  # coefficients against the runs they were fitted to (range_cost.RANGE_COST_MEASUREMENTS,
  # measured CPU seconds of ``benchmark_range --part cost``): each run within a factor 2 of the
  # model, and from 100,000 cards on its iterations and measures too (recorded numbers, no clock
  # read here).
  for cost in range_cost.RANGE_COSTS.values():
    (a, b), (c, e) = cost
    assert min(a, b, c, e) > 0
    assert cost.seconds(7, 3, 1000) == pytest.approx(7 * (a + b * 1000) + 3 * (c + e * 1000))
    assert cost.seconds(20, 0, 5000) == pytest.approx(2 * cost.seconds(10, 0, 5000))
    twice = cost.seconds(10, 4, 2 * 10**6) - cost.seconds(10, 4, 10**6)
    assert twice == pytest.approx(cost.seconds(10, 4, 10**6) - cost.seconds(10, 4, 0))
  assert range_cost.RANGE_COSTS[3].iteration[1] > range_cost.RANGE_COSTS[2].iteration[1]
  spec = solver_registry.get_solver("our_cfr")
  points = range_cost.RANGE_COST_POINTS
  decks = {}
  for players, cards, iteration, evaluation, run in range_cost.RANGE_COST_MEASUREMENTS:
    decks.setdefault(players, []).append(cards)
    cost = range_cost.RANGE_COSTS[players]
    if cards >= 10**5:  # Below, the line through the large decks overestimates an iteration.
      assert 0.5 <= cost.seconds(1, 0, cards) / iteration <= 2
      assert 0.5 <= cost.seconds(0, 1, cards) / evaluation <= 2
    game = pyspiel.load_game(f"kuhn_poker_ante(players={players},deck_size={cards})")
    tree = spec.card_tree(game)
    assert tree.num_cards == cards
    estimate = spec.range_seconds(range_cost.RANGE_COST_ITERATIONS, points, tree)
    assert 0.5 <= estimate / run <= 2, (players, cards, estimate, run)
  for cards in decks.values():
    assert min(cards) <= 1000 and max(cards) >= 10**6


def test_uniform_profile_ties_on_range_vectors_match_the_exact_walk():
  # 13 cards, standard rules: the range engine's first regrets tie at "3b" and "3pb".
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=13)")
  assert solver_registry.get_solver("our_cfr").build(game).engine_name == "range"
  assert game_loader.uniform_profile_ties(game) == uniform_profile_ties(game) == ["3b", "3pb"]


def test_a_large_deck_is_checked_against_the_continuous_limit(tmp_path):
  reference = references.compute_reference(LARGE)
  assert reference["closed_form"] is None
  assert references.reference_value(reference) == (-1 / 18, "continuous limit (continuous_kuhn)")
  # deck_thresholds.VALUE_BAND (ante + bet) / N
  assert references.limit_allowance(reference) == pytest.approx(0.08 * 2 / 1000, abs=1e-18)
  assert references.limit_allowance(references.compute_reference("kuhn_poker")) == 0.0
  [result] = context.Context("t", tmp_path).run_jobs([large_sweep()[0]])
  found = references.solver_run_checks(result, reference)
  assert [c.passed for c in found] == [True, True]
  exploitability_check, value_check = found
  assert exploitability_check.value == result.final  # No OpenSpiel number past its walk.
  assert "range-vector best responses" in exploitability_check.source
  assert value_check.tolerance == pytest.approx(2 * result.final + 0.08 * 2 / 1000, abs=1e-15)
  assert math.isfinite(value_check.value)
