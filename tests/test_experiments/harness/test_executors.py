"""Tests of the executors (experiments.harness.executors): every executor gives the serial results
and a worker killed mid-job is survived (the unreachable scheduler: test_scenarios)."""

import functools
import os
import pathlib
import signal
import sys
import time

import pytest

from experiments.harness import context
from experiments.harness import executors
from experiments.harness import jobs
import helpers


def kill_worker_once(marker, job):
  """``jobs.run_job``, except that the first job to find no ``marker`` file kills its own process
  (SIGKILL: no clean-up, as the out-of-memory killer does)."""
  marker = pathlib.Path(marker)
  if job.solver == "cs_cfr" and not marker.exists():
    marker.write_text(str(os.getpid()))
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGKILL)
  return jobs.run_job(job)


def always_kill(job):
  """A job that kills its worker every time."""
  del job
  os.kill(os.getpid(), signal.SIGKILL)


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
  return helpers.numbers(context.Context("t", tmp_path_factory.mktemp("serial")).run_jobs(
      helpers.sweep_jobs()))


def _outcomes(executor, fn):
  """{job: what it computed (timings dropped)} of the executor's run."""
  found = {}
  for job, outcome in executor.run(fn, helpers.sweep_jobs()):
    solved, _ = outcome
    found[job] = {k: v for k, v in solved.__dict__.items() if k != "seconds"}
  return sorted(found.items(), key=lambda item: helpers.sweep_jobs().index(item[0]))


def test_workers_must_be_positive():
  with pytest.raises(ValueError, match="workers"):
    with executors.make_executor(0):
      pass


def test_process_pool_gives_the_serial_results(serial, tmp_path):
  with executors.make_executor(workers=2) as pool:
    ctx = context.Context("t", tmp_path, executor=pool)
    assert helpers.numbers(ctx.run_jobs(helpers.sweep_jobs())) == serial


def test_process_pool_survives_a_killed_worker(serial, tmp_path):
  pool = executors.LocalPool(2)
  try:
    assert _outcomes(pool, functools.partial(kill_worker_once, tmp_path / "killed")) == serial
  finally:
    pool.close()
  assert (tmp_path / "killed").exists()  # A worker really died.
  pool = executors.LocalPool(2)
  try:  # A job that kills every worker it runs on fails after MAX_ATTEMPTS; the others finish.
    outcomes = dict(pool.run(always_kill, helpers.sweep_jobs()[:1]))
  finally:
    pool.close()
  failure = outcomes[helpers.sweep_jobs()[0]]
  assert isinstance(failure, jobs.Failure) and f"died {executors.MAX_ATTEMPTS} times" in (
      failure.message)


@pytest.fixture(scope="module")
def dask_cluster():
  distributed = pytest.importorskip("distributed")  # The extra '.[dask]', in '.[test]'.
  import cloudpickle  # noqa: PLC0415  (comes with Dask)
  # The workers are separate processes that do not import this test module: send its functions
  # by value.
  cloudpickle.register_pickle_by_value(sys.modules[__name__])
  with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                dashboard_address=None, silence_logs=50) as cluster:
    yield cluster


def test_dask_worker_processes_give_the_serial_results(serial, dask_cluster, tmp_path):
  with executors.make_executor(dask_address=dask_cluster.scheduler_address) as cluster:
    assert cluster.parallelism == 2  # Two single-threaded workers.
    ctx = context.Context("t", tmp_path, executor=cluster)
    assert helpers.numbers(ctx.run_jobs(helpers.sweep_jobs())) == serial


def test_dask_survives_a_worker_killed_mid_job(serial, dask_cluster, tmp_path):
  marker = tmp_path / "killed"
  with executors.make_executor(dask_address=dask_cluster.scheduler_address) as cluster:
    assert _outcomes(cluster, functools.partial(kill_worker_once, str(marker))) == serial
  assert marker.exists()  # A worker really died; Dask's nanny replaced it and reran the job.


def test_workers_are_capped_at_the_cpus_unless_asked(monkeypatch):
  monkeypatch.setattr(executors, "cpu_count", lambda: 2)
  assert executors.capped_workers(1) == (1, None)
  assert executors.capped_workers(2) == (2, None)
  size, note = executors.capped_workers(12)
  assert size == 2 and "--workers 12 capped at the 2 CPUs" in note and "--oversubscribe" in note
  assert executors.capped_workers(12, oversubscribe=True) == (12, None)
  with pytest.raises(ValueError, match="from 1 to 256"):
    with executors.make_executor(executors.MAX_WORKERS + 1):
      pass


def test_a_pool_starts_no_more_processes_than_a_sweep_has_jobs(tmp_path):
  # Four workers allowed (a handful, on any machine), a sweep of two jobs: two processes.
  with executors.make_executor(workers=4) as pool:
    assert pool.processes == 0  # Nothing started before a sweep needs it.
    ctx = context.Context("t", tmp_path, executor=pool)
    ctx.run_jobs(helpers.sweep_jobs()[:2])
    assert pool.processes == 2
    ctx.run_jobs(helpers.sweep_jobs()[2:3], description="one more")  # Runs on the same pool.
    assert pool.processes == 2
