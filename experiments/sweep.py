"""Sweeps: lists of jobs run on any executor, each result saved atomically, resumable.

A job is one (experiment, game string, solver, seed, budget) tuple. A sweep maps a job function
over a list of jobs with any ``concurrent.futures.Executor``: in-process (one worker), a local
process pool (``--workers N``) or a Dask cluster (``--dask ADDRESS``, through
``distributed.Client.get_executor()``). Every job carries its own seed, so a job's result does not
depend on the executor, the number of workers or the order in which jobs finish.

Each finished job is written at once to ``<results_dir>/<job key>.json`` by an atomic replace, so
an interrupted sweep keeps what it finished, and running the same sweep again skips those jobs.
"""

import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import pathlib
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import tqdm

from algorithms.atomic_file import atomic_write_json

JobResult = Dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Job:
  """One unit of a sweep.

  Attributes:
    experiment: name of the experiment the job belongs to.
    game: an OpenSpiel game string, e.g. "kuhn_poker_ante(ante=2.0)".
    solver: a name from ``experiments.solver_registry.SOLVERS``.
    seed: the job's own random seed (used by sampled solvers).
    budget: number of solver iterations (> 0).
  """

  experiment: str
  game: str
  solver: str
  seed: int
  budget: int

  def __post_init__(self):
    if not isinstance(self.budget, int) or self.budget <= 0:
      raise ValueError(f"job budget must be a positive integer of iterations, got {self.budget!r}")

  @property
  def key(self) -> str:
    """A file name stem unique to the job: readable fields plus a hash of all of them."""
    fields = json.dumps(dataclasses.asdict(self), sort_keys=True)
    digest = hashlib.sha1(fields.encode("utf-8")).hexdigest()[:10]
    readable = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{self.game}-{self.solver}-s{self.seed}")
    return f"{readable}-{self.budget}-{digest}"


class SerialExecutor(concurrent.futures.Executor):
  """Runs each submitted call at once in the calling process (the one-worker executor)."""

  def submit(self, fn, /, *args, **kwargs) -> concurrent.futures.Future:
    future = concurrent.futures.Future()
    try:
      future.set_result(fn(*args, **kwargs))
    except BaseException as e:  # pylint: disable=broad-except
      future.set_exception(e)
    return future


@contextlib.contextmanager
def make_executor(workers: int = 1, dask_address: Optional[str] = None
                  ) -> Iterator[concurrent.futures.Executor]:
  """The executor a sweep runs on.

  Args:
    workers: process-pool size; 1 runs jobs in this process.
    dask_address: address of a Dask scheduler (e.g. "tcp://10.0.0.1:8786"); when given, jobs run
      on that cluster and ``workers`` is ignored. Needs the optional extra ``pip install .[dask]``.

  Yields:
    A ``concurrent.futures.Executor``.

  Raises:
    ValueError: if ``workers`` < 1, or Dask is requested but not installed.
  """
  if dask_address:
    try:
      import distributed  # pylint: disable=g-import-not-at-top
    except ImportError as e:
      raise ValueError("--dask needs Dask's distributed scheduler: pip install '.[dask]'") from e
    with distributed.Client(dask_address) as client:
      yield client.get_executor()
    return
  if not isinstance(workers, int) or workers < 1:
    raise ValueError(f"workers must be a positive integer, got {workers!r}")
  if workers == 1:
    yield SerialExecutor()
    return
  with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
    yield pool


def result_path(results_dir: pathlib.Path, job: Job) -> pathlib.Path:
  return pathlib.Path(results_dir) / f"{job.key}.json"


def load_result(results_dir: pathlib.Path, job: Job) -> Optional[JobResult]:
  """The saved result of ``job``, or None if it has not finished."""
  path = result_path(results_dir, job)
  if not path.exists():
    return None
  saved = json.loads(path.read_text(encoding="utf-8"))
  if saved.get("job") != dataclasses.asdict(job):
    raise ValueError(f"{path} holds the result of another job: {saved.get('job')}")
  return saved


def pending_jobs(jobs: Sequence[Job], results_dir: pathlib.Path) -> List[Job]:
  """The jobs of ``jobs`` that have no saved result yet, in order."""
  return [job for job in jobs if not result_path(results_dir, job).exists()]


def run_jobs(jobs: Sequence[Job],
             job_fn: Callable[[Job], JobResult],
             results_dir: pathlib.Path,
             executor: Optional[concurrent.futures.Executor] = None,
             quiet: bool = False,
             description: str = "jobs") -> List[JobResult]:
  """Runs every unfinished job and returns all results in the order of ``jobs``.

  Each result is stored as ``{"job": fields of the job, **job_fn(job)}``, written atomically as
  soon as the job finishes. Jobs with a saved result are not run again. If a job raises, the jobs
  not yet started are cancelled, the finished ones stay saved, and the exception propagates.
  On a ``SerialExecutor`` jobs run one after the other in the order given.

  Args:
    jobs: the sweep; keys must be distinct.
    job_fn: a picklable top-level function returning a JSON-serializable dict.
    results_dir: folder of the per-job result files (created if missing).
    executor: where to run; None runs in this process.
    quiet: no progress bar.
    description: label of the progress bar.

  Returns:
    One result dict per job.
  """
  results_dir = pathlib.Path(results_dir)
  results_dir.mkdir(parents=True, exist_ok=True)
  if len({job.key for job in jobs}) != len(jobs):
    raise ValueError("a sweep must not list the same job twice")
  todo = pending_jobs(jobs, results_dir)
  executor = executor or SerialExecutor()
  with tqdm.tqdm(total=len(jobs), initial=len(jobs) - len(todo), desc=description,
                 disable=quiet, leave=False) as bar:
    with contextlib.closing(_completed(executor, job_fn, todo)) as completed:
      for job, future in completed:
        atomic_write_json(result_path(results_dir, job),
                          {"job": dataclasses.asdict(job), **future.result()})
        bar.update(1)
  return [load_result(results_dir, job) for job in jobs]


def _completed(executor: concurrent.futures.Executor, job_fn: Callable[[Job], JobResult],
               jobs: Sequence[Job]) -> Iterator[Tuple[Job, concurrent.futures.Future]]:
  """Yields (job, finished future): in order, one at a time, on a ``SerialExecutor``; else as
  they finish. Closing the generator cancels the jobs not yet started."""
  if isinstance(executor, SerialExecutor):
    for job in jobs:
      yield job, executor.submit(job_fn, job)
    return
  futures = {executor.submit(job_fn, job): job for job in jobs}
  try:
    for future in concurrent.futures.as_completed(futures):
      yield futures[future], future
  finally:
    for future in futures:
      future.cancel()
