"""Tests of the command line (experiments.cli): bad options, help texts, the results folder and
the report."""

import argparse
import json

import pytest

from experiments import cli
from experiments.harness import plotting
from experiments.harness import provenance
from experiments.harness import report


@pytest.mark.parametrize("argv, message", [
    (["convergence", "--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["convergence", "--game", "kuhn_poker(ante=2.0)"], "bad game string"),
    (["convergence", "--game", "kuhn_poker_ante(ante=-1.0)"], "bad game string"),
    (["convergence", "--game", "matrix_rps"], "not a sequential game"),
    (["convergence", "--game", "kuhn_poker(players=3)", "--solver", "cfr_avg_d1"],
     "needs a two-player zero-sum game; kuhn_poker(players=3) has 3 players"),
    (["reference-check", "--game", "kuhn_poker(players=4)", "--solver", "cfr_d_d2"],
     "needs a two-player zero-sum game; kuhn_poker(players=4) has 4 players"),
    (["reference-check", "--solver", "no_such_solver"], "unknown solver 'no_such_solver'"),
    (["convergence", "--iterations", "-5"], "expected a positive integer, got -5"),
    (["ante-sweep", "--iterations", "0"], "expected a positive integer, got 0"),
    (["ante-sweep", "--ante", "-0.5"], "expected a finite positive number"),
    (["convergence", "--seed", "-1"], "expected an integer >= 0"),
    (["convergence", "--workers", "0"], "expected a positive integer"),
    (["convergence", "--max-minutes", "0"], "expected a finite positive number"),
    (["rps", "--iterations", "0"], "expected a positive integer, got 0"),
    (["landscape", "--solver", "no_such_solver"], "unknown solver 'no_such_solver'"),
    (["landscape", "--bet", "inf"], "expected a finite positive number"),
    (["head-to-head", "--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["head-to-head", "--hands", "0"], "expected a positive integer, got 0"),
    (["head-to-head", "--p0", "bogus"], "unknown policy 'bogus'"),
    (["strategy-tables", "--game", "kuhn_poker_ante(ante=0.0)"], "bad game string"),
    (["strategy-tables", "--game", "leduc_poker"], "Kuhn game"),
    (["convergence", "--game", "tic_tac_toe"], "over the limit --max-minutes 60"),
    (["no-such-command"], "invalid choice"),
])
def test_bad_arguments_fail_cleanly(argv, message, tmp_path, capsys):
  out = tmp_path / "results"
  assert cli.main(argv + ["--out", str(out)]) == 2
  err = capsys.readouterr().err
  assert message in err and "error:" in err
  lines = err.strip().splitlines()  # argparse's usage lines, then one error line.
  assert "error:" in lines[-1] and sum("error:" in line for line in lines) == 1
  assert "Traceback" not in err and "OpenSpiel exception" not in err
  assert not out.exists()  # Nothing half-written.


def test_help_lists_every_command_and_names_the_program(capsys):
  assert cli.main(["--help"]) == 0
  text = capsys.readouterr().out
  assert text.startswith("usage: kuhn-experiments ")  # The console script's own name.
  for name in ["run", "reference-check", "convergence", "ante-sweep", "rebel"]:
    assert name in text
  assert cli.main(["--help"], prog="python -m experiments") == 0
  assert capsys.readouterr().out.startswith("usage: python -m experiments ")


def _options(parser: argparse.ArgumentParser):
  return [a for a in parser._actions if a.option_strings and a.dest != "help"]


@pytest.mark.parametrize("command", ["run"] + [m.NAME for m in cli.experiment_modules()])
def test_every_help_text_is_formatted_and_states_its_default(command, capsys):
  assert cli.main([command, "--help"]) == 0
  text = capsys.readouterr().out
  assert "%%" not in text and "%(" not in text
  for option in ["--quick", "--out", "--seed", "--quiet", "--fresh", "--workers", "--dask",
                 "--dask-timeout", "--max-minutes"]:
    assert option in text
  parser = cli.build_parser(cli.experiment_modules())
  sub = parser._subparsers._group_actions[0].choices[command]
  for action in _options(sub):
    if isinstance(action, argparse._StoreTrueAction):
      continue  # A flag: off unless given.
    assert "default" in (action.help or ""), f"{command} {action.option_strings[0]}"


def test_head_to_head_help_shows_its_percent_sign_and_defaults(capsys):
  assert cli.main(["head-to-head", "--help"]) == 0
  text = " ".join(capsys.readouterr().out.split())
  assert "with a 95% interval" in text
  assert "(default: kuhn_poker_ante)" in text and "(default: cfr:1000)" in text
  assert "(default: equilibrium)" in text


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  out = tmp_path_factory.mktemp("run") / "results"
  code = cli.main(["run", "--quick", "--quiet", "--only", "ante-sweep", "--only", "rps",
                   "--out", str(out)])
  return code, out


@pytest.mark.slow
def test_run_writes_report_manifest_and_sections(quick_run):
  code, out = quick_run
  assert code == 0
  text = (out / report.REPORT_NAME).read_text()
  assert "## Summary" in text and "**PASS**" in text
  stamp = provenance.code_stamp()
  assert f"code fingerprint {stamp['fingerprint']}" in text
  records = report.load_sections(out, ["ante-sweep", "rps"])
  assert [r.experiment for r in records] == ["ante-sweep", "rps"]
  assert records[0].jobs["computed"] == records[0].jobs["total"] == 10
  assert records[1].jobs["total"] == 0  # rps runs no sweep.
  for r in records:
    assert r.status == "PASS" and r.section.checks and r.code == stamp
    for figure in r.section.figures:  # Embedded, and drawn with labelled axes and series.
      assert f"]({r.experiment}/{figure})" in text
      summary = plotting.read_figure_summary(out / r.experiment / figure)
      assert summary["axes"] and all(a["xlabel"] and a["lines"] for a in summary["axes"])
    for table in r.section.tables:
      assert (out / r.experiment / table).exists()
  data = json.loads((out / provenance.MANIFEST_NAME).read_text())
  assert data["command"][1:3] == ["run", "--quick"]
  assert data["seeds"] == {"seed": 0}
  assert data["machine"]["cpu_count"] >= 1 and data["packages"]["open_spiel"]
  assert data["start"] <= data["end"]
  assert {name: e["status"] for name, e in data["experiments"].items()} == {
      "ante-sweep": "PASS", "rps": "PASS"}
  assert data["experiments"]["ante-sweep"]["code"] == stamp
  assert (out / "ante-sweep" / provenance.MANIFEST_NAME).exists()
  assert not list(out.rglob("*.tmp"))  # Atomic writes leave no temporary files.


@pytest.mark.slow
def test_rerun_resumes_and_keeps_other_sections(quick_run, capsys):
  code, out = quick_run
  jobs = sorted((out / "ante-sweep" / "jobs").iterdir())
  stamps = [p.stat().st_mtime_ns for p in jobs]
  assert cli.main(["ante-sweep", "--quick", "--quiet", "--out", str(out)]) == 0
  assert [p.stat().st_mtime_ns for p in jobs] == stamps  # Finished jobs were not rerun.
  line = capsys.readouterr().out.strip()
  assert line.startswith("ante-sweep: PASS") and f"({len(jobs)} reused)" in line
  assert len(line.splitlines()) == 1  # --quiet: one line per experiment.
  text = (out / report.REPORT_NAME).read_text()
  assert "## Rock-paper-scissors" in text  # The other experiment's section stays in the report.
  assert f"{len(jobs)} reused (finished" in text
  # --fresh recomputes every job.
  assert cli.main(["ante-sweep", "--quick", "--quiet", "--fresh", "--out", str(out)]) == 0
  assert all(a != b for a, b in zip([p.stat().st_mtime_ns for p in jobs], stamps))
  assert "(0 reused)" in capsys.readouterr().out
