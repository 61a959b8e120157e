"""The registry's entries of PCFR+, DCFR+, PDCFR+ and our MCCFR, run the way an experiment runs
them: a job (``jobs.run_job`` -> ``solver_runs.solve``), a batch (``solve_batch``), the
command line.

References: the algorithms' classes run directly (themselves checked against the papers'
equations and OpenSpiel, tests/test_algorithms/cfr/test_predictive_rules.py and test_mccfr.py);
OpenSpiel's ``exploitability.exploitability`` of the final policy (``Solved.openspiel``); and,
for our MCCFR, OpenSpiel's Python MCCFR through its own registry entries, which draw from
``np.random.RandomState(seed)`` as ours do (``algorithms.cfr.mccfr``: equal to 1e-10).
"""

import pandas as pd
import pyspiel
import pytest

import algorithms
from experiments import cli
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import solver_registry
from experiments.harness import solver_runs

# Entry -> (its class, its batched class).
FULL_WIDTH = {
    "our_pcfr_plus": (algorithms.PCFRPlusSolver, algorithms.BatchedPCFRPlusSolver),
    "our_sapcfr_plus": (algorithms.SAPCFRPlusSolver, algorithms.BatchedSAPCFRPlusSolver),
    "our_apcfr_plus": (algorithms.APCFRPlusSolver, algorithms.BatchedAPCFRPlusSolver),
    "our_dcfr_plus": (algorithms.DCFRPlusSolver, algorithms.BatchedDCFRPlusSolver),
    "our_pdcfr_plus": (algorithms.PDCFRPlusSolver, algorithms.BatchedPDCFRPlusSolver),
    "our_dcfr": (algorithms.DCFRSolver, algorithms.BatchedDCFRSolver),
    "our_lcfr": (algorithms.LCFRSolver, algorithms.BatchedLCFRSolver),
}
# Our MCCFR entry -> OpenSpiel's Python MCCFR entry with the same options and draws.
MCCFR = {"our_mccfr_external": "mccfr_external", "our_mccfr_outcome": "mccfr_outcome"}
MARKS = (1, 10, 40)


def class_curve(cls, game, marks, **kwargs):
  """Exploitability of ``cls(game)``'s average policy after each of ``marks`` iterations."""
  solver, done, curve = cls(game, **kwargs), 0, []
  for mark in marks:
    solver.solve(mark - done)
    done = mark
    curve.append(solver.exploitability())
  return curve


@pytest.mark.parametrize("name", sorted(FULL_WIDTH))
def test_full_width_entries_run_their_classes_as_a_job(name):
  spec = solver_registry.get_solver(name)
  cls, batched = FULL_WIDTH[name]
  assert (spec.cls, spec.batch, spec.ours, spec.sampled) == (cls, batched, True, False)
  job = jobs.Job("t", "kuhn_poker", name, 0, MARKS[-1], MARKS)
  solved = jobs.run_job(job)[0]
  assert solved.iterations == list(MARKS) and solved.engine == "flat"
  # The job measures the same average policies as the class's own exact evaluator, on the same
  # tree arrays: equal up to the rounding of the table round trip (measured: 0).
  assert solved.curve == pytest.approx(class_curve(cls, pyspiel.load_game("kuhn_poker"), MARKS),
                                       abs=1e-15)
  # OpenSpiel's walk of the final policy, the independent measure (measured: within 1e-16).
  assert solved.openspiel == pytest.approx(solved.curve[-1], abs=1e-10)


# On 13 cards (range vectors) each entry takes 1.5-3.5 s, mostly OpenSpiel's walks of the six
# final policies: the quick subset measures a range-vector batch through the registry with
# our_dcfr, and every entry on 3 cards; each rule's batch on range vectors equals its own solver
# bit for bit quick in tests/test_algorithms/cfr/test_batched_solver.py
# (test_every_rule_equals_its_single_game_solver_on_range_vectors).
@pytest.mark.parametrize("name, deck", [
    *((name, 3) for name in sorted(FULL_WIDTH)),
    *((name, 13) if name == "our_dcfr" else pytest.param(name, 13, marks=pytest.mark.slow)
      for name in sorted(FULL_WIDTH))])
def test_batches_of_the_entries_give_each_games_own_job(name, deck):
  # A batch solves each game as its own solver does (tests/test_algorithms/cfr/
  # test_batched_solver.py: bit for bit), on the flat tree (3 cards) and on range vectors (13),
  # so the batch's measures are those of one job per game.
  strings = [f"kuhn_poker_ante(deck_size={deck},ante={a})" for a in (0.5, 1.0, 2.0)]
  games = [game_loader.load_game(s) for s in strings]
  batched = solver_runs.solve_batch(games, name, 30, (1, 10))
  for string, solved in zip(strings, batched):
    alone = jobs.run_job(jobs.Job("t", string, name, 0, 30, (1, 10)))[0]
    assert solved.engine == alone.engine == ("flat" if deck == 3 else "range")
    assert (solved.curve, solved.returns, solved.openspiel) == (
        alone.curve, alone.returns, alone.openspiel)
  assert jobs.batches([jobs.Job("t", s, name, 0, 30) for s in strings]) == [
      tuple(jobs.Job("t", s, name, 0, 30) for s in strings)]


@pytest.mark.parametrize("ours", sorted(MCCFR))
def test_our_mccfr_entries_equal_openspiels_python_mccfr(ours):
  spec = solver_registry.get_solver(ours)
  assert (spec.seeded, spec.sampled, spec.ours, spec.batch) == (True, True, True, None)
  game = pyspiel.load_game("kuhn_poker")
  marks = (10, 100)
  solved = solver_runs.solve(game, ours, 5, 300, marks)
  reference = solver_runs.solve(game, MCCFR[ours], 5, 300, marks)
  assert solved.curve == pytest.approx(reference.curve, abs=1e-10)
  assert solved.returns == pytest.approx(reference.returns, abs=1e-10)
  # The job's seed is the solver's: another seed draws another run.
  other = solver_runs.solve(game, ours, 6, 300, marks)
  assert abs(other.curve[-1] - solved.curve[-1]) > 1e-6


def test_the_command_line_runs_every_new_entry(tmp_path):
  names = ["our_pcfr_plus", "our_dcfr_plus", "our_pdcfr_plus", *sorted(MCCFR)]
  argv = ["convergence", "--game", "kuhn_poker", "--iterations", "30", "--seeds", "2",
          "--quiet", "--out", str(tmp_path)]
  for name in names:
    argv += ["--solver", name]
  assert cli.main(argv) == 0  # every check passed
  frame = pd.read_csv(tmp_path / "convergence" / "convergence.csv")
  runs = frame.groupby("solver").agg(seeds=("seed", "nunique"), last=("iteration", "max"))
  factor = solver_registry.SAMPLED_BUDGET_FACTOR  # sampled solvers: more iterations and seeds
  assert runs.to_dict("index") == {
      **{name: {"seeds": 1, "last": 30} for name in names[:3]},
      **{name: {"seeds": 2, "last": 30 * factor} for name in MCCFR}}
  final = frame[frame.iteration == 30].set_index("solver").exploitability
  game = pyspiel.load_game("kuhn_poker")
  for name in names[:3]:
    assert final[name] == pytest.approx(
        class_curve(FULL_WIDTH[name][0], game, [30])[0], abs=1e-15)
