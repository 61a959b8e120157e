"""The time-to-target script: its measures, table and figure (never its speed).

References: OpenSpiel's ``exploitability.nash_conv`` of each solver's average policy (the
script's measures are the solvers' own evaluators); the table's times come from the checkpoints
the script recorded, so they are checked against those.
"""

import math
import re

from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel
import pytest

from experiments.harness import plotting
from experiments.scripts import time_to_target

SOLVERS = ["our_cfr_plus", "our_dcfr", "our_external", "cpp_cfr_plus", "cpp_external"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  out = tmp_path_factory.mktemp("ttt")
  table = time_to_target.main(["--quick", "--seconds", "0.3", "--seeds", "2", "--games",
                               "kuhn_poker", "kuhn_poker(players=3)", "--solvers", *SOLVERS,
                               "--out", str(out)])
  return out, table


def test_measures_equal_openspiels():
  game = pyspiel.load_game("kuhn_poker(players=3)")
  context = time_to_target.GameContext(game)
  peers = time_to_target.peers()
  for name in SOLVERS:
    peer = peers[name]
    solver = peer.build(game, 0)
    peer.step(solver, 50)
    policy = (solver.average_policy() if name != "cpp_external"
              else context.tabulate(solver.average_policy()))
    if name == "cpp_cfr_plus":  # A pyspiel policy: OpenSpiel's C++ NashConv is the reference.
      reference = pyspiel.nash_conv(game, policy)
    else:
      reference = exploitability.nash_conv(game, policy)
    assert peer.nash_conv(context, solver) == pytest.approx(reference, abs=1e-10)


def test_table_times_come_from_the_checkpoints(quick_run):
  out, table = quick_run
  frame = pd.read_csv(out / "time_to_target.csv")
  assert set(frame["solver"]) == set(SOLVERS)
  for _, row in table.iterrows():
    game = row["game"].strip("`")
    runs = frame[(frame["game"] == game) & (frame["label"] == row["solver"])]
    times = []
    for target in time_to_target.TARGETS:
      per_seed = [time_to_target.time_to(r.to_dict("records"), target)
                  for _, r in runs.groupby("seed")]
      median = sorted(per_seed)[len(per_seed) // 2] if len(per_seed) % 2 else (
          sum(sorted(per_seed)[len(per_seed) // 2 - 1:len(per_seed) // 2 + 1]) / 2)
      cell = row[f"CPU s to {target:g}"]
      if math.isfinite(median):
        assert float(cell) == pytest.approx(median, rel=1e-2)
      else:
        assert cell.startswith(">")
      times.append(median)
    assert times == sorted(times)  # a lower target is never reached sooner
  # Checkpoints grow by GROWTH and time only accumulates.
  for _, run in frame.groupby(["game", "solver", "seed"]):
    assert (run["iterations"].diff().dropna() > 0).all()
    assert (run["cpu_seconds"].diff().dropna() >= 0).all()


def test_figure_has_one_log_log_panel_per_game(quick_run):
  out, _ = quick_run
  summary = plotting.read_figure_summary(out / "time_to_target.png")
  panels = [ax for ax in summary["axes"] if ax.get("title")]
  assert [ax["title"] for ax in panels] == ["kuhn_poker", "kuhn_poker(players=3)"]
  for ax in panels:
    assert ax["xscale"] == "log" and ax["yscale"] == "log"
    assert "CPU time" in ax["xlabel"]
  assert panels[0]["ylabel"].startswith("exploitability")
  assert panels[1]["ylabel"].startswith("NashConv")
  legend = summary["legends"][0]
  # A sampled solver's seeds are thin lines, said in its entry.
  assert {re.sub(r", \d+ seeds \(thin lines\)$", "", e) for e in legend["entries"]} == {
      time_to_target.peers()[s].label for s in SOLVERS}
  assert summary["title"].startswith("Time to target: exploitability")
  assert not legend["overlaps"]  # below the panels, over no data


def test_unknown_solver_is_a_one_line_error(capsys):
  with pytest.raises(SystemExit) as exit_info:
    time_to_target.main(["--solvers", "fastest"])
  assert exit_info.value.code == 2
  assert "unknown solver 'fastest'; allowed:" in capsys.readouterr().err


def test_saved_runs_merge_with_new_rows_replacing_old(quick_run, tmp_path):
  # A new solver's rows, run alone, join a saved table: a later file replaces the (game,
  # solver) runs it holds, keeps the others, and the table is ordered as a run's.
  out, table = quick_run
  saved = pd.read_csv(out / "time_to_target.csv")
  new = saved[saved["solver"] == "our_dcfr"].assign(cpu_seconds=lambda f: f.cpu_seconds * 2)
  new.to_csv(tmp_path / "new.csv", index=False)
  merged = time_to_target.merged([out / "time_to_target.csv", tmp_path / "new.csv"])
  assert len(merged) == len(saved)
  pd.testing.assert_frame_equal(merged[merged["solver"] != "our_dcfr"].reset_index(drop=True),
                                saved[saved["solver"] != "our_dcfr"].reset_index(drop=True))
  assert (merged[merged["solver"] == "our_dcfr"]["cpu_seconds"].to_numpy()
          == new["cpu_seconds"].to_numpy()).all()
  replot = tmp_path / "replot"
  again = time_to_target.main(["--from-csv", str(out / "time_to_target.csv"), "--seconds", "0.3",
                               "--out", str(replot)])
  pd.testing.assert_frame_equal(again, table)
  assert (replot / "time_to_target.png").is_file()


def test_missing_saved_run_is_a_one_line_error(capsys, tmp_path):
  with pytest.raises(SystemExit) as exit_info:
    time_to_target.main(["--from-csv", str(tmp_path / "none.csv")])
  assert exit_info.value.code == 2
  assert "--from-csv: no such file" in capsys.readouterr().err
