"""What a person meets: each scenario of the harness issue through the real command line, in a
subprocess (one bad ``--out`` through the command line's ``main`` in this process), checking what
it prints, its exit code and what it leaves behind.

No scenario may print a traceback: bad options and ``--out`` problems are one ``error:`` line
(exit 2, nothing written); Ctrl-C is one line (exit 130) and the report is rendered from what
finished; an unreachable Dask scheduler is one line after a short timeout; a crashing job is in
the report and the rest goes on (exit 1); an oversized sweep is refused before work; changed code
reruns its jobs and unchanged code resumes them; a sweep killed with SIGKILL resumes to the same
numbers; without a terminal, plain lines say when each experiment starts (with its sweep's
estimate) and ends.
"""

import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from algorithms.cfr import cfr_engine
from experiments import cli as experiments_cli
from experiments.commands import reference_check
from experiments.harness import context
from experiments.harness import jobs
from experiments.harness import report
import helpers

REPO = helpers.REPO
SMALL_GAMES = ("kuhn_poker", "kuhn_poker_ante(ante=2.0)",
               "kuhn_poker_ante(ante=0.25,simplified=True)")


def reference_sweep(iterations: int, *solvers: str):
  """``reference-check --quick`` of ``solvers`` on ``SMALL_GAMES``."""
  return ["reference-check", "--quick", *[x for s in solvers for x in ("--solver", s)],
          "--iterations", str(iterations), *[x for game in SMALL_GAMES for x in ("--game", game)]]


# Two fast solvers on three reference games: 6 jobs of a few tenths of a second.
SMALL_SWEEP = reference_sweep(3000, "our_cfr", "cs_cfr")
# The same with OpenSpiel's Python CFR added (0.2-2 s per job at 1,000 iterations, 4 s of CPU in
# all; 13 s at 3,000): the compiled solvers' jobs can all finish between "a job was saved" and
# the signal, these cannot.
INTERRUPTIBLE_SWEEP = reference_sweep(1000, "our_cfr", "cs_cfr", "cfr")


# A folder holding no package folder (neither the packages nor a folder of their names, which
# Python would import as a namespace package in place of an editable install's).
NEUTRAL = pathlib.Path(__file__).resolve().parent


def cli(*argv, env=None, timeout=300, cwd=None):
  """Runs ``python -m experiments ARGV`` in ``cwd`` (default: ``NEUTRAL``, so that the installed
  or PYTHONPATH packages are imported); returns the completed process."""
  return subprocess.run([sys.executable, "-m", "experiments", *map(str, argv)],
                        capture_output=True, text=True, timeout=timeout, env=env,
                        cwd=cwd or NEUTRAL)


def start(*argv):
  return subprocess.Popen([sys.executable, "-m", "experiments", *map(str, argv)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=NEUTRAL, preexec_fn=helpers.default_ctrl_c)


def assert_one_error_line(stderr: str, *fragments: str) -> None:
  assert "Traceback" not in stderr
  lines = stderr.strip().splitlines()
  assert len(lines) == 1, stderr
  for fragment in fragments:
    assert fragment in lines[0], lines[0]


def wait_for_jobs(folder: pathlib.Path, count: int, process, limit: float = 240) -> None:
  """Waits until ``folder`` holds ``count`` saved results, or one saved result and a temporary
  file being written (so at least one job is saved, and counted, when it returns)."""
  deadline = time.monotonic() + limit
  while time.monotonic() < deadline:
    if process.poll() is not None:
      pytest.fail(f"finished before it could be interrupted: {process.communicate()}")
    saved = len(list(folder.glob("*.json"))) if folder.is_dir() else 0
    if saved >= count or (saved and list(folder.glob(".*.tmp"))):
      return
    time.sleep(0.05)
  pytest.fail("no job finished in time")


def numbers(result: jobs.JobResult):
  """What a job computed, its timings dropped."""
  found = dict(result.solved.__dict__)
  found.pop("seconds")
  return found


def saved_numbers(folder: pathlib.Path):
  """{job key: ``numbers``} of the results saved in ``folder``."""
  return {path.stem: numbers(jobs.JobResult.from_json(json.loads(path.read_text())))
          for path in folder.glob("*.json")}


def test_out_naming_a_file(tmp_path, capsys):
  # Through the command line's main in this process (a subprocess costs 2-3 s): the same code
  # from the arguments to the error line; test_out_that_cannot_be_written runs the real program
  # on the other --out refusal.
  target = tmp_path / "results.txt"
  target.write_text("keep me")
  assert experiments_cli.main(["rps", "--quick", "--out", str(target)],
                              prog="python -m experiments") == 2
  captured = capsys.readouterr()
  assert captured.out == ""
  assert_one_error_line(captured.err, "error: --out", "exists and is not a folder")
  assert target.read_text() == "keep me"


def test_out_that_cannot_be_written(tmp_path):
  if os.geteuid() == 0:  # Permissions do not stop root: use a read-only file system.
    target = pathlib.Path("/sys/kuhn-cfr-results")
  else:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    target = folder / "results"
  done = cli("rps", "--quick", "--out", target)
  assert done.returncode == 2 and done.stdout == ""
  assert_one_error_line(done.stderr, f"error: --out {target}: cannot write there")


@pytest.mark.slow
def test_ctrl_c_keeps_finished_jobs_renders_the_report_and_resumes(tmp_path):
  out = tmp_path / "results"
  process = start(*INTERRUPTIBLE_SWEEP, "--quiet", "--out", out)
  wait_for_jobs(out / "reference-check" / "jobs", 2, process)
  process.send_signal(signal.SIGINT)
  stdout, stderr = process.communicate(timeout=120)
  assert process.returncode == 130
  assert_one_error_line(stderr, "interrupted: ", "reference-check results kept",
                        "rerun the same command to resume")
  kept = int(stderr.split("interrupted: ")[1].split(" of ")[0])
  assert kept >= 1 and stdout.startswith("reference-check: INTERRUPTED")
  text = (out / "report.md").read_text()
  assert "INTERRUPTED" in text and "rerun the same command to resume" in text
  resumed = cli(*INTERRUPTIBLE_SWEEP, "--quiet", "--out", out)
  assert resumed.returncode == 0, resumed.stdout + resumed.stderr
  reused = int(resumed.stdout.split(" (")[1].split(" reused")[0])
  assert reused >= kept and resumed.stdout.startswith("reference-check: PASS")


@pytest.mark.slow
def test_unreachable_dask_scheduler(tmp_path):
  begin = time.monotonic()
  done = cli("convergence", "--quick", "--dask", "tcp://127.0.0.1:9", "--dask-timeout", "1",
             "--out", tmp_path / "r")
  assert time.monotonic() - begin < 30  # The connection timeout, not minutes.
  assert done.returncode == 2
  assert_one_error_line(done.stderr, "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9' "
                        "within 1 s")
  assert not (tmp_path / "r").exists()


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


@pytest.mark.slow
def test_a_dying_dask_scheduler_is_one_line_and_keeps_finished_jobs(tmp_path):
  dask = pathlib.Path(sys.executable).parent / "dask"
  if not dask.exists():
    pytest.skip("Dask's command line is not installed (pip install '.[dask]')")
  address = f"tcp://127.0.0.1:{_free_port()}"
  quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": tmp_path}
  scheduler = subprocess.Popen([dask, "scheduler", "--port", address.rsplit(":", 1)[1],
                                "--no-dashboard"], **quiet)
  worker = subprocess.Popen([dask, "worker", address, "--nworkers", "1", "--nthreads", "1",
                             "--no-dashboard"], **quiet)
  try:
    out = tmp_path / "results"
    # kuhn_poker's job takes a fraction of a second, leduc_poker's many seconds.
    process = start("convergence", "--solver", "cfr", "--game", "kuhn_poker", "--game",
                    "leduc_poker", "--iterations", "150", "--dask", address, "--out", out)
    wait_for_jobs(out / "convergence" / "jobs", 1, process)
    scheduler.kill()
    stdout, stderr = process.communicate(timeout=120)
  finally:
    for daemon in (scheduler, worker):
      daemon.kill()
      daemon.wait()
  assert process.returncode == 1
  assert_one_error_line(stderr, f"error: lost the Dask cluster at {address}",
                        "finished results are kept, rerun the same command to resume")
  assert len(list((out / "convergence" / "jobs").glob("*.json"))) == 1
  assert report.load_sections(out, [])[0].status == "ERROR"


@pytest.mark.slow
def test_a_crashing_job_is_reported_and_the_rest_goes_on(tmp_path):
  # A depth-limited CFR-AVG needs public states, which goofspiel with hidden bids lacks: the job
  # raises once it has walked the tree.
  game = helpers.HIDDEN_BIDS
  done = cli("convergence", "--game", game, "--solver", "our_cfr", "--solver", "cfr_avg_d1",
             "--iterations", "10", "--out", tmp_path)
  assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
  assert (f"convergence: cfr_avg_d1 on {game} (seed 0, 10 iterations): ValueError: a depth "
          "limit needs the game's public states") in done.stdout
  record = report.load_sections(tmp_path, [])[0]
  assert record.status == "ERROR" and len(record.job_failures) == 1
  assert record.jobs["computed"] == 1 and record.section.checks  # our_cfr ran and was checked.
  assert "**Jobs that failed** (the others went on)" in (tmp_path / "report.md").read_text()
  assert "Traceback" in (tmp_path / "convergence" / "job_errors.log").read_text()


@pytest.mark.slow
def test_an_oversized_sweep_is_refused_before_any_work(tmp_path):
  begin = time.monotonic()
  # liars_dice: an imperfect-information game (tic_tac_toe, perfect-information, is refused
  # as such before any estimate) whose CFR-AVG jobs are estimated at hours.
  done = cli("convergence", "--game", "liars_dice", "--out", tmp_path / "r")
  assert time.monotonic() - begin < 120  # Counting 294,883 histories, no solver.
  assert done.returncode == 2
  assert_one_error_line(done.stderr, "liars_dice (294,883 histories)",
                        "over the limit --max-minutes 60; raise it")
  assert not (tmp_path / "r").exists()


def _all_but_compiled_kernels(folder, names):
  """``copytree``'s ignore: in ``__pycache__`` every file but numba's index and data files, which
  numba writes whole (a temporary file, then a rename), so a parallel test process writing there
  leaves none half-written or vanishing."""
  if pathlib.Path(folder).name != "__pycache__":
    return []
  return [name for name in names if not name.endswith((".nbi", ".nbc"))]


@pytest.mark.slow
def test_changed_code_reruns_and_unchanged_code_resumes(tmp_path):
  # A copy of the packages outside any git checkout, imported first through PYTHONPATH, with
  # numba's cached kernels where the checkout has them (outside the fingerprint, as all of
  # __pycache__: they spare the copy compiling every kernel, about 30 s).
  source = tmp_path / "src"
  for package in ("spiel_games", "algorithms", "experiments"):
    shutil.copytree(REPO / package, source / package, ignore=_all_but_compiled_kernels)
  env = dict(os.environ, PYTHONPATH=str(source))
  argv = ["reference-check", "--quick", "--quiet", "--game", "kuhn_poker", "--solver", "our_cfr",
          "--out", tmp_path / "results"]
  first = cli(*argv, env=env)
  assert "jobs 1 (0 reused)" in first.stdout, first.stdout + first.stderr
  header = (tmp_path / "results" / "report.md").read_text().splitlines()[4]
  # Outside a git checkout no commit is claimed, only the fingerprint of the code.
  assert header.startswith("Every number below was computed by code outside a git checkout")
  # The engine's module, wherever it lives: appending to a path that is gone would create a new
  # file, which changes the fingerprint too and would no longer test an edit of the engine.
  engine = source / pathlib.Path(cfr_engine.__file__).resolve().relative_to(REPO)
  assert engine.is_file(), f"{engine} is missing from the copy"
  with open(engine, "a", encoding="utf-8") as f:
    f.write("\n# A change of the engine.\n")
  changed = cli(*argv, env=env)
  assert "jobs 1 (0 reused)" in changed.stdout  # Unchanged code resumes: see the Ctrl-C test.
  new_header = (tmp_path / "results" / "report.md").read_text().splitlines()[4]
  assert new_header != header and "code fingerprint" in new_header


@pytest.mark.slow
def test_a_sweep_killed_mid_write_resumes_to_the_same_numbers(tmp_path):
  killed = tmp_path / "killed"
  process = start(*SMALL_SWEEP, "--quiet", "--workers", "2", "--out", killed)
  wait_for_jobs(killed / "reference-check" / "jobs", 3, process)
  process.kill()  # SIGKILL: no handler runs, a write may be cut short.
  # The pool's workers end with it: none is left holding the output open.
  process.communicate(timeout=60)
  resumed = cli(*SMALL_SWEEP, "--quiet", "--out", killed)
  assert resumed.returncode == 0 and " reused)" in resumed.stdout
  # The same jobs computed in one uninterrupted sweep, in this process.
  made = reference_check.make_jobs(SMALL_GAMES, ["our_cfr", "cs_cfr"], 0, 3000, True)
  clean = context.Context(reference_check.NAME, tmp_path / "clean").run_jobs(made)
  folder = killed / "reference-check" / "jobs"
  assert saved_numbers(folder) == {r.job.key: numbers(r) for r in clean}
  assert len(clean) == 6 and not list(folder.glob(".*.tmp"))


def test_without_a_terminal_a_log_shows_where_the_run_is(tmp_path):
  # stdout and stderr are pipes here, as in a log file or CI: no progress bars, plain lines.
  done = cli("reference-check", "--quick", "--game", "kuhn_poker", "--solver", "our_cfr",
             "--out", tmp_path)
  assert done.returncode == 0 and done.stderr == "", done.stderr
  lines = helpers.compact_tables(done.stdout).splitlines()
  assert all(re.fullmatch(r"\[\d\d:\d\d:\d\d\] .*", line) for line in lines[:3]), lines
  progress = [line.split("] ", 1)[1] for line in lines[:3]]
  assert progress[0] == ("reference-check: started, budget quick (--quick), with --game "
                         "kuhn_poker --solver our_cfr")
  assert re.fullmatch(r"reference-check: 1 job, 0 reused, 1 to run, estimated \d+ s on \d+ "
                      r"worker\(s\)", progress[1]), progress[1]
  assert progress[2].startswith("reference-check: done, PASS, ")
  assert lines[3].startswith("| experiment |")  # Then the summary table, as on a terminal.
