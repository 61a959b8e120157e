"""Tests of experiments.convergence: measuring points, jobs, the checks and the figure."""

import copy

import pytest

from experiments import convergence
from experiments import jobs
from experiments.context import Context


def test_measuring_points_are_log_spaced_and_end_at_t():
  marks = jobs.measuring_points(1000, convergence.NUM_MEASURING_POINTS)
  assert marks[0] == 1 and marks[-1] == 1000 and marks == sorted(set(marks))
  assert 15 <= len(marks) <= convergence.NUM_MEASURING_POINTS
  # Log spacing: consecutive ratios stay near 1000^(1/19) = 1.44 once rounding stops mattering.
  ratios = [b / a for a, b in zip(marks, marks[1:]) if a >= 20]
  assert all(1.3 < r < 1.6 for r in ratios), ratios
  assert jobs.measuring_points(1, 20) == [1]
  assert jobs.measuring_points(50, 4, extra=(7, 100)) == [1, 4, 7, 14, 50]


def test_make_jobs_seeds_only_sampled_solvers():
  made = convergence.make_jobs([("kuhn_poker", 50)], ["our_cfr", "cs_cfr"], seed=7, num_seeds=3)
  assert [(j.solver, j.seed, j.iterations) for j in made] == [
      ("our_cfr", 7, 50), ("cs_cfr", 7, 500), ("cs_cfr", 8, 500), ("cs_cfr", 9, 500)]
  assert made[0].measure_at[-1] == 50 and made[1].measure_at[-1] == 500


@pytest.fixture(scope="module")
def results(tmp_path_factory):
  ctx = Context(convergence.NAME, tmp_path_factory.mktemp("convergence"))
  return ctx.run_jobs(convergence.make_jobs([("kuhn_poker", 60)],
                                            ["cfr", "our_cfr", "cfr_cpp", "cs_cfr"], seed=0,
                                            num_seeds=2))


def test_checks_of_the_final_points(results):
  found = convergence.final_checks(results)
  assert found and all(c.passed for c in found), [c for c in found if not c.passed]
  names = [c.name for c in found]
  # OpenSpiel's Python CFR is the reference of both other implementations of the algorithm.
  assert "kuhn_poker our_cfr vs cfr: final exploitability" in names
  assert "kuhn_poker cfr_cpp vs cfr: final exploitability" in names
  value = [c for c in found if c.name.startswith("kuhn_poker cfr seed 0") and "value" in c.name]
  assert value[0].reference == pytest.approx(-1 / 18)  # Kuhn 1950, the closed form.


def test_checks_fail_for_a_wrong_final_point(results):
  # Negative control: a run whose value is off by more than its NashConv fails its value check.
  broken = copy.deepcopy(results[0])
  broken.solved.returns = [broken.value + 2 * broken.nash_conv + 0.01, 0.0]
  failed = [c for c in convergence.final_checks([broken]) if not c.passed]
  assert [c.name for c in failed] == ["kuhn_poker cfr seed 0 T=60: value of the average policy"]


def test_exploitability_decreases_and_figure_shows_every_solver(results):
  frame = convergence.results_frame(results)
  cfr = frame[frame.solver == "cfr"].exploitability.to_numpy()
  assert cfr[0] == pytest.approx(0.4583333333333333)  # Uniform play, OpenSpiel's Kuhn tests.
  assert cfr[-1] < 0.02
  fig = convergence.plot_game(frame, "kuhn_poker")
  by_iterations, by_time = fig.axes
  assert (by_iterations.get_xscale(), by_iterations.get_yscale()) == ("log", "log")
  assert by_iterations.get_xlabel() == "iterations T"
  assert by_time.get_xlabel() == "solver time (s)"
  assert "exploitability" in by_iterations.get_ylabel()
  legend = [t.get_text() for t in by_iterations.get_legend().get_texts()]
  assert set(legend) == {"CFR (OpenSpiel)", "CFR (ours)", "CFR (OpenSpiel C++)",
                         "chance-sampling CFR (ours)", r"$O(1/\sqrt{T})$"}
  # The plotted CFR series is the measured one, at the measuring points.
  line = by_iterations.get_lines()[0]
  assert list(line.get_ydata()) == pytest.approx(list(cfr))
  assert fig.get_suptitle() == "kuhn_poker: exact exploitability of the average policy"
