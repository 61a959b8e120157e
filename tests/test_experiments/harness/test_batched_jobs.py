"""Batched sweeps (experiments.harness.jobs.batches, run_batch; Context.run_jobs(batch=True)): the
same results as one job at a time, grouped only where a batched solver applies."""

import dataclasses

import pytest

from experiments.harness import context
from experiments.harness import executors
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import solver_runs


def numbers(results):
  """What a result computed, without its timings and provenance."""
  return [(r.job, {k: v for k, v in dataclasses.asdict(r.solved).items() if k != "seconds"})
          for r in results]


def sweep():
  # Two shapes of batched Kuhn games (standard and simplified three-card), a solver without a
  # batched form, and a game that is not batched.
  strings = ["kuhn_poker_ante(ante=0.5)", "kuhn_poker", "kuhn_poker_ante(ante=2.0,bet=0.5)",
            "kuhn_poker_ante(simplified=true)", "kuhn_poker_ante(simplified=true,ante=3.0)"]
  made = [jobs.Job("t", g, "our_cfr_plus", 0, 30, measure_at=(1, 7), keep_policy=True)
          for g in strings]
  return made + [jobs.Job("t", "kuhn_poker_ante(ante=2.0)", "cfr", 0, 10),
                 jobs.Job("t", "leduc_poker", "our_cfr_plus", 0, 2),
                 jobs.Job("t", "kuhn_poker_ante(ante=3.0)", "our_cfr", 0, 30)]


def test_batches_group_same_shape_games_of_a_batched_solver():
  made = sweep()
  grouped = jobs.batches(made)
  assert grouped == [tuple(made[0:3]), tuple(made[3:5]), made[5], made[6], made[7]]


def test_batched_sweep_gives_the_results_of_single_jobs(tmp_path):
  # Each game of a batch is solved exactly as alone
  # (tests/test_algorithms/cfr/test_batched_solver.py), so every measured number, policy table and
  # return is equal; only the timings differ.
  made = sweep()
  single = context.Context("t", tmp_path / "single").run_jobs(made)
  batched_ctx = context.Context("t", tmp_path / "batched", executor=executors.LocalPool(2))
  try:
    batched = batched_ctx.run_jobs(made, batch=True)
  finally:
    batched_ctx.executor.close()
  assert numbers(batched) == numbers(single)
  assert batched_ctx.stats.computed == len(made)
  # Saved and reused as any other result.
  again = context.Context("t", tmp_path / "batched")
  assert numbers(again.run_jobs(made, batch=True)) == numbers(single)
  assert again.stats.reused == len(made)


def test_a_failing_batch_fails_each_of_its_jobs(monkeypatch, tmp_path):
  def broken(*args, **kwargs):
    raise ValueError("no batch today")

  monkeypatch.setattr(solver_runs, "solve_batch", broken)
  made = sweep()[:3]
  ctx = context.Context("t", tmp_path)
  assert ctx.run_jobs(made, batch=True) == []
  assert [f.job for f in ctx.failures] == made
  assert all(f.message == "ValueError: no batch today" for f in ctx.failures)


def test_solve_batch_refusals():
  kuhn = game_loader.load_game("kuhn_poker")
  with pytest.raises(ValueError, match="has no batched form"):
    solver_runs.solve_batch([kuhn], "cfr", 10)
  with pytest.raises(ValueError, match="measuring points must lie in 1..10"):
    solver_runs.solve_batch([kuhn], "our_cfr", 10, measure_at=(11,))
