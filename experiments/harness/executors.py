"""Where the jobs of a sweep run: this process, a local process pool, or a Dask cluster.

Every executor runs a job function over a list of jobs and yields ``(job, outcome)`` as each job
finishes (``run``), says how many jobs it runs at once (``parallelism``) and stops (``close``).
The job function (``jobs.run_job``, ``jobs.run_item``, or ``tasks.run_task`` over tasks) never
raises, so an exception that reaches the executor is a failure of the machinery, handled here:

* local pool (``--workers N``): at most the CPU count unless asked (``capped_workers``), and
  never more processes than the jobs of a sweep, each started when the sweep needs it (a
  ``ProcessPoolExecutor`` of ``min(N, jobs)`` processes, enlarged by a later, larger sweep); the
  workers ignore SIGINT (Ctrl-C reaches the main process, which
  stops them); a worker that dies mid-job (killed, out of memory) breaks the pool: a new pool is
  started and the unfinished jobs are resubmitted, each at most ``MAX_ATTEMPTS`` times in all,
  after which the job is reported as failed and the sweep goes on;
* Dask (``--dask ADDRESS``): connecting gives up after ``DASK_TIMEOUT`` seconds with a one-line
  ``ValueError``; a worker that dies mid-job is replaced by Dask, which reruns the job (a job
  that kills ``distributed.scheduler.allowed-failures`` workers is reported as failed); a lost
  scheduler raises ``ExecutorLost`` (one line), the finished jobs being saved already.
"""

import concurrent.futures
import contextlib
import ctypes
import logging
import os
import signal
import sys
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from algorithms.cfr import solver_backends
from experiments.harness import jobs as jobs_lib
from experiments.harness import stopping

# Connecting to a Dask scheduler gives up after this many seconds.
DASK_TIMEOUT = 10.0
# A job whose worker process dies is run at most this many times in all on a local pool.
MAX_ATTEMPTS = 3

# The memory a local worker may need: one job's arrays up to the engine's limit (a larger job is
# refused before it starts), plus the interpreter with its libraries (about half a GiB).
WORKER_BYTES = solver_backends.DEFAULT_MAX_BYTES + 2**29

# --workers above this is refused as a bad argument, whatever the override: a pool of thousands
# of processes exhausts the machine's memory before it does any work.
MAX_WORKERS = 256

JobFunction = Callable[[jobs_lib.Job], jobs_lib.Outcome]
Finished = Iterator[Tuple[jobs_lib.Job, jobs_lib.Outcome]]


def available_bytes() -> Optional[int]:
  """The memory available to new processes (``MemAvailable`` of /proc/meminfo, else the free
  physical pages), or None where neither is known."""
  with contextlib.suppress(OSError, ValueError):
    with open("/proc/meminfo", encoding="ascii") as meminfo:
      for line in meminfo:
        if line.startswith("MemAvailable:"):
          return int(line.split()[1]) * 1024
  with contextlib.suppress(OSError, ValueError, AttributeError):
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
  return None


def cpu_count() -> int:
  """The CPUs this process may use (at least 1)."""
  cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
  return cpus or 1


def default_workers() -> int:
  """The default ``--workers``: every CPU this process may use, capped by the available memory
  at ``WORKER_BYTES`` per worker (at least 1)."""
  cpus = cpu_count()
  memory = available_bytes()
  by_memory = cpus if memory is None else memory // WORKER_BYTES
  return max(1, min(cpus, by_memory))


def capped_workers(workers: int, oversubscribe: bool = False) -> Tuple[int, Optional[str]]:
  """The pool size of ``--workers``: at most the CPU count unless ``oversubscribe``.

  Returns:
    The size, and one line saying it was capped (None if it was not).
  """
  cpus = cpu_count()
  if workers <= cpus or oversubscribe:
    return workers, None
  return cpus, (f"--workers {workers} capped at the {cpus} CPUs of this machine (--oversubscribe "
                "runs more)")


class ExecutorLost(Exception):
  """The executor itself failed (e.g. the Dask scheduler went away); one-line message."""


class Serial:
  """Runs the jobs one after the other in this process, in the order given."""

  description = "this process"
  parallelism = 1

  def run(self, fn: JobFunction, jobs: Sequence[jobs_lib.Job]) -> Finished:
    for job in jobs:
      yield job, fn(job)

  def close(self, terminate: bool = False) -> None:
    """Nothing to stop."""


_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends (Linux).


def _worker_init(parent: int) -> None:
  """Pool worker initializer: Ctrl-C is the main process's to handle, SIGTERM and SIGHUP end the
  worker (``stopping.default_signals``), and the worker ends with the main process.
  ``ProcessPoolExecutor``'s workers otherwise outlive a main process killed by
  SIGKILL, waiting for work forever and holding its output open; on Linux prctl(2)'s
  PR_SET_PDEATHSIG sends them SIGKILL when it ends (a parent that ended before this call is seen
  by ``os.getppid``)."""
  stopping.default_signals()
  if sys.platform.startswith("linux"):
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
  if os.getppid() != parent:
    os._exit(1)


class LocalPool:
  """A pool of ``workers`` local processes (see the module docstring)."""

  def __init__(self, workers: int):
    self.parallelism = workers
    self.description = f"{workers} local processes"
    self._pool: Optional[concurrent.futures.ProcessPoolExecutor] = None
    self._size = 0

  def _start(self, jobs: int) -> concurrent.futures.ProcessPoolExecutor:
    """The pool, of at least ``min(parallelism, jobs)`` processes (started anew if the running
    one is smaller)."""
    size = max(1, min(self.parallelism, jobs))
    if self._pool is not None and self._size < size:
      self.close()
    if self._pool is None:
      self._pool = concurrent.futures.ProcessPoolExecutor(max_workers=size,
                                                          initializer=_worker_init,
                                                          initargs=(os.getpid(),))
      self._size = size
    return self._pool

  @property
  def processes(self) -> int:
    """The worker processes started so far by the running pool (0 before any sweep)."""
    return len(getattr(self._pool, "_processes", None) or {})

  def run(self, fn: JobFunction, jobs: Sequence[jobs_lib.Job]) -> Finished:
    attempts: Dict[jobs_lib.Job, int] = {job: 0 for job in jobs}
    todo: List[jobs_lib.Job] = list(jobs)
    while todo:
      pool = self._start(len(todo))
      with stopping.held():  # Submitting forks the workers.
        futures = {pool.submit(fn, job): job for job in todo}
      for job in todo:
        attempts[job] += 1
      todo, broken = [], False
      try:
        for future in concurrent.futures.as_completed(futures):
          job = futures[future]
          try:
            outcome = future.result()
          except concurrent.futures.process.BrokenProcessPool:
            broken = True
            if attempts[job] < MAX_ATTEMPTS:
              todo.append(job)
              continue
            outcome = jobs_lib.Failure(
                f"the worker process died {attempts[job]} times running this job (killed, e.g. "
                "out of memory)", "")
          yield job, outcome
      except BaseException:  # Interrupted, or the consumer stopped: stop the workers now.
        self.close(terminate=True)
        raise
      if broken:
        self.close(terminate=True)

  def close(self, terminate: bool = False) -> None:
    """Shuts the pool down; with ``terminate`` the workers are killed instead of awaited."""
    pool, self._pool = self._pool, None
    if pool is None:
      return
    if terminate:
      # ProcessPoolExecutor has no public way to stop running workers before Python 3.14.
      for process in list(getattr(pool, "_processes", {}).values()):
        process.terminate()
    pool.shutdown(wait=not terminate, cancel_futures=True)


class DaskCluster:
  """The Dask scheduler at ``address`` (see the module docstring)."""

  def __init__(self, address: str, timeout: float = DASK_TIMEOUT):
    try:
      import distributed  # noqa: PLC0415  (optional: pip install '.[dask]')
    except ImportError:
      raise ValueError("--dask needs Dask's distributed scheduler: pip install '.[dask]'"
                       ) from None
    # Their log lines (Dask configures a level per logger) would end up in ours.
    for name in ["distributed", "tornado", "asyncio", *logging.root.manager.loggerDict]:
      if name.split(".")[0] in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    self._distributed = distributed
    self.address = address
    self.description = f"the Dask cluster at {address}"
    # Built in two steps so that a client whose connection failed can be marked closed: else its
    # __del__ would wait twice the timeout again and print a traceback at exit.
    client = distributed.Client.__new__(distributed.Client)
    try:
      client.__init__(address, timeout=timeout, set_as_default=False)
    except Exception as e:  # noqa: BLE001  (OSError, TimeoutError, ValueError for a bad address)
      reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
      with contextlib.suppress(Exception):
        client.status = "closed"
        client._loop_runner.stop()  # noqa: SLF001
      raise ValueError(f"cannot reach the Dask scheduler at {address!r} within {timeout:g} s "
                       f"({reason[:200]})") from None
    self.client = client
    workers = client.scheduler_info().get("workers", {}).values()
    self.parallelism = max(1, sum(w.get("nthreads", 1) for w in workers))

  def run(self, fn: JobFunction, jobs: Sequence[jobs_lib.Job]) -> Finished:
    distributed = self._distributed
    futures = {self.client.submit(fn, job, pure=False): job for job in jobs}
    try:
      for future in distributed.as_completed(futures, loop=self.client.loop):
        job = futures[future]
        try:
          outcome = future.result()
        except distributed.KilledWorker as e:
          outcome = jobs_lib.Failure(f"Dask workers died running this job: {e}", "")
        except Exception as e:  # noqa: BLE001  (the scheduler or the connection went away)
          lines = str(e).strip().splitlines()
          raise ExecutorLost(f"lost {self.description} ({type(e).__name__}"
                             + (f": {lines[0][:200]})" if lines else ")")) from None
        yield job, outcome
    finally:
      with contextlib.suppress(Exception):
        self.client.cancel(list(futures))

  def close(self, terminate: bool = False) -> None:
    del terminate
    with contextlib.suppress(Exception):
      self.client.close(timeout=DASK_TIMEOUT)


@contextlib.contextmanager
def make_executor(workers: int = 1, dask_address: Optional[str] = None,
                  dask_timeout: float = DASK_TIMEOUT):
  """The executor of a sweep: Dask if an address is given, else a local pool of ``workers``
  processes (this process for 1).

  Raises:
    ValueError: for workers not from 1 to ``MAX_WORKERS``, Dask not installed, or a scheduler not
      reached in time.
  """
  if dask_address:
    executor = DaskCluster(dask_address, dask_timeout)
  elif (isinstance(workers, bool) or not isinstance(workers, int)
        or not 1 <= workers <= MAX_WORKERS):
    raise ValueError(f"workers must be an integer from 1 to {MAX_WORKERS}, got {workers!r}")
  else:
    executor = Serial() if workers == 1 else LocalPool(workers)
  try:
    yield executor
  except BaseException:
    executor.close(terminate=True)
    raise
  executor.close()
