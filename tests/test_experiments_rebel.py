"""Tests of the ``rebel`` experiment (experiments/rebel.py).

References: OpenSpiel's ``cfr.CFRSolver`` and ``exploitability.exploitability``; the experiment's
own checks compare with the sequence-form LP's game values.
"""

import pandas as pd
import pytest
import pyspiel

from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability

from experiments import cli
from experiments import rebel
from experiments import sweep


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  out = tmp_path_factory.mktemp("results")
  code = cli.main(["rebel", "--quick", "--quiet", "--out", str(out)])
  return code, out / "rebel"


def test_quick_run_passes_its_checks_and_writes_outputs(quick_run):
  code, folder = quick_run
  assert code == 0  # Every check passed (engine = OpenSpiel, values within NashConv of the LP).
  for name in ("rebel.csv", "rebel_table.csv", "rebel.png"):
    assert (folder / name).stat().st_size > 0
  table = pd.read_csv(folder / "rebel_table.csv")
  # 3 games x 2 weightings x (full-game CFR + 3 algorithms x 2 depths).
  assert len(table) == 3 * 2 * 7
  assert list(table.columns) == ["game", "depth", "algorithm", "weighting", "T=100", "it/s"]


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


def test_run_setting_final_point_is_openspiel_exploitability():
  job = sweep.Job(rebel.NAME, "kuhn_poker", rebel.setting_name("CFR-AVG", 2, "linear"), 0, 120)
  result = rebel.run_setting(job)
  assert result["iterations"][-1] == 120 and 100 in result["iterations"]
  assert result["exploitability"][-1] == pytest.approx(result["openspiel_exploitability"],
                                                       abs=1e-12)
  assert result["num_leaves"] == 1  # "pb" is kuhn_poker's only non-terminal state at depth 2.


def test_checkpoints_and_settings():
  assert rebel.checkpoints(3000)[-1] == 3000 and {100, 1000, 3000} <= set(rebel.checkpoints(3000))
  assert rebel.checkpoints(1)[0] == 1
  for name in (rebel.setting_name("CFR-D", 1, "uniform"),
               rebel.setting_name(rebel.FULL_GAME, None, "linear")):
    assert rebel.setting_name(*rebel.parse_setting(name)) == name
  with pytest.raises(ValueError, match="unknown algorithm"):
    rebel.build_solver(pyspiel.load_game("kuhn_poker"), "CFR-X", 1, "uniform")


@pytest.mark.parametrize("argv", [["--depth", "3"], ["--game", "leduc_poker"],
                                  ["--iterations", "0"]])
def test_bad_options_exit_2(tmp_path, capsys, argv):
  assert cli.main(["rebel", "--quiet", "--out", str(tmp_path / "r")] + argv) == 2
  assert "error" in capsys.readouterr().err
