"""Tests of experiments.sweep: saved results, resume, and identical results on every executor."""

import dataclasses
import json

import pytest

from algorithms import atomic_file
from experiments import convergence
from experiments import sweep


def _strip_timing(results):
  return [{k: v for k, v in r.items() if k != "timing"} for r in results]


def _small_jobs():
  # A deterministic solver, a seeded sampled solver (two seeds) and OpenSpiel's MCCFR, which draws
  # from NumPy's global generator (solver_registry swaps a per-solver state in under a lock).
  return [sweep.Job("t", "kuhn_poker", "our_cfr", 0, 20),
          sweep.Job("t", "kuhn_poker", "cs_cfr", 0, 40),
          sweep.Job("t", "kuhn_poker", "cs_cfr", 1, 40),
          sweep.Job("t", "kuhn_poker", "mccfr_external", 3, 30)]


class _Recorder:
  """A job function that records the jobs it runs and fails on one of them."""

  def __init__(self, fail_on=None):
    self.ran = []
    self.fail_on = fail_on

  def __call__(self, job):
    if job == self.fail_on:
      raise RuntimeError("interrupted")
    self.ran.append(job)
    return {"seed_squared": job.seed ** 2}


def test_job_rejects_non_positive_budget():
  for bad in (0, -3, 2.5):
    with pytest.raises(ValueError, match="budget"):
      sweep.Job("t", "kuhn_poker", "cfr", 0, bad)


def test_job_keys_are_distinct_and_stable():
  jobs = _small_jobs()
  assert len({j.key for j in jobs}) == len(jobs)
  assert jobs[0].key == sweep.Job("t", "kuhn_poker", "our_cfr", 0, 20).key


def test_interrupted_sweep_keeps_finished_jobs_and_resumes(tmp_path):
  jobs = [sweep.Job("t", "kuhn_poker", "cfr", seed, 1) for seed in range(5)]
  first = _Recorder(fail_on=jobs[3])
  with pytest.raises(RuntimeError, match="interrupted"):
    sweep.run_jobs(jobs, first, tmp_path, quiet=True)
  assert first.ran == jobs[:3]
  assert sweep.pending_jobs(jobs, tmp_path) == jobs[3:]
  second = _Recorder()
  results = sweep.run_jobs(jobs, second, tmp_path, quiet=True)
  assert second.ran == jobs[3:]  # Finished jobs are not run again.
  assert [r["seed_squared"] for r in results] == [s * s for s in range(5)]
  assert [r["job"] for r in results] == [dataclasses.asdict(j) for j in jobs]
  third = _Recorder()
  sweep.run_jobs(jobs, third, tmp_path, quiet=True)
  assert third.ran == []


def test_saved_result_of_another_job_is_refused(tmp_path):
  job = sweep.Job("t", "kuhn_poker", "cfr", 0, 1)
  other = sweep.Job("t", "kuhn_poker", "cfr", 1, 1)
  atomic_file.atomic_write_json(sweep.result_path(tmp_path, job),
                                {"job": dataclasses.asdict(other)})
  with pytest.raises(ValueError, match="another job"):
    sweep.load_result(tmp_path, job)


def test_workers_must_be_positive():
  with pytest.raises(ValueError, match="workers"):
    with sweep.make_executor(0):
      pass


@pytest.fixture(scope="module")
def serial_results(tmp_path_factory):
  return sweep.run_jobs(_small_jobs(), convergence.convergence_job,
                        tmp_path_factory.mktemp("serial"), quiet=True)


def test_process_pool_gives_identical_results(serial_results, tmp_path):
  with sweep.make_executor(workers=2) as pool:
    pooled = sweep.run_jobs(_small_jobs(), convergence.convergence_job, tmp_path, pool,
                            quiet=True)
  assert _strip_timing(pooled) == _strip_timing(serial_results)


def test_dask_cluster_gives_identical_results(serial_results, tmp_path):
  import distributed  # pylint: disable=g-import-not-at-top  (the extra '.[dask]', in 'test')
  with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                dashboard_address=None) as cluster:
    with sweep.make_executor(dask_address=cluster.scheduler_address) as executor:
      on_dask = sweep.run_jobs(_small_jobs(), convergence.convergence_job, tmp_path, executor,
                               quiet=True)
  assert _strip_timing(on_dask) == _strip_timing(serial_results)
  saved = json.loads(sweep.result_path(tmp_path, _small_jobs()[1]).read_text())
  assert saved["job"]["solver"] == "cs_cfr"
