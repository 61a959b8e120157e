"""The harness under faults, through the real command line (issue: the harness under faults and
hostile folders): SIGTERM and SIGHUP end a run as Ctrl-C does (finished jobs kept, report
written, one line); a closed standard output stops the printing, not the run; Ctrl-C while the
program starts is one line; the ``--max-minutes`` deadline ends a whole run with a report that
says what was cut; large-deck keeps the solves that finished; a results folder with links or
entries of the wrong kind is refused in one line, nothing outside ``--out`` touched; ``--workers``
above the CPUs is capped. The same faults inside the harness: test_hostile_folders."""

import json
import os
import signal
import subprocess
import sys
import time
import types

import pytest
from test_scenarios import INTERRUPTIBLE_SWEEP
from test_scenarios import NEUTRAL
from test_scenarios import SMALL_SWEEP
from test_scenarios import assert_one_error_line
from test_scenarios import cli as run_cli
from test_scenarios import start
from test_scenarios import wait_for_jobs

from experiments import cli
from experiments.harness import checks
from experiments.harness import executors
from experiments.harness import folder_lock
from experiments.harness import report
from experiments.harness.section import ReportSection
from helpers import sweep_jobs


@pytest.mark.slow
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_stop_a_run_as_ctrl_c_does(tmp_path, signum, status):
  out = tmp_path / "results"
  process = start(*INTERRUPTIBLE_SWEEP, "--quiet", "--out", out)
  wait_for_jobs(out / "reference-check" / "jobs", 2, process)
  process.send_signal(signum)
  stdout, stderr = process.communicate(timeout=120)
  assert process.returncode == status, stderr
  name = signal.Signals(signum).name
  assert_one_error_line(stderr, f"terminated by {name}: ", "reference-check results kept",
                        "rerun the same command to resume")
  kept = int(stderr.split(f"terminated by {name}: ")[1].split(" of ")[0])
  assert kept >= 1 and len(list((out / "reference-check" / "jobs").glob("*.json"))) >= kept
  text = (out / report.REPORT_NAME).read_text()
  assert f"Terminated by {name}** before it finished" in text
  assert stdout.startswith("reference-check: INTERRUPTED")


@pytest.mark.slow
def test_a_closed_stdout_stops_the_printing_not_the_run(tmp_path):
  # As `python -m experiments ... | head -1`: the reader takes one line and goes away.
  out = tmp_path / "results"
  process = subprocess.Popen([sys.executable, "-m", "experiments", *SMALL_SWEEP, "--out", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=NEUTRAL)
  first = process.stdout.readline()
  process.stdout.close()
  stderr = process.stderr.read()
  assert process.wait(timeout=300) == 0, stderr
  assert "reference-check" in first
  assert stderr == ""  # No "Broken pipe", no traceback.
  assert "**PASS**" in (out / report.REPORT_NAME).read_text()
  assert len(list((out / "reference-check" / "jobs").glob("*.json"))) == 6


@pytest.mark.parametrize("delay", [0.2, 1.0, 3.0])
def test_ctrl_c_while_the_program_starts_is_one_line(tmp_path, delay):
  process = start("rps", "--quick", "--out", tmp_path / "results")
  time.sleep(delay)
  process.send_signal(signal.SIGINT)
  stdout, stderr = process.communicate(timeout=120)
  if process.returncode == 0:  # It finished first (an idle machine): nothing to test.
    return
  # 130, or killed by SIGINT (which a shell reports as 130): CPython ends so after a Ctrl-C that
  # reached code run through PyRun_* (pybind11's exec, as pyspiel's module loads), after the
  # program's one line.
  assert process.returncode in (130, -signal.SIGINT), stderr
  assert "Traceback" not in stderr and len(stderr.strip().splitlines()) <= 1, stderr
  assert "interrupted" in stderr


# A Ctrl-C inside a C extension's import, as Matplotlib's ``_image`` reports it: the import fails
# with "ImportError: initialization failed", its cause the KeyboardInterrupt (seen once in CI,
# where the signal hit a command module's ``import matplotlib.figure``).
_INTERRUPTED_IMPORT = """
import os, signal, sys, time
from experiments import __main__ as entry_point
from experiments import cli
def interrupted_import():
  os.kill(os.getpid(), signal.SIGINT)
  try:
    time.sleep(5)
  except KeyboardInterrupt as e:
    raise ImportError("initialization failed") from e
cli.command_modules = interrupted_import
sys.exit(entry_point.entry(prog="python -m experiments"))
"""


def test_ctrl_c_inside_a_command_modules_c_import_is_one_line():
  done = subprocess.run([sys.executable, "-c", _INTERRUPTED_IMPORT], capture_output=True,
                        text=True, timeout=120, cwd=NEUTRAL)
  assert done.returncode == 130, done.stderr
  assert done.stderr == "python -m experiments: interrupted while starting; nothing was run\n"


@pytest.mark.slow
def test_the_deadline_ends_a_whole_run_with_a_report_of_what_was_cut(tmp_path):
  out = tmp_path / "results"
  done = run_cli("run", "--quick", "--quiet", "--max-minutes", "0.02", "--out", out)
  assert done.returncode == 1, done.stderr
  assert_one_error_line(done.stderr, "stopped at the --max-minutes 0.02 deadline", "not run: ",
                        "rerun the same command to resume (with a larger --max-minutes")
  text = (out / report.REPORT_NAME).read_text()
  assert "**The last command was stopped at the --max-minutes 0.02 deadline**: not run" in text
  manifest = json.loads((out / "manifest.json").read_text())
  assert "rebel-learned" in manifest["not_run"]


@pytest.mark.slow
def test_large_deck_keeps_the_solves_that_finished(tmp_path):
  out = tmp_path / "results"
  argv = ("large-deck", "--quick", "--quiet", "--out", out)
  process = start(*argv)
  wait_for_jobs(out / "large-deck" / "jobs", 2, process)
  process.send_signal(signal.SIGINT)
  _, stderr = process.communicate(timeout=120)
  assert process.returncode == 130, stderr
  assert_one_error_line(stderr, "interrupted: ", "large-deck results kept")
  kept = int(stderr.split("interrupted: ")[1].split(" of ")[0])
  assert kept >= 1
  resumed = run_cli(*argv)
  assert resumed.returncode == 0, resumed.stdout + resumed.stderr
  assert int(resumed.stdout.split(" (")[1].split(" reused")[0]) >= kept


def _refused(tmp_path, capsys, *argv):
  out = tmp_path / "results"
  assert cli.main(["rps", "--quick", "--out", str(out), *argv]) == 2
  err = capsys.readouterr().err
  assert len(err.strip().splitlines()) == 1 and "error:" in err and "Traceback" not in err
  return err


def test_an_experiment_folder_that_is_a_link_is_refused_and_its_target_kept(tmp_path, capsys):
  target = tmp_path / "elsewhere"
  target.mkdir()
  (target / "precious.txt").write_text("keep me")
  (tmp_path / "results").mkdir()
  (tmp_path / "results" / "rps").symlink_to(target)
  assert "results/rps is a symbolic link" in _refused(tmp_path, capsys)
  assert (target / "precious.txt").read_text() == "keep me"
  assert [p.name for p in target.iterdir()] == ["precious.txt"]


@pytest.mark.parametrize("entry, kind", [
    (report.REPORT_NAME, "folder"), ("manifest.json", "link"), (folder_lock.LOCK_NAME, "link"),
    ("rps/section.json", "folder"), ("rps/jobs", "file")])
def test_a_folder_entry_of_the_wrong_kind_is_one_line(tmp_path, capsys, entry, kind):
  target = tmp_path / "precious.txt"
  target.write_text("keep me")
  path = tmp_path / "results" / entry
  path.parent.mkdir(parents=True)
  if kind == "folder":
    path.mkdir()
  elif kind == "file":
    path.write_text("")
  else:
    path.symlink_to(target)
  err = _refused(tmp_path, capsys)
  assert str(path) in err
  assert ("symbolic link" if kind == "link" else "not a") in err
  assert target.read_text() == "keep me"


def test_stale_temporary_files_are_removed(tmp_path):
  out = tmp_path / "results"
  (out / "rps" / "jobs").mkdir(parents=True)
  stale = [out / ".report.md.x1.tmp", out / "rps" / ".section.json.x2.tmp",
           out / "rps" / "jobs" / ".k.json.x3.tmp"]
  for path in stale:
    path.write_text("half written")
  assert cli.main(["rps", "--quick", "--quiet", "--out", str(out)]) == 0
  assert not any(path.exists() for path in stale)


def test_workers_above_the_cpus_are_capped_with_a_note(tmp_path, monkeypatch, capsys):
  monkeypatch.setattr(executors, "cpu_count", lambda: 2)
  made = []
  real = executors.make_executor
  monkeypatch.setattr(executors, "make_executor",
                      lambda workers, *rest: made.append(workers) or real(1, *rest))
  out = tmp_path / "results"
  assert cli.main(["rps", "--quick", "--quiet", "--workers", "12", "--out", str(out)]) == 0
  assert made == [2]
  assert "--workers 12 capped at the 2 CPUs" in capsys.readouterr().err
  assert cli.main(["rps", "--quick", "--quiet", "--workers", "3", "--oversubscribe", "--out",
                   str(out)]) == 0
  assert made == [2, 3]


def test_one_line_for_every_bad_argument_of_every_command(tmp_path, capsys):
  for module in cli.experiment_modules():
    assert cli.main([module.NAME, "--no-such-option", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unrecognized arguments: --no-such-option" in err, err



def _side(args, ctx):
  (ctx.out / "pid").write_text(str(os.getpid()))
  return ReportSection(title="Side", checks=[checks.same_number("side", 1.0, 1.0, "exact")])


def _pooled(args, ctx):
  (ctx.out / "pid").write_text(str(os.getpid()))
  results = ctx.run_jobs(sweep_jobs()[:2], description="pooled sweep")
  return ReportSection(title="Pooled", checks=[
      checks.at_most(f"{r.job.solver} exploitability", r.final, 10.0, "a loose bound")
      for r in results])


def _module(name, order, run, side):
  module = types.ModuleType(name)
  module.NAME, module.HELP, module.REPORT_ORDER, module.run = name, name, order, run
  module.add_arguments = lambda parser: None
  if side:
    module.SIDE_PROCESS = True
  return module


def test_experiments_without_jobs_run_beside_the_pool_in_report_order(tmp_path, monkeypatch,
                                                                       capsys):
  modules = [_module("side", 1, _side, True), _module("pooled", 2, _pooled, False)]
  monkeypatch.setattr(cli, "experiment_modules", lambda: modules)
  out = tmp_path / "r"
  assert cli.main(["run", "--quiet", "--workers", "2", "--out", str(out)]) == 0
  side_pid = int((out / "side" / "pid").read_text())
  assert side_pid != os.getpid() and int((out / "pooled" / "pid").read_text()) == os.getpid()
  printed = capsys.readouterr().out
  assert "side: PASS" in printed and "pooled: PASS" in printed
  text = (out / report.REPORT_NAME).read_text()
  assert text.index('<a id="side">') < text.index('<a id="pooled">')  # REPORT_ORDER kept.
  assert cli.main(["side", "--quiet", "--out", str(out)]) == 0  # Alone: in this process.
  assert int((out / "side" / "pid").read_text()) == os.getpid()
