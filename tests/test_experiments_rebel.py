"""Tests of the ``rebel`` experiment (experiments/rebel.py).

References: OpenSpiel's ``cfr.CFRSolver`` and ``exploitability.exploitability``; the experiment's
own checks compare with the closed-form game values.
"""

from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel
import pytest

from experiments import cli
from experiments import jobs
from experiments import plotting
from experiments import rebel
from experiments import solver_registry


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  out = tmp_path_factory.mktemp("results")
  code = cli.main(["rebel", "--quick", "--quiet", "--game", "kuhn_poker", "--out", str(out)])
  return code, out / "rebel"


@pytest.mark.slow
def test_quick_run_passes_its_checks_and_writes_outputs(quick_run):
  code, folder = quick_run
  assert code == 0  # Every check passed (engine = OpenSpiel, values within NashConv).
  table = pd.read_csv(folder / "rebel_table.csv")
  # 2 weightings x (full-game CFR + 3 algorithms x 2 depths).
  assert len(table) == 2 * 7
  assert list(table.columns) == ["game", "depth", "algorithm", "weighting", "T=100", "it/s"]
  figure = plotting.read_figure_summary(folder / "rebel.png")
  assert [a["title"] for a in figure["axes"]] == [
      f"kuhn_poker, depth {depth}" for depth in rebel.DEPTHS]
  for axes in figure["axes"]:
    assert (axes["xscale"], axes["yscale"]) == ("log", "log")
    # Full-game CFR and the three cut algorithms, uniform and linear.
    assert len(axes["lines"]) == 8 and "CFR-AVG, linear" in axes["lines"]


@pytest.mark.slow
def test_full_game_row_is_openspiel_cfr(quick_run):
  # Reference: OpenSpiel's Python CFR after 100 iterations, measured by OpenSpiel.
  _, folder = quick_run
  table = pd.read_csv(folder / "rebel_table.csv")
  game = pyspiel.load_game("kuhn_poker")
  solver = cfr.CFRSolver(game)
  for _ in range(100):
    solver.evaluate_and_update_policy()
  expected = exploitability.exploitability(game, solver.average_policy())
  row = table[(table.game == "kuhn_poker") & (table.algorithm == rebel.FULL_GAME) &
              (table.weighting == "uniform")]
  assert float(row["T=100"].iloc[0]) == pytest.approx(expected, abs=1e-12)


def test_every_setting_is_a_registry_entry():
  names = rebel.settings([1, 2])
  specs = [solver_registry.get_solver(n) for n in names]
  assert {(s.algorithm, s.options["depth_limit"], s.options["weighting"]) for s in specs} == {
      (algorithm, depth, weighting)
      for algorithm in ("CFR-D", "CFR-AVG", "modified CFR-AVG") for depth in (1, 2)
      for weighting in ("uniform", "linear")} | {
      (rebel.FULL_GAME, None, weighting) for weighting in ("uniform", "linear")}
  assert rebel.settings([1]) == [n for n in names if rebel.depth_of(n) in ("full", 1)]


def test_a_setting_job_measures_openspiels_exploitability():
  job = jobs.Job(rebel.NAME, "kuhn_poker", "cfr_avg_d2_linear", 0, 120,
                 measure_at=jobs.measuring_points(120, rebel.NUM_MEASURING_POINTS,
                                                  rebel.TABLE_ITERATIONS))
  solved, _ = jobs.run_job(job)
  assert solved.iterations[-1] == 120 and 100 in solved.iterations
  assert solved.curve[-1] == pytest.approx(solved.openspiel, abs=1e-12)
  assert rebel.leafless_cuts(["kuhn_poker"], [2]) == []  # "pb" is a leaf at depth 2.


@pytest.mark.parametrize("argv", [["--depth", "3"], ["--game", "leduc_poker"],
                                  ["--iterations", "0"]])
def test_bad_options_exit_2(tmp_path, capsys, argv):
  assert cli.main(["rebel", "--quiet", "--out", str(tmp_path / "r")] + argv) == 2
  assert "error" in capsys.readouterr().err
