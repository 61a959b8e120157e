"""Tests of the tasks (experiments.harness.tasks) run by ``Context.run_tasks``: saved and reused
by the same code, recomputed for changed code or arguments, resumed after Ctrl-C, a corrupt
saved file ignored, failures recorded, results the same whether computed now or read back."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from experiments.harness import context
from experiments.harness import executors
from experiments.harness import jobs
from experiments.harness import provenance
from experiments.harness import tasks
from helpers import RecordingExecutor

CALLS = []  # Every call of the task functions below, in this process.


def square(x: int) -> dict:
  CALLS.append(x)
  return {"x": x, "square": np.int64(x * x), "root": np.sqrt(np.float64(x)), "a": 0}


def table(n: int) -> pd.DataFrame:
  CALLS.append(n)
  return pd.DataFrame({"n": list(range(n)), "third": [k / 3 for k in range(n)],
                       "name": [f"r{k}" for k in range(n)], "missing": [math.nan] * n})


def broken(x: int) -> dict:
  raise ValueError(f"no value for {x}\nsecond line")


def _todo(count: int = 4):
  return [tasks.Task.make("t", square, f"square-{x}", 1.0, x=x) for x in range(count)]


def test_tasks_are_saved_and_reused_by_the_same_code(tmp_path):
  CALLS.clear()
  first = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=first)
  results = ctx.run_tasks(_todo())
  assert first.ran == _todo() and CALLS == [0, 1, 2, 3]
  assert (ctx.stats.computed, ctx.stats.reused) == (4, 0)
  # Numpy scalars are saved as JSON numbers, in the order of the dict; the file holds the task
  # and the code's stamp.
  assert list(results[3].value.items()) == [("x", 3), ("square", 9), ("root", math.sqrt(3)),
                                            ("a", 0)]
  saved = json.loads(jobs.result_path(tmp_path / "jobs", _todo()[3]).read_text())
  assert saved["format"] == tasks.FORMAT and saved["computed_by"] == provenance.code_stamp()
  again = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=again)
  reused = ctx.run_tasks(_todo())
  assert again.ran == [] and ctx.stats.reused == 4 and CALLS == [0, 1, 2, 3]
  assert [list(r.value.items()) for r in reused] == [list(r.value.items()) for r in results]


def test_an_interrupted_run_keeps_finished_tasks_and_resumes(tmp_path):
  CALLS.clear()
  made = _todo()
  ctx = context.Context("t", tmp_path, executor=RecordingExecutor(interrupt_on=made[2]))
  with pytest.raises(KeyboardInterrupt):
    ctx.run_tasks(made)
  assert (ctx.stats.kept, ctx.stats.total) == (2, 4) and CALLS == [0, 1]
  resumed = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=resumed)
  ctx.run_tasks(made)
  assert resumed.ran == made[2:] and ctx.stats.reused == 2 and CALLS == [0, 1, 2, 3]


def test_changed_code_or_arguments_recompute(tmp_path, monkeypatch):
  context.Context("t", tmp_path).run_tasks(_todo(2))
  changed = [tasks.Task.make("t", square, "square-0", x=5)] + _todo(2)[1:]
  recording = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=recording)
  assert ctx.run_tasks(changed)[0].value["x"] == 5
  assert recording.ran == changed[:1] and ctx.stats.reused == 1
  stamp = dict(provenance.code_stamp(), fingerprint="0" * 16)
  monkeypatch.setattr(provenance, "code_stamp", lambda: stamp)
  rerun = RecordingExecutor()
  context.Context("t", tmp_path, executor=rerun).run_tasks(_todo(2))
  assert rerun.ran == _todo(2)


def test_a_corrupt_or_foreign_saved_file_is_recomputed(tmp_path):
  task = _todo(1)[0]
  context.Context("t", tmp_path).run_tasks([task])
  path = jobs.result_path(tmp_path / "jobs", task)
  good = json.loads(path.read_text())
  other = dict(good, task=dict(good["task"], arguments='{"x": 7}'))  # Another task's result.
  for content in ["{not json", json.dumps({"format": jobs.FORMAT}), json.dumps(other),
                  path.read_text()[:-40]]:
    path.write_text(content)
    recording = RecordingExecutor()
    ctx = context.Context("t", tmp_path, executor=recording)
    assert ctx.run_tasks([task])[0].value["x"] == 0
    assert recording.ran == [task] and json.loads(path.read_text())["task"] == good["task"]


def test_frames_are_the_same_computed_now_or_read_back(tmp_path):
  todo = [tasks.Task.make("t", table, "table", n=4)]
  now = context.Context("t", tmp_path).run_tasks(todo)[0].value
  later = context.Context("t", tmp_path).run_tasks(todo)[0].value
  pd.testing.assert_frame_equal(now, table(4))
  pd.testing.assert_frame_equal(later, table(4))
  nested = {"rows": table(2), "files": {"a": "b"}}
  pd.testing.assert_frame_equal(tasks.decode(tasks.encode(nested))["rows"], table(2))


def test_a_failing_task_is_recorded_and_the_others_go_on(tmp_path):
  bad = tasks.Task.make("t", broken, "broken-1", x=1)
  ctx = context.Context("t", tmp_path)
  results = ctx.run_tasks([_todo(1)[0], bad])
  assert [r.task for r in results] == _todo(1) and ctx.stats.failed == 1
  assert context.describe_failures(ctx.failures) == [
      "task broken-1: ValueError: no value for 1"]
  assert not jobs.result_path(tmp_path / "jobs", bad).exists()
  not_a_result = tasks.run_task(tasks.Task.make("t", np.zeros, shape=2))  # An array.
  assert not_a_result.message == "TypeError: a task must return a DataFrame or a dict, got ndarray"


def test_tasks_are_estimated_and_refused_over_the_limit(tmp_path):
  slow = [tasks.Task.make("t", square, "slow", 90.0, x=1), *_todo(1)]
  recording = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=recording, max_minutes=1)
  with pytest.raises(ValueError, match=r"2 tasks estimated at 91 s on 1 worker\(s\) \(the "
                     r"longest, task slow, 90 s\), over the limit --max-minutes 1; raise it, "
                     "or choose a smaller budget"):
    ctx.run_tasks(slow)
  assert recording.ran == []


def test_bad_tasks_are_refused(tmp_path):
  with pytest.raises(ValueError, match="package.module:name"):
    tasks.Task("t", "no_colon")
  with pytest.raises(ValueError, match="JSON object"):
    tasks.Task("t", "m:f", "[1]")
  with pytest.raises(ValueError, match="same task twice"):
    context.Context("t", tmp_path).run_tasks(_todo(1) * 2)


def test_tasks_run_on_a_process_pool(tmp_path):
  with executors.make_executor(workers=2) as pool:
    results = context.Context("t", tmp_path, executor=pool).run_tasks(_todo())
  assert [r.value["square"] for r in results] == [0, 1, 4, 9]
  recording = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=recording)
  ctx.run_tasks(_todo())
  assert recording.ran == [] and ctx.stats.reused == 4


def test_files_travel_in_a_result(tmp_path):
  (tmp_path / "a").mkdir()
  (tmp_path / "a" / "m.npz").write_bytes(b"\x00\x01binary")
  tasks.unpack_files(tasks.pack_files(tmp_path / "a"), tmp_path / "b")
  assert (tmp_path / "b" / "m.npz").read_bytes() == b"\x00\x01binary"
