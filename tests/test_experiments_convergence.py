"""Tests of experiments.convergence: checkpoints, jobs, and the checks of the final points."""

import pytest

from experiments import convergence
from experiments import sweep


def test_log_checkpoints():
  marks = convergence.log_checkpoints(1000)
  assert marks[0] == 1 and marks[-1] == 1000 and marks == sorted(set(marks))
  assert 15 <= len(marks) <= convergence.NUM_CHECKPOINTS
  assert convergence.log_checkpoints(1) == [1]


def test_make_jobs_seeds_only_sampled_solvers():
  jobs = convergence.make_jobs([("kuhn_poker", 50)], ["our_cfr", "cs_cfr"], seed=7, num_seeds=3)
  assert [(j.solver, j.seed) for j in jobs] == [("our_cfr", 7), ("cs_cfr", 7), ("cs_cfr", 8),
                                                ("cs_cfr", 9)]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
  jobs = convergence.make_jobs([("kuhn_poker", 60)], ["cfr", "our_cfr", "cfr_cpp", "cs_cfr"],
                               seed=0, num_seeds=2)
  return sweep.run_jobs(jobs, convergence.convergence_job, tmp_path_factory.mktemp("jobs"),
                        quiet=True)


def test_checks_of_the_final_points(results):
  checks = convergence.checks(results)
  assert checks and all(c.passed for c in checks), [c for c in checks if not c.passed]
  names = [c.name for c in checks]
  # OpenSpiel's Python CFR is the reference of both other implementations of the algorithm.
  assert "kuhn_poker our_cfr vs cfr: final exploitability" in names
  assert "kuhn_poker cfr_cpp vs cfr: final exploitability" in names
  value = [c for c in checks if c.name.startswith("kuhn_poker cfr seed 0") and "value" in c.name]
  assert value[0].reference == pytest.approx(-1 / 18)  # Kuhn 1950, via the LP.


def test_exploitability_decreases_and_plot_is_written(results, tmp_path):
  frame = convergence.results_frame(results)
  cfr = frame[frame.solver == "cfr"].exploitability.to_numpy()
  assert cfr[0] == pytest.approx(0.4583333333333333)  # Uniform play, OpenSpiel's Kuhn tests.
  assert cfr[-1] < 0.02
  path = convergence.plot_game(frame, "kuhn_poker", tmp_path / "k.png")
  assert path.stat().st_size > 10_000
