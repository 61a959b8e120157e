"""Tests of the ``rebel`` experiment (experiments/commands/rebel.py).

References: OpenSpiel's ``cfr.CFRSolver`` and ``exploitability.exploitability``; the experiment's
own checks compare with the closed-form game values.
"""

import matplotlib.colors
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel
import pytest

from experiments import cli
from experiments.commands import rebel
from experiments.harness import jobs
from experiments.harness import plotting
from experiments.harness import solver_registry


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
  assert figure["title"].startswith("Exploitability of the average policy")
  assert [a["title"] for a in figure["axes"]] == [
      f"kuhn_poker, depth {depth}" for depth in rebel.DEPTHS]
  for axes in figure["axes"]:
    assert (axes["xscale"], axes["yscale"]) == ("log", "log")
    assert axes["ylabel"] == "exploitability (chips per hand, log scale)"
    # Full-game CFR and the three cut algorithms, uniform and linear, and the guide.
    assert len(axes["lines"]) == 9 and "CFR-AVG, linear" in axes["lines"]
    assert plotting.SQRT_GUIDE in axes["lines"] and axes["texts"] == []  # Both cuts have leaves.
  [legend] = figure["legends"]
  assert len(legend["entries"]) == 9 and legend["overlaps"] == []


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


def _fake_frame(game, shift):
  """Exploitability curves of every setting on ``game`` at depths 1 and 2: full-game CFR's
  1/sqrt(T), the cut algorithms' the same plus ``shift`` at depth 2, and 2/sqrt(T) at depth 1."""
  rows = []
  names = {name: solver_registry.get_solver(name) for name in rebel.settings(rebel.DEPTHS)}
  for name, spec in names.items():
    depth = rebel.depth_of(name)
    for t in (1, 10, 100):
      value = t ** -0.5 * (2 if depth == 1 else 1) + (shift if depth == 2 else 0.0)
      rows.append({"game": game, "depth": depth, "algorithm": spec.algorithm,
                   "weighting": spec.options["weighting"], "iteration": t,
                   "exploitability": value, "seconds": 0.001 * t})
  return pd.DataFrame(rows)


@pytest.mark.parametrize("shift", [0.0, 1e-6])
def test_a_cut_without_leaf_says_so_and_draws_identical_curves_once(shift):
  # The simplified game has no leaf at depth 2 (the README's ReBeL section): every algorithm is
  # full-game CFR there, so its curves are drawn once, unless they differ (negative control).
  game = "kuhn_poker_ante(ante=2.0,simplified=True)"
  assert rebel.has_leaf(game, 1) and not rebel.has_leaf(game, 2)
  summary = plotting.describe_figure(rebel.plot(_fake_frame(game, shift), [game], rebel.DEPTHS))
  depth1, depth2 = summary["axes"]
  assert depth1["texts"] == [] and len(depth1["lines"]) == 9
  assert depth2["texts"][0].startswith("no leaf at depth 2: CFR-D, CFR-AVG and modified")
  if shift == 0.0:
    assert "(identical curves to 1e-9, not drawn)" in depth2["texts"][0]
    assert depth2["lines"] == ["CFR (full game), uniform", "CFR (full game), linear",
                               plotting.SQRT_GUIDE]
  else:
    assert "identical" not in depth2["texts"][0] and len(depth2["lines"]) == 9
  assert depth2["title"] == f"{game}, depth 2"  # The game string as everywhere: True, not true.
  # Every setting has the registry's colour and look (the same in every figure).
  assert depth1["styles"]["CFR-AVG, linear"]["color"] == matplotlib.colors.to_hex(
      plotting.solver_style("cfr_avg_d1_linear")["color"])
  assert depth1["styles"]["CFR-AVG, linear"]["linestyle"] == "--"
