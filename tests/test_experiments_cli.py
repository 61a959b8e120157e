"""Tests of the command line (experiments.cli): bad options, the results folder, the report."""

import json

import pytest

from experiments import cli
from experiments import manifest
from experiments import report


@pytest.mark.parametrize("argv, message", [
    (["convergence", "--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["convergence", "--game", "kuhn_poker(ante=2.0)"], "bad game string"),
    (["convergence", "--game", "kuhn_poker_ante(ante=-1.0)"], "bad game string"),
    (["convergence", "--game", "matrix_rps"], "not a two-player zero-sum sequential game"),
    (["reference-check", "--solver", "no_such_solver"], "unknown solver 'no_such_solver'"),
    (["convergence", "--iterations", "-5"], "expected a positive integer, got -5"),
    (["ante-sweep", "--iterations", "0"], "expected a positive integer, got 0"),
    (["ante-sweep", "--ante", "-0.5"], "expected a finite positive number"),
    (["convergence", "--seed", "-1"], "expected an integer >= 0"),
    (["convergence", "--workers", "0"], "expected a positive integer"),
    (["rps", "--iterations", "0"], "expected a positive integer, got 0"),
    (["landscape", "--solver", "no_such_solver"], "unknown solver 'no_such_solver'"),
    (["landscape", "--bet", "inf"], "expected a finite positive number"),
    (["head-to-head", "--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["head-to-head", "--hands", "0"], "expected a positive integer, got 0"),
    (["strategy-tables", "--game", "kuhn_poker_ante(ante=0.0)"], "bad game string"),
    (["no-such-command"], "invalid choice"),
])
def test_bad_arguments_fail_cleanly(argv, message, tmp_path, capsys):
  out = tmp_path / "results"
  assert cli.main(argv + ["--out", str(out)]) == 2
  err = capsys.readouterr().err
  assert message in err and "error:" in err
  assert "Traceback" not in err and "OpenSpiel exception" not in err
  assert not out.exists()  # Nothing half-written.


def test_help_lists_every_command(capsys):
  assert cli.main(["--help"]) == 0
  text = capsys.readouterr().out
  for name in ["run", "reference-check", "convergence", "ante-sweep"]:
    assert name in text
  assert cli.main(["convergence", "--help"]) == 0
  text = capsys.readouterr().out
  for option in ["--quick", "--out", "--seed", "--quiet", "--workers", "--dask", "--game",
                 "--solver"]:
    assert option in text


def test_every_registered_experiment_follows_the_protocol():
  for module in cli.experiment_modules():
    assert isinstance(module.NAME, str) and isinstance(module.HELP, str)
    assert callable(module.add_arguments) and callable(module.run)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  out = tmp_path_factory.mktemp("run") / "results"
  code = cli.main(["run", "--quick", "--quiet", "--only", "ante-sweep", "--only", "convergence",
                   "--out", str(out)])
  return code, out


def test_run_writes_report_manifest_and_sections(quick_run):
  code, out = quick_run
  assert code == 0
  text = (out / report.REPORT_NAME).read_text()
  assert "## Summary" in text and "**PASS**" in text
  records = report.load_sections(out, ["convergence", "ante-sweep"])
  assert [r.experiment for r in records] == ["convergence", "ante-sweep"]
  for r in records:
    assert r.status == "PASS" and r.section.checks
    for figure in r.section.figures:  # Embedded and present.
      assert f"]({r.experiment}/{figure})" in text
      assert (out / r.experiment / figure).stat().st_size > 0
    for table in r.section.tables:
      assert (out / r.experiment / table).exists()
  data = json.loads((out / manifest.MANIFEST_NAME).read_text())
  assert data["command"][1:3] == ["run", "--quick"]
  assert data["seeds"] == {"seed": 0}
  assert data["machine"]["cpu_count"] >= 1 and data["packages"]["open_spiel"]
  assert data["start"] <= data["end"]
  assert data["experiments"] == {"convergence": "PASS", "ante-sweep": "PASS"}
  assert (out / "convergence" / manifest.MANIFEST_NAME).exists()
  assert not list(out.rglob("*.tmp"))  # Atomic writes leave no temporary files.


def test_rerun_resumes_and_keeps_other_sections(quick_run, capsys):
  code, out = quick_run
  jobs = sorted((out / "convergence" / "jobs").iterdir())
  stamps = [p.stat().st_mtime_ns for p in jobs]
  assert cli.main(["convergence", "--quick", "--quiet", "--out", str(out)]) == 0
  assert [p.stat().st_mtime_ns for p in jobs] == stamps  # Finished jobs were not rerun.
  assert "| convergence |" in capsys.readouterr().out
  text = (out / report.REPORT_NAME).read_text()
  assert "## Ante sweep" in text  # The other experiment's section stays in the report.
