"""What an experiment gets from the command line: its folder, its budget, the executor, and the
sweep runner that resumes, refuses too-long work, saves each result at once and keeps count.

``Context.run_jobs`` runs a sweep:

1. it sizes each job and refuses, before any work, a game the engine cannot hold or a sweep
   estimated (from the solvers' measured costs, ``SolverSpec.cost`` and ``range_cost``) to take
   longer than ``--max-minutes``. A job on the flat engine (or outside the project's engine) is
   sized by its game's histories (counted up to the engine's limit, ``game_loader``); a job that
   runs on range vectors (``SolverSpec.card_tree``: two-player Kuhn poker with a large deck) by
   its cards, with the memory of the run (``solver_backends.range_memory``) and of a kept policy
   table against ``solver_backends.DEFAULT_MAX_BYTES``;
2. it reuses every job already saved in ``<folder>/jobs/`` by the same code (``jobs.load``),
   unless ``--fresh``;
3. it runs the others on the executor, saving each result atomically as soon as it arrives, so an
   interrupted sweep keeps what finished and the same command resumes it;
4. a job that raised is recorded (``Context.failures``, shown in the report) and the sweep goes
   on; the results of the jobs that finished are returned in the order of the sweep.

``Context.run_tasks`` runs an experiment's tasks (``experiments.harness.tasks``: units of work
that are not solver runs, e.g. one measurement of an agent) the same way: each task's own
estimate against ``--max-minutes``, saved results of the same code reused, the others run on the
executor and saved in ``<folder>/jobs/`` as each finishes, failures recorded.

``Context.stats`` counts jobs and tasks reused and computed, and when and by which code the
reused ones were computed, for the report.

Progress: on a terminal, tqdm's progress bars (on stderr). Elsewhere (a log file, a pipe,
``make``) a ``Context`` given a ``log`` prints plain timestamped lines instead (``plain_progress``,
``log_line``), so that a log shows where a long run is: what a sweep holds and its estimated time
before it starts; the same tqdm bars drawn as one line at most every ``LOG_INTERVAL`` seconds
(``Context.bar``: how far a sweep or a long count of histories is); and, from ``heartbeat``, a
"still running" line whenever ``LOG_INTERVAL`` seconds pass without a line, so that even one long
step (a single job, a policy being prepared) shows at least once a minute.

The experiment's folder holds what its last run wrote; the CLI replaces it as a whole on a rerun
except for ``KEPT_FOLDERS``, the saved work that later runs reuse.
"""

import contextlib
import dataclasses
import datetime
import multiprocessing
import os
import pathlib
import sys
import time
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import tqdm

from algorithms.cfr import range_engine
from algorithms.cfr import solver_backends
from algorithms.tree.card_tree import CardTree
from experiments.harness import deadline as deadline_lib
from experiments.harness import executors
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import measures
from experiments.harness import policies
from experiments.harness import provenance
from experiments.harness import solver_registry
from experiments.harness import stopping
from experiments.harness import tasks as tasks_lib
from experiments.harness.deadline import Deadline

JOBS_FOLDER = "jobs"
# Saved work that a rerun reuses and keeps: the sweeps' job results (``run_jobs``), and the data
# sets and models of rebel-learned (``experiments.commands.rebel_learned.artifacts``).
KEPT_FOLDERS = (JOBS_FOLDER, "data", "models")
# Without a terminal, the longest time between two lines about a sweep's progress (seconds).
LOG_INTERVAL = 60.0
# A bar on a terminal: tqdm's default without its rate and time left (``Context.bar``).
TERMINAL_BAR = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed} elapsed{postfix}]"
# The longest activity text the heartbeat shows (bytes).
_ACTIVITY_BYTES = 240
# Estimated cost of measuring the average policy once, per history, and of the final
# OpenSpiel measurement, per history (seconds; Kuhn and Leduc poker on 2 cores, with a margin).
_MEASURE_SECONDS_PER_HISTORY = 5e-6
_FINAL_SECONDS_PER_HISTORY = 5e-5
# On range vectors over N cards (iterations and measures: ``SolverSpec.range_seconds``): the
# final TabularPolicy (for a kept policy table or OpenSpiel's check), whose representative state
# and information-state tensor (about N floats) per information set cost time per card squared
# (measured 0.45 s at 1,000 cards, 2.6 s at 2,000; its memory:
# ``range_engine.tabular_policy_bytes``).
_TABLE_SECONDS_PER_CARD_SQUARED = 7e-7


def terminal_progress(quiet: bool) -> bool:
  """Progress bars are drawn only on a terminal, and not with ``--quiet``."""
  return not quiet and sys.stderr.isatty()


def plain_progress(quiet: bool) -> bool:
  """Plain progress lines replace the bars when stderr is not a terminal, unless ``--quiet``."""
  return not quiet and not sys.stderr.isatty()


def log_line(name: str, text: str) -> None:
  """Prints ``[HH:MM:SS] name: text`` on stdout at once (a plain progress line)."""
  stamp = datetime.datetime.now().strftime("%H:%M:%S")
  print(f"[{stamp}] {name}: {text}", flush=True)


def _beat(name: str, last_line, activity, parent: int, begin: float) -> None:
  """The heartbeat's process: every few seconds, a ``log_line``-formatted "still running" line if
  ``LOG_INTERVAL`` seconds passed since ``last_line``; it ends with its parent. Written with one
  ``os.write`` (no lock a forked thread may have held)."""
  stopping.default_signals()  # Ctrl-C, SIGTERM and SIGHUP are the run's to handle.
  while os.getppid() == parent:
    time.sleep(max(min(LOG_INTERVAL, 5.0), 0.05))
    now = time.monotonic()
    if now - last_line.value >= LOG_INTERVAL:
      last_line.value = now
      doing = activity.value.decode("utf-8", "replace")
      stamp = datetime.datetime.now().strftime("%H:%M:%S")
      try:
        os.write(1, (f"[{stamp}] {name}: still running" + (f" ({doing})" if doing else "")
                     + f", {duration(now - begin)} elapsed\n").encode("utf-8"))
      except OSError:  # Nobody reads the output any more (``... | head -1``): the run goes on.
        stopping.silence(1)


class _LogStream:
  """The file a tqdm bar draws on off a terminal: each status it draws becomes one ``note``
  line (tqdm writes a carriage return and the status; a blank status, the bar cleared, is
  dropped)."""

  def __init__(self, note: Callable[[str], None]):
    self._note = note

  def write(self, text: str) -> None:
    text = text.replace("\r", "").strip()
    if text:
      self._note(text)

  def flush(self) -> None:
    """Each line is printed and flushed by ``note``."""


@dataclasses.dataclass
class JobFailure:
  """A job or a task that raised: the job or task, its one-line error and its traceback."""

  job: Union[jobs_lib.Job, tasks_lib.Task]
  message: str
  traceback: str


@dataclasses.dataclass
class SweepStats:
  """Jobs and tasks of an experiment's sweeps: how many, how many reused, by which code.

  Attributes:
    total: jobs and tasks in the sweeps so far.
    reused: jobs whose saved result was reused.
    computed: jobs computed now.
    failed: jobs that raised.
    reused_finished: finishing times (ISO 8601) of the reused results.
    code: for every result used, reused or new, ``provenance.describe_code`` -> count.
  """

  total: int = 0
  reused: int = 0
  computed: int = 0
  failed: int = 0
  reused_finished: List[str] = dataclasses.field(default_factory=list)
  code: Dict[str, int] = dataclasses.field(default_factory=dict)

  @property
  def kept(self) -> int:
    """Jobs whose results are saved (reused or computed)."""
    return self.reused + self.computed


class Context:
  """An experiment's run: its folder, options and executor (see the module docstring).

  Attributes:
    name: the experiment's name.
    out: the experiment's folder (created by the CLI).
    seed: the base random seed.
    quick: the small budget.
    progress: draw progress bars.
    fresh: recompute saved jobs.
    max_minutes: the longest estimated sweep accepted.
    executor: where sweeps run (``executors``).
    log: prints a plain progress line (``log_line``), or None (see the module docstring).
    deadline: when the run stops (``--max-minutes`` from its start): a sweep checks it after
      each result and raises ``stopping.DeadlinePassed`` once it has passed, its finished
      results saved.
    stats: the counts of this run's sweeps.
    failures: the jobs that raised.
  """

  def __init__(self, name: str, out: pathlib.Path, seed: int = 0, quick: bool = False,
               progress: bool = False, fresh: bool = False, max_minutes: float = 60.0,
               executor=None, log: Optional[Callable[[str, str], None]] = None,
               deadline: Deadline = deadline_lib.NEVER):
    self.name = name
    self.out = pathlib.Path(out)
    self.seed = seed
    self.quick = quick
    self.progress = progress
    self.fresh = fresh
    self.max_minutes = max_minutes
    self.executor = executor or executors.Serial()
    self.log = log
    self.deadline = deadline
    self.stats = SweepStats()
    self.failures: List[JobFailure] = []
    # Shared with the heartbeat's process (``heartbeat``): when the last line was printed
    # (``time.monotonic``, one clock for all processes) and what the run is doing.
    self._last_line = multiprocessing.RawValue("d", time.monotonic())
    self._activity = multiprocessing.RawArray("c", _ACTIVITY_BYTES)

  def note(self, text: str) -> None:
    """A plain progress line about this experiment, if the context has a ``log``."""
    if self.log is not None:
      self._last_line.value = time.monotonic()
      self.log(self.name, text)

  def bar(self, log_format: str, **options) -> tqdm.tqdm:
    """A tqdm progress bar (``options`` are tqdm's): drawn on stderr on a terminal (with a total,
    as ``TERMINAL_BAR``: tqdm's own time left, from the count of units alone, would contradict
    the estimate in the postfix); off a terminal
    with a ``log``, one ``note`` line (``log_format``, a tqdm ``bar_format``) once its ``delay``
    (default ``LOG_INTERVAL`` seconds) has passed and then at most every ``LOG_INTERVAL`` seconds;
    else nothing."""
    if self.progress:
      if options.get("total"):  # The project's estimate of the time left is the postfix.
        options.setdefault("bar_format", TERMINAL_BAR)
      return tqdm.tqdm(leave=False, **options)
    if self.log is None:
      return tqdm.tqdm(disable=True, **options)
    options.setdefault("delay", LOG_INTERVAL)
    return tqdm.tqdm(file=_LogStream(self.note), bar_format=log_format,
                     mininterval=LOG_INTERVAL, leave=False, **options)

  @property
  def activity(self) -> str:
    """What the heartbeat says the run is doing ("" before any sweep)."""
    return self._activity.value.decode("utf-8", "replace")

  @activity.setter
  def activity(self, text: str) -> None:
    self._activity.value = text.encode("utf-8")[:_ACTIVITY_BYTES - 1]

  @contextlib.contextmanager
  def heartbeat(self) -> Iterator[None]:
    """While the block runs, with ``log_line`` as its ``log``, a "still running" line (with
    ``activity``) whenever ``LOG_INTERVAL`` seconds pass without a line, so that a single long
    step shows too. The lines come from a forked process (``_beat``): a thread would wait for
    compiled kernels that hold the interpreter lock for minutes."""
    if self.log is not log_line:
      yield
      return
    beat = multiprocessing.get_context("fork").Process(
        target=_beat, args=(self.name, self._last_line, self._activity, os.getpid(),
                            time.monotonic()), daemon=True)
    with stopping.held():
      beat.start()
    try:
      yield
    finally:
      beat.kill()
      beat.join()

  def histories(self, game: str) -> int:
    """The game's number of histories, capped at the engine's limit (``game_loader.histories``),
    with a progress bar (``bar``) for a count that takes more than a second."""
    if game_loader.is_counted(game):
      return game_loader.histories(game)
    with self.bar("{desc}: {n:,} so far (a large game), {elapsed} elapsed",
                  desc=f"counting the histories of {game}", unit=" histories",
                  delay=min(1.0, LOG_INTERVAL)) as bar:
      return game_loader.histories(game, lambda n: bar.update(n - bar.n))

  def estimate_seconds(self, job: jobs_lib.Job) -> float:
    """The estimated wall time of one job (``estimate_seconds``, histories counted with a bar)."""
    return estimate_seconds(job, self.histories)

  def check_sizes(self, game_strings: Sequence[str]) -> None:
    """Refuses games too large for the flat engine (one-line ValueError with size and limit),
    their histories counted with a bar."""
    for game in game_strings:
      self.histories(game)
      game_loader.check_engine_size(game)

  def sweep_cost(self, todo: Sequence[jobs_lib.Job], what: str = "jobs") -> "Cost":
    """Refuses, before any work, games too large for the engine and ``todo`` estimated to take
    longer than ``max_minutes`` on the executor (``sweep_cost``; histories counted with a bar).

    Returns:
      The estimated wall time of ``todo`` on the executor and of each unit (seconds).
    """
    return sweep_cost(todo, self.max_minutes, self.executor.parallelism, self.histories, what)

  def check_estimate(self, seconds: float, what: str, smaller: str) -> None:
    """Refuses, before any work, a step of the experiment that runs in this process (not a
    sweep) estimated at ``seconds`` over ``max_minutes`` (one-line ValueError naming ``what``
    and the options that make it ``smaller``), and notes the estimate."""
    if seconds > 60 * self.max_minutes:
      raise ValueError(f"{what} estimated at {duration(seconds)}, over the limit --max-minutes "
                       f"{self.max_minutes:g}; raise it, or choose {smaller}")
    self.note(f"{what}: estimated {duration(seconds)}")

  def prepare_policies(self, game: str, names: Sequence[str]) -> float:
    """Refuses named policies whose preparation (``SOLVER:ITERATIONS``, a solver run) is too large
    or estimated over ``max_minutes`` (``policy_jobs``, ``check_cost``), and notes the estimate.

    Returns:
      The estimated seconds (0 when no named policy runs a solver).
    """
    todo = policy_jobs(game, names)
    if not todo:
      return 0.0
    seconds = check_cost(todo, self.max_minutes, 1, self.histories, "policy preparation")
    self.activity = "preparing " + ", ".join(f"{job.solver}:{job.iterations}" for job in todo)
    self.note(f"{self.activity} on {game}: estimated {duration(seconds)}")
    return seconds

  def run_jobs(self, sweep: Sequence[jobs_lib.Job], description: Optional[str] = None,
               batch: bool = False) -> List[jobs_lib.JobResult]:
    """Runs a sweep (see the module docstring) and returns the results of the jobs that finished,
    in the order of ``sweep``.

    With ``batch``, jobs that differ only in a game of the same shape run as one batched solver
    run where their solver has a batched form (``jobs.batches``): the same results, each job's
    wall time the batch's shared equally, so not for sweeps that compare solvers' times.

    Raises:
      ValueError: for a repeated job, a game too large, or a sweep over the time limit (before
        any work).
      executors.ExecutorLost: if the executor failed; finished jobs are saved.
    """
    return self._run(sweep, "job", jobs_lib.JobResult, jobs_lib.run_item,
                     jobs_lib.batches if batch else list, description)

  def run_tasks(self, todo: Sequence[tasks_lib.Task], description: Optional[str] = None
                ) -> List[tasks_lib.TaskResult]:
    """Runs tasks (``experiments.harness.tasks``) exactly as ``run_jobs`` runs a sweep: saved
    results of the same code reused, the others run on the executor and saved as each finishes,
    estimated (``Task.estimate``) and refused over ``max_minutes`` before any work, counted in
    ``stats``; returns the results of the tasks that finished, in the order of ``todo``.

    Raises:
      ValueError: for a repeated task, or tasks estimated over the time limit (before any work).
      executors.ExecutorLost: if the executor failed; finished tasks are saved.
    """
    return self._run(todo, "task", tasks_lib.TaskResult, tasks_lib.run_task, list, description)

  def _run(self, sweep, noun: str, result_class, fn, group, description: Optional[str]) -> list:
    """``run_jobs`` and ``run_tasks``: ``sweep`` holds jobs or tasks (``noun``), saved as
    ``result_class``, computed by ``fn`` over the items ``group(todo)`` (a unit or a tuple of
    units, whose outcome is a list)."""
    if len({unit.key for unit in sweep}) != len(sweep):
      raise ValueError(f"a sweep must not list the same {noun} twice")
    folder = self.out / JOBS_FOLDER
    if folder.is_symlink():  # Results are never written or read through a link.
      raise ValueError(f"{folder} is a symbolic link; saved results go in a folder of the "
                       "results folder itself: remove the link or choose another --out")
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(".*.json.*.tmp"):  # Left by a process killed mid-write.
      stale.unlink(missing_ok=True)
    stamp = provenance.code_stamp()
    found = {}
    if not self.fresh:
      for unit in sweep:
        saved = jobs_lib.load(folder, unit, stamp["fingerprint"], result_class)
        if saved is not None:
          found[unit] = saved
    todo = [unit for unit in sweep if unit not in found]
    cost = self.sweep_cost(todo, f"{noun}s")
    prefix = f"{description}: " if description else ""
    self.note(f"{prefix}{_count(len(sweep), noun)}, {len(found)} reused, {len(todo)} to run, "
              f"estimated {duration(cost.seconds)} on {self.executor.parallelism} worker(s)")
    self.stats.total += len(sweep)
    self.stats.reused += len(found)
    self.stats.reused_finished += [r.finished for r in found.values()]
    label = description or "sweep"
    estimates = dict(zip(todo, cost.per_unit))
    planned, finished = sum(cost.per_unit), 0.0
    with self.bar("{desc}: {n} of {total} " + noun + "s done, {elapsed} elapsed{postfix}",
                  total=len(sweep), initial=len(found), desc=label,
                  postfix=_left(planned, 0.0, 0.0, self.executor.parallelism)) as bar:
      self.activity = f"{label}: {bar.n} of {_count(len(sweep), noun)} done"
      for item, outcome in self.executor.run(fn, group(todo)):
        done = zip(item, outcome) if isinstance(item, tuple) else [(item, outcome)]
        for unit, unit_outcome in done:
          if isinstance(unit_outcome, jobs_lib.Failure):
            self.stats.failed += 1
            self.failures.append(JobFailure(unit, unit_outcome.message, unit_outcome.traceback))
          else:
            value, wall_seconds = unit_outcome
            result = result_class(unit, value, computed_by=dict(stamp), finished=provenance.now(),
                                  wall_seconds=wall_seconds)
            jobs_lib.save(folder, result)
            found[unit] = result
            self.stats.computed += 1
          finished += estimates[unit]
          bar.set_postfix_str(_left(planned, finished, bar.format_dict["elapsed"],
                                    self.executor.parallelism), refresh=False)
          bar.update(1)
        self.activity = f"{label}: {bar.n} of {_count(len(sweep), noun)} done"
        if self.deadline.passed() and len(found) < len(sweep):
          raise stopping.DeadlinePassed(self.max_minutes)
    self.activity = f"{label} finished, {_count(len(sweep), noun)}"
    for result in found.values():
      code = provenance.describe_code(result.computed_by)
      self.stats.code[code] = self.stats.code.get(code, 0) + 1
    return [found[unit] for unit in sweep if unit in found]


def estimate_seconds(job: Union[jobs_lib.Job, tasks_lib.Task],
                     histories: Callable[[str], int] = game_loader.histories) -> float:
  """The estimated wall time of one job: solver iterations (``SolverSpec.seconds_per_iteration``)
  plus measurements, or on range vectors both (``SolverSpec.range_seconds``) and the final
  policy table where one is built; of a task, its own ``Task.estimate``.

  Args:
    job: the job or task.
    histories: game string -> its histories (capped; ``game_loader.histories``).
  """
  if isinstance(job, tasks_lib.Task):
    return job.estimate
  spec = solver_registry.get_solver(job.solver)
  measurements = len(set(job.measure_at) | {job.iterations})
  card_tree = _card_tree(job)
  if card_tree is None:
    size = histories(job.game)
    return (job.iterations * spec.seconds_per_iteration(size)
            + size * (measurements * _MEASURE_SECONDS_PER_HISTORY + _FINAL_SECONDS_PER_HISTORY))
  cards = card_tree.num_cards
  seconds = spec.range_seconds(job.iterations, measurements, card_tree)
  checked = measures.openspiel_walkable(card_tree.game)  # OpenSpiel's check at the end
  if checked:
    seconds += game_loader.histories(job.game) * _FINAL_SECONDS_PER_HISTORY
  if job.keep_policy or checked:
    seconds += _TABLE_SECONDS_PER_CARD_SQUARED * cards**2
  return seconds


def check_job_sizes(todo: Sequence[jobs_lib.Job],
                    histories: Callable[[str], int] = game_loader.histories) -> None:
  """Refuses jobs too large for their engine (one-line ValueError with size and limit): on
  range vectors, a run or a kept policy table over ``solver_backends.DEFAULT_MAX_BYTES``;
  elsewhere a game over the flat engine's limit of histories (``game_loader.check_engine_size``,
  after counting them with ``histories``)."""
  flat = set()
  for job in todo:
    if isinstance(job, tasks_lib.Task):  # Sized by its experiment, in its estimate.
      continue
    card_tree = _card_tree(job)
    if card_tree is None:
      flat.add(job.game)
      continue
    limit = solver_backends.DEFAULT_MAX_BYTES
    solver_backends.check_memory(card_tree, limit)
    table = range_engine.tabular_policy_bytes(card_tree)
    if job.keep_policy and table > limit:
      raise ValueError(f"{job.game}: its kept policy table (an OpenSpiel TabularPolicy, whose "
                       f"information-state tensors grow with the cards squared) needs about "
                       f"{table / 2**30:.1f} GiB, over the limit {limit / 2**30:.1f} GiB; "
                       "choose a smaller deck")
  for game in sorted(flat):
    histories(game)  # Counted (with a bar, from a Context) before the check counts again.
    game_loader.check_engine_size(game)


def size_text(job: jobs_lib.Job, histories: Callable[[str], int] = game_loader.histories) -> str:
  """The size the job is estimated by: "N cards, range vectors" or "H histories"."""
  card_tree = _card_tree(job)
  if card_tree is not None:
    return f"{card_tree.num_cards:,} cards, range vectors"
  return f"{histories(job.game):,} histories"


@dataclasses.dataclass(frozen=True)
class Cost:
  """The estimate of a sweep (``sweep_cost``), computed once for the check against the time
  limit and for the progress line's "about ... left" (``_left``).

  Attributes:
    seconds: the estimated wall time of the units on the workers.
    per_unit: each unit's estimated seconds (``estimate_seconds``), in the order of the units.
  """
  seconds: float
  per_unit: Tuple[float, ...]


def sweep_cost(todo: Sequence[jobs_lib.Job], max_minutes: float, parallelism: int = 1,
               histories: Callable[[str], int] = game_loader.histories,
               what: str = "jobs") -> Cost:
  """Refuses, before any work, games too large for the engine (``check_job_sizes``) and ``todo``
  estimated (``estimate_seconds``) to take longer than ``max_minutes`` on ``parallelism``
  workers: the estimates' sum over ``parallelism``, or the longest one if that is more.

  Returns:
    The estimated wall time of ``todo`` and of each of its units (seconds).

  Raises:
    ValueError: one line with the size or the estimate and the limit.
  """
  check_job_sizes(todo, histories)
  per_unit = tuple(estimate_seconds(job, histories) for job in todo)
  # Spread over the workers, but never below the longest unit, which runs on one of them.
  total = max([sum(per_unit) / parallelism, *per_unit])
  if total > 60 * max_minutes:
    longest, job = max(zip(per_unit, todo), key=lambda e: e[0])
    count = f"{len(todo)} {what}" if len(todo) > 1 else what
    if isinstance(job, tasks_lib.Task):
      what_longest, smaller = job.describe(), "a smaller budget"
    else:
      what_longest = (f"{job.solver} on {job.game} ({size_text(job, histories)}) for "
                      f"{job.iterations:,} iterations")
      smaller = "fewer iterations or smaller games"
    raise ValueError(
        f"{count} estimated at {duration(total)} on {parallelism} worker(s) ("
        + ("the longest, " if len(todo) > 1 else "")
        + f"{what_longest}, {duration(longest)}), over the limit --max-minutes "
        f"{max_minutes:g}; raise it, or choose {smaller}")
  return Cost(total, per_unit)


def check_cost(todo: Sequence[jobs_lib.Job], max_minutes: float, parallelism: int = 1,
               histories: Callable[[str], int] = game_loader.histories,
               what: str = "jobs") -> float:
  """``sweep_cost``'s estimated wall time of ``todo`` (seconds), for a caller that needs no
  progress line."""
  return sweep_cost(todo, max_minutes, parallelism, histories, what).seconds


def policy_jobs(game: str, names: Sequence[str]) -> List[jobs_lib.Job]:
  """The solver runs behind policy names (``policies.make_policy``): one job, its policy table
  kept, per distinct ``SOLVER:ITERATIONS`` name; other names cost nothing to prepare.

  Raises:
    ValueError: for a malformed name (``policies.check_name``).
  """
  todo = []
  for name in dict.fromkeys(names):
    policies.check_name(name)
    if ":" in name and not name.startswith("file:"):
      solver, iterations = policies.parse_solver_spec(name)
      todo.append(jobs_lib.Job("policy", game, solver, 0, iterations, keep_policy=True))
  return todo


def _card_tree(job: jobs_lib.Job) -> Optional[CardTree]:
  """The job's ``CardTree`` if its solver runs on range vectors there, else None."""
  game = game_loader.load_game(job.game, two_player_zero_sum=False)
  return solver_registry.get_solver(job.solver).card_tree(game, job.solver_options())


def _count(count: int, noun: str) -> str:
  return f"{count} {noun}" + ("" if count == 1 else "s")


def _left(planned: float, finished: float, elapsed: float, parallelism: int) -> str:
  """The progress line's "about ... left": the estimated seconds of the units not finished
  (``planned - finished``, ``estimate_seconds``) at the pace measured so far (wall seconds per
  estimated second finished), or before any unit finished, the plan over the workers less the
  time elapsed. Counting units instead misleads where they differ in size (tasks run longest
  first)."""
  if finished > 0:
    seconds = (planned - finished) * elapsed / finished
  else:
    seconds = max(planned / parallelism - elapsed, 0.0)
  return f"about {duration(seconds)} left"


def duration(seconds: float) -> str:
  """A rough duration: "40 s", "12 min", "3.5 h"."""
  if seconds < 120:
    return f"{seconds:.0f} s"
  if seconds < 7200:
    return f"{seconds / 60:.0f} min"
  return f"{seconds / 3600:.1f} h"


def describe_failures(failures: Sequence[JobFailure]) -> List[str]:
  """One line per failed job or task: the job's solver, game, seed and iterations (the task's
  label) and its error."""
  return [f"{f.job.describe()}: {f.message}" for f in failures]
