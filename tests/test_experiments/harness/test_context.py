"""Tests of the sweep runner (experiments.harness.context) and the job results
(experiments.harness.jobs): resume, code fingerprints, --fresh, failures, interruption, and the
refusals before work."""

import json
import math
import re
import time

import pytest

from experiments.harness import context
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import provenance
from helpers import HIDDEN_BIDS
from helpers import RecordingExecutor
from helpers import numbers
from helpers import sweep_jobs


def test_job_rejects_non_positive_iterations():
  for bad in (0, -3, 2.5, True):
    with pytest.raises(ValueError, match="iterations"):
      jobs.Job("t", "kuhn_poker", "cfr", 0, bad)


def test_job_keys_are_distinct_and_stable():
  made = sweep_jobs()
  assert len({j.key for j in made}) == len(made)
  assert made[0].key == jobs.Job("t", "kuhn_poker", "our_cfr", 0, 20, measure_at=[1, 5]).key
  assert made[0].key != jobs.Job("t", "kuhn_poker", "our_cfr", 0, 20).key


def test_results_are_saved_and_reused_by_the_same_code(tmp_path):
  first = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=first)
  results = ctx.run_jobs(sweep_jobs())
  assert first.ran == sweep_jobs() and ctx.stats.computed == 4 and ctx.stats.reused == 0
  # The result on disk is the typed result, stamped with the code that computed it.
  saved = json.loads(jobs.result_path(tmp_path / "jobs", sweep_jobs()[0]).read_text())
  assert saved["format"] == jobs.FORMAT and saved["computed_by"] == provenance.code_stamp()
  assert saved["solved"]["iterations"] == [1, 5, 20] and saved["solved"]["policy"] is None
  assert jobs.JobResult.from_json(saved) == results[0]
  second = RecordingExecutor()
  again = context.Context("t", tmp_path, executor=second)
  assert numbers(again.run_jobs(sweep_jobs())) == numbers(results)
  assert second.ran == [] and again.stats.reused == 4
  assert again.stats.reused_finished == [r.finished for r in results]
  fresh = RecordingExecutor()
  context.Context("t", tmp_path, executor=fresh, fresh=True).run_jobs(sweep_jobs())
  assert fresh.ran == sweep_jobs()


def test_changed_code_reruns_every_job(tmp_path, monkeypatch):
  context.Context("t", tmp_path).run_jobs(sweep_jobs()[:2])
  stamp = dict(provenance.code_stamp(), fingerprint="0" * 16)
  monkeypatch.setattr(provenance, "code_stamp", lambda: stamp)
  rerun = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=rerun)
  results = ctx.run_jobs(sweep_jobs()[:2])
  assert rerun.ran == sweep_jobs()[:2] and ctx.stats.reused == 0
  assert all(r.computed_by["fingerprint"] == "0" * 16 for r in results)


def test_unreadable_or_foreign_result_files_are_recomputed(tmp_path):
  job = sweep_jobs()[0]
  folder = tmp_path / "jobs"
  folder.mkdir()
  for content in ["{not json", json.dumps({"format": "other"}), ""]:
    jobs.result_path(folder, job).write_text(content)
    assert jobs.load(folder, job, provenance.code_stamp()["fingerprint"]) is None
  (folder / f".{job.key}.json.abc.tmp").write_text("half written")  # A write killed midway.
  recording = RecordingExecutor()
  context.Context("t", tmp_path, executor=recording).run_jobs([job])
  assert recording.ran == [job] and not list(folder.glob("*.tmp"))


def test_a_failing_job_is_recorded_and_the_sweep_goes_on(tmp_path):
  # Goofspiel with hidden bids has no public-state view, which a depth-limited CFR-AVG needs: the
  # job raises after its tree walk.
  bad = jobs.Job("t", HIDDEN_BIDS, "cfr_avg_d1", 0, 2)
  good = sweep_jobs()[:2]
  ctx = context.Context("t", tmp_path)
  results = ctx.run_jobs([good[0], bad, good[1]])
  assert [r.job for r in results] == good
  assert ctx.stats.failed == 1 and len(ctx.failures) == 1
  failure = ctx.failures[0]
  assert failure.job == bad and "\n" not in failure.message
  assert failure.message.startswith("ValueError: a depth limit needs the game's public "
                                    "states: turn_based_simultaneous_game has no")
  assert "Traceback" in failure.traceback
  assert not jobs.result_path(tmp_path / "jobs", bad).exists()  # Failures are not saved.
  assert context.describe_failures(ctx.failures) == [
      f"cfr_avg_d1 on {bad.game} (seed 0, 2 iterations): {failure.message}"]


def test_an_interrupted_sweep_keeps_finished_jobs_and_resumes(tmp_path):
  made = sweep_jobs()
  ctx = context.Context("t", tmp_path, executor=RecordingExecutor(interrupt_on=made[2]))
  with pytest.raises(KeyboardInterrupt):
    ctx.run_jobs(made)
  assert (ctx.stats.kept, ctx.stats.total) == (2, 4)
  resumed = RecordingExecutor()
  ctx = context.Context("t", tmp_path, executor=resumed)
  ctx.run_jobs(made)
  assert resumed.ran == made[2:] and ctx.stats.reused == 2


def test_a_repeated_job_is_refused(tmp_path):
  with pytest.raises(ValueError, match="same job twice"):
    context.Context("t", tmp_path).run_jobs([sweep_jobs()[0], sweep_jobs()[0]])


def test_too_long_and_too_large_sweeps_are_refused_before_work(tmp_path, monkeypatch):
  recording = RecordingExecutor()
  ctx = context.Context("convergence", tmp_path, executor=recording, max_minutes=1)
  # OpenSpiel's Python CFR: about 2e-5 s per history and iteration, tic-tac-toe 549,946 histories
  # (counted by the walk; OpenSpiel's tic_tac_toe tests give the same number of histories).
  slow = jobs.Job("t", "tic_tac_toe", "cfr", 0, 100)
  assert ctx.histories("tic_tac_toe") == 549_946
  with pytest.raises(ValueError, match=r"over the limit --max-minutes 1; raise it"):
    ctx.run_jobs([slow])
  monkeypatch.setattr(game_loader, "ENGINE_MAX_HISTORIES", 50)
  monkeypatch.setattr(game_loader, "_HISTORIES", {})
  with pytest.raises(ValueError, match="more than 50 histories, the engine's limit"):
    ctx.run_jobs([sweep_jobs()[0]])  # kuhn_poker: 58 histories.
  assert recording.ran == []


def test_an_estimate_on_several_workers_is_never_below_its_longest_job():
  # Two workers share the jobs, but one job runs on one worker: one job alone is estimated at its
  # own time, several at their sum over the workers when that is longer than the longest.
  estimate = context.estimate_seconds
  one = [jobs.Job("t", "leduc_poker", "our_cfr", 0, 1000)]
  assert context.check_cost(one, 60, parallelism=2) == estimate(one[0])
  many = [jobs.Job("t", "kuhn_poker", "our_cfr", s, 100) for s in range(6)]
  assert context.check_cost(many, 60, parallelism=2) == sum(map(estimate, many)) / 2
  cost = context.sweep_cost(many, 60, parallelism=2)
  assert cost.per_unit == tuple(map(estimate, many)) and cost.seconds == sum(cost.per_unit) / 2


def test_a_sweep_estimates_each_unit_once_for_the_limit_and_the_progress(tmp_path, monkeypatch):
  # The check against --max-minutes and the progress line's "about ... left" share one estimate
  # per unit (``Context.sweep_cost``), not two of their own.
  estimated = []
  estimate = context.estimate_seconds
  monkeypatch.setattr(context, "estimate_seconds",
                      lambda unit, histories: estimated.append(unit) or estimate(unit, histories))
  context.Context("t", tmp_path, executor=RecordingExecutor()).run_jobs(sweep_jobs())
  assert estimated == sweep_jobs()


def test_history_count_stops_at_the_cap():
  game = game_loader.load_game("kuhn_poker")
  # 1 + 6 deals x (1 + 2 x ...) = 58 (OpenSpiel).
  assert game_loader.count_histories(game, 1000) == 58
  assert game_loader.count_histories(game, 10) == 11  # "More than 10."


@pytest.mark.slow
def test_without_a_terminal_a_sweep_says_what_it_holds_and_its_estimate(tmp_path, monkeypatch):
  monkeypatch.setattr(game_loader, "_HISTORIES", {})  # Not counted yet.
  lines = []
  ctx = context.Context("t", tmp_path, log=lambda name, text: lines.append(f"{name}: {text}"))
  ctx.run_jobs(sweep_jobs()[:2])
  estimate = sum(ctx.estimate_seconds(job) for job in sweep_jobs()[:2])
  assert lines == [f"t: 2 jobs, 0 reused, 2 to run, estimated {estimate:.0f} s on 1 worker(s)"]
  lines.clear()
  ctx.run_jobs(sweep_jobs()[:2], description="again")
  assert lines == ["t: again: 2 jobs, 2 reused, 0 to run, estimated 0 s on 1 worker(s)"]
  # A long count of histories says how far it is (tic-tac-toe: 549,946; every line here).
  lines.clear()
  monkeypatch.setattr(context, "LOG_INTERVAL", 0.0)
  assert ctx.histories("tic_tac_toe") == 549_946
  assert any(line.startswith("t: counting the histories of tic_tac_toe: 100,000 so far (a large "
                             "game), ") for line in lines)
  assert context.Context("t", tmp_path).log is None  # No log: silent (terminal or --quiet).


def test_without_a_terminal_a_long_step_shows_at_least_once_a_minute(tmp_path, monkeypatch,
                                                                     capfd):
  monkeypatch.setattr(context, "LOG_INTERVAL", 0.3)  # A "minute" of 0.3 s.
  ctx = context.Context("t", tmp_path, log=context.log_line)
  ctx.activity = "one long job"
  with ctx.heartbeat():
    ctx.note("a line of the run's own")
    begin = time.perf_counter()
    while time.perf_counter() - begin < 1.5:  # Single C calls that hold the interpreter lock,
      math.factorial(100_000)                 # as a compiled kernel does: no thread could print.
  lines = capfd.readouterr().out.splitlines()
  assert re.fullmatch(r"\[\d\d:\d\d:\d\d\] t: a line of the run's own", lines[0])
  assert len(lines) >= 3
  for line in lines[1:]:
    assert re.fullmatch(r"\[\d\d:\d\d:\d\d\] t: still running \(one long job\), \d+ s "
                        r"elapsed", line), line
  time.sleep(1.0)
  assert capfd.readouterr().out == ""  # The heartbeat ends with the block.
  with context.Context("t", tmp_path).heartbeat():  # No log: no heartbeat.
    time.sleep(1.0)
  assert capfd.readouterr().out == ""


def test_time_left_follows_the_estimates_not_the_count_of_units():
  # Before any unit finished: the plan over the workers less the time elapsed.
  assert context._left(600.0, 0.0, 60.0, 2) == "about 4 min left"
  assert context._left(100.0, 0.0, 500.0, 2) == "about 0 s left"
  # After: the estimated work left at the measured pace. One long unit of 500 estimated seconds
  # done in 250 s of wall time (two workers) leaves 100 estimated seconds: 50 s, whatever the
  # number of small units they are split into.
  assert context._left(600.0, 500.0, 250.0, 2) == "about 50 s left"
