"""The harness against faults and a results folder it does not trust (issue: the harness under
faults and hostile folders), in this process: job files that fail their schema, links planted
in the results folder, file names that could leave it, long game strings, repeated game
parameters, the ``--max-minutes`` deadline between jobs, and checks at extreme stakes. The same
cases through the real program (signals, pipes, the deadline of a whole run): test_faults."""

import dataclasses
import json

import pytest

from experiments.harness import checks
from experiments.harness import context
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import provenance
from experiments.harness import stopping
from experiments.harness import tasks
from experiments.harness.deadline import Deadline
from helpers import RecordingExecutor
from helpers import sweep_jobs

# A universal_poker game of 220 characters (a small two-round limit game of 3,517 histories):
# its whole string in a file name would pass the 255-byte limit of most file systems.
LONG_GAME = ("universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=1 1,"
             "firstPlayer=1 1,maxRaises=1 1,numSuits=2,numRanks=3,numHoleCards=1,"
             "numBoardCards=0 1,stack=1200000000 1200000000,potSize=0,calcOddsNumSims=0)")


def _saved(tmp_path, job):
  """Runs ``job`` once; returns the path of its saved result and the result as JSON."""
  context.Context("t", tmp_path).run_jobs([job])
  path = jobs.result_path(tmp_path / "jobs", job)
  return path, json.loads(path.read_text())


@pytest.mark.parametrize("field, value", [
    ("curve", []), ("curve", [1.0]), ("curve", ["x", 1.0, 2.0]), ("seconds", [0.1]),
    ("iterations", [1, 5, 19]), ("iterations", [5, 1, 20]), ("returns", []),
    ("curve", [float("nan"), 1.0, 2.0]), ("measure", 3)])
def test_a_job_file_that_fails_its_schema_is_recomputed(tmp_path, field, value):
  job = sweep_jobs()[0]  # Measured at 1, 5 and 20 iterations.
  path, data = _saved(tmp_path, job)
  data["solved"][field] = value  # Parseable, stamped by this code, but not a result.
  path.write_text(json.dumps(data))
  assert jobs.load(tmp_path / "jobs", job, provenance.code_stamp()["fingerprint"]) is None
  recording = RecordingExecutor()
  results = context.Context("t", tmp_path, executor=recording).run_jobs([job])
  assert recording.ran == [job] and len(results[0].solved.curve) == 3


def test_a_link_at_a_job_file_is_not_followed(tmp_path):
  job = sweep_jobs()[0]
  path, data = _saved(tmp_path / "a", job)
  (tmp_path / "b" / "jobs").mkdir(parents=True)
  link = jobs.result_path(tmp_path / "b" / "jobs", job)
  link.symlink_to(path)  # A valid result, reached through a link: not read.
  assert jobs.load(link.parent, job, provenance.code_stamp()["fingerprint"]) is None
  context.Context("t", tmp_path / "b").run_jobs([job])
  assert not link.is_symlink()  # Replaced by the result itself; the link's target untouched.
  assert json.loads(path.read_text()) == data


def test_a_jobs_folder_that_is_a_link_is_refused(tmp_path):
  elsewhere = tmp_path / "elsewhere"
  elsewhere.mkdir()
  (tmp_path / "r").mkdir()
  (tmp_path / "r" / context.JOBS_FOLDER).symlink_to(elsewhere)
  with pytest.raises(ValueError, match="is a symbolic link"):
    context.Context("t", tmp_path / "r").run_jobs(sweep_jobs()[:1])
  assert not list(elsewhere.iterdir())


@pytest.mark.parametrize("name", ["../x", "/tmp/x", "..", ".", "", "a/b", "a\\b"])
def test_unpack_refuses_names_that_could_leave_the_folder(tmp_path, name):
  with pytest.raises(ValueError, match="plain file name"):
    tasks.unpack_files({"fine.bin": "", name: "eA=="}, tmp_path / "in")
  assert not (tmp_path / "in").exists() and not (tmp_path / "x").exists()  # Nothing written.


def test_unpack_refuses_a_folder_that_is_a_link(tmp_path):
  (tmp_path / "target").mkdir()
  (tmp_path / "in").symlink_to(tmp_path / "target")
  with pytest.raises(ValueError, match="symbolic link"):
    tasks.unpack_files({"m.bin": "eA=="}, tmp_path / "in")
  assert not list((tmp_path / "target").iterdir())


def test_a_long_game_string_runs_saves_and_reruns(tmp_path):
  assert len(LONG_GAME) > 200
  job = jobs.Job("t", LONG_GAME, "our_cfr", 0, 10)
  assert len(job.key) + len(".json") <= 150
  first = context.Context("t", tmp_path).run_jobs([job])
  assert len(first) == 1 and first[0].job.game == LONG_GAME  # The whole string in the file.
  recording = RecordingExecutor()
  again = context.Context("t", tmp_path, executor=recording).run_jobs([job])
  assert recording.ran == [] and again[0].solved == first[0].solved
  other = dataclasses.replace(job, game=LONG_GAME.replace("stack=1200000000 1200000000",
                                                          "stack=1200000001 1200000001"))
  assert other.key != job.key  # Cut names stay distinct: the hash covers the whole string.


@pytest.mark.parametrize("text, repeated", [
    ("kuhn_poker_ante(ante=1.0,ante=2.0)", "ante"),
    ("kuhn_poker_ante(ante=1.0,bet=2.0,deck_size=5,bet=3.0)", "bet")])
def test_repeated_game_parameters_are_refused(text, repeated):
  with pytest.raises(ValueError, match=f"parameter '{repeated}' is given more than once"):
    game_loader.load_game(text)


def test_a_game_string_of_extreme_stakes_is_read_as_numbers():
  text = game_loader.kuhn_game_string(1e17, 1.0, False)
  assert "e+" not in text
  assert game_loader.load_game(text).get_parameters()["ante"] == 1e17


def test_rounding_checks_are_relative_for_large_numbers():
  # Two computations of a value near 3.75e17 one unit in the last place apart (64): equal up to
  # rounding. An absolute 1e-9 would fail them; below 1 in size the tolerance stays 1e-9.
  value = 3.75e17
  assert checks.same_number("v", value, value + 64.0, "exact").passed
  assert not checks.same_number("v", value, value * (1 + 1e-6), "exact").passed
  assert checks.same_number("v", 0.5, 0.5 + 1e-10, "exact").passed
  assert not checks.same_number("v", 0.5, 0.5 + 1e-8, "exact").passed
  assert checks.within_nash_conv("v", value + 64.0, value, 0.0, "LP").passed


def test_the_deadline_stops_a_sweep_between_jobs_and_keeps_what_finished(tmp_path):
  made = sweep_jobs()

  class Late(RecordingExecutor):
    """Runs the jobs; the deadline passes after the second."""

    def run(self, fn, todo):
      for job, outcome in super().run(fn, todo):
        if len(self.ran) == 2:
          ctx.deadline = Deadline(0.0)
        yield job, outcome

  ctx = context.Context("t", tmp_path, executor=Late(), max_minutes=0.5)
  with pytest.raises(stopping.DeadlinePassed, match="--max-minutes 0.5"):
    ctx.run_jobs(made)
  assert (ctx.stats.kept, ctx.stats.total) == (2, 4)
  resumed = RecordingExecutor()
  context.Context("t", tmp_path, executor=resumed).run_jobs(made)
  assert resumed.ran == made[2:]
