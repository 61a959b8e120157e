"""Jobs: one solver run, its typed result, and the one file format results are saved in.

A ``Job`` is one (experiment, game string, solver, seed, iterations, measuring points) run;
``run_job`` computes it in any process (it is what executors run) and never raises: an exception
becomes a ``Failure`` carrying the one-line error and the traceback. The process that runs the
sweep turns a computed run into a ``JobResult`` stamped with the code that computed it
(``provenance.code_stamp``) and saves it as ``<folder>/<job.key>.json``.

A saved result is reused only for the same job computed by the same code (same fingerprint);
any other file under that name (older code, another format, unreadable) is ignored and replaced.
"""

import dataclasses
import hashlib
import json
import math
import pathlib
import re
import time
import traceback
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from algorithms import atomic_file
from experiments import games
from experiments import measures
from experiments import solver_registry

FORMAT = "kuhn-cfr-job-result"
VERSION = 1


@dataclasses.dataclass(frozen=True)
class Job:
  """One solver run of a sweep.

  Attributes:
    experiment: name of the experiment the job belongs to.
    game: an OpenSpiel game string, e.g. "kuhn_poker_ante(ante=2.0)".
    solver: a name from ``experiments.solver_registry.SOLVERS``.
    seed: the job's own random seed (used by sampled solvers).
    iterations: number of solver iterations T (> 0).
    measure_at: iterations (1..T) at which the average policy is measured; T always is.
    keep_policy: keep the final average policy in the result.
  """

  experiment: str
  game: str
  solver: str
  seed: int
  iterations: int
  measure_at: Tuple[int, ...] = ()
  keep_policy: bool = False

  def __post_init__(self):
    if isinstance(self.iterations, bool) or not isinstance(self.iterations, int) or (
        self.iterations <= 0):
      raise ValueError(f"job iterations must be a positive integer, got {self.iterations!r}")
    object.__setattr__(self, "measure_at", tuple(int(t) for t in self.measure_at))

  @property
  def key(self) -> str:
    """A file name stem unique to the job: readable fields plus a hash of all of them."""
    fields = json.dumps(dataclasses.asdict(self), sort_keys=True)
    digest = hashlib.sha1(fields.encode("utf-8")).hexdigest()[:10]
    readable = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{self.game}-{self.solver}-s{self.seed}")
    return f"{readable}-{self.iterations}-{digest}"


@dataclasses.dataclass(frozen=True)
class Failure:
  """A job that raised: its one-line error and the traceback."""

  message: str
  traceback: str


@dataclasses.dataclass
class JobResult:
  """A finished job.

  Attributes:
    job: the job.
    solved: what the solver run measured (``solver_registry.Solved``).
    computed_by: the code that computed it (``provenance.code_stamp()``).
    finished: when it finished (ISO 8601).
    wall_seconds: the job's wall time (tree walk, iterations and measurements).
  """

  job: Job
  solved: solver_registry.Solved
  computed_by: Dict[str, Any]
  finished: str
  wall_seconds: float

  @property
  def final(self) -> float:
    """The measure (exploitability or NashConv) of the final average policy."""
    return self.solved.curve[-1]

  @property
  def nash_conv(self) -> float:
    """NashConv of the final average policy (twice its exploitability in a two-player
    zero-sum game)."""
    return measures.nash_conv(self.solved.measure, self.final)

  @property
  def value(self) -> float:
    """Player 0's expected return when every player plays the final average policy."""
    return self.solved.returns[0]

  def to_json(self) -> Dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, **dataclasses.asdict(self)}

  @classmethod
  def from_json(cls, data: Dict[str, Any]) -> "JobResult":
    """Rebuilds a result from ``to_json``'s dict; ValueError if it is not one."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
      raise ValueError(f"not a {FORMAT} file")
    if data.get("version") != VERSION:
      raise ValueError(f"{FORMAT} version {data.get('version')} is not {VERSION}")
    try:
      return cls(job=Job(**data["job"]), solved=solver_registry.Solved(**data["solved"]),
                 computed_by=dict(data["computed_by"]), finished=str(data["finished"]),
                 wall_seconds=float(data["wall_seconds"]))
    except (KeyError, TypeError) as e:
      raise ValueError(f"malformed {FORMAT} file: {e}") from None


Outcome = Union[Tuple[solver_registry.Solved, float], Failure]


def run_job(job: Job) -> Outcome:
  """Computes ``job`` (in any process): (what the solver run measured, wall seconds), or the
  ``Failure`` if it raised. Only KeyboardInterrupt and SystemExit propagate."""
  start = time.perf_counter()
  try:
    game = games.load_game(job.game, two_player_zero_sum=False)
    solved = solver_registry.solve(game, job.solver, job.seed, job.iterations, job.measure_at,
                                   job.keep_policy)
  except Exception as e:  # noqa: BLE001  (recorded in the report; the sweep goes on)
    lines = str(e).strip().splitlines()
    return Failure(f"{type(e).__name__}: {lines[0] if lines else ''}".rstrip(": "),
                   traceback.format_exc())
  return solved, time.perf_counter() - start


Batch = Tuple[Job, ...]


def batches(sweep: Sequence[Job]) -> List[Union[Job, Batch]]:
  """The jobs of a sweep grouped for ``run_batch``, in order of first appearance.

  Jobs that differ only in their game form one batch when their solver has a batched form
  (``SolverSpec.batch``) and their games share a tree shape (``solver_registry.batch_key``);
  a group of one stays a single job.
  """
  groups: Dict[Any, List[Job]] = {}
  for job in sweep:
    key: Any = job
    if solver_registry.get_solver(job.solver).batch is not None:
      shape = solver_registry.batch_key(games.load_game(job.game, two_player_zero_sum=False))
      if shape is not None:
        key = (dataclasses.replace(job, game=""), shape)
    groups.setdefault(key, []).append(job)
  return [group[0] if len(group) == 1 else tuple(group) for group in groups.values()]


def run_batch(batch: Batch) -> List[Outcome]:
  """Computes a batch (``batches``) in one batched solver run (``solver_registry.solve_batch``,
  in any process): per job, what the run measured for its game and the batch's wall seconds
  shared equally; or, if it raised, the same ``Failure`` for every job."""
  start = time.perf_counter()
  first = batch[0]
  try:
    game_list = [games.load_game(job.game, two_player_zero_sum=False) for job in batch]
    solved = solver_registry.solve_batch(game_list, first.solver, first.iterations,
                                         first.measure_at, first.keep_policy)
  except Exception as e:  # noqa: BLE001  (recorded in the report; the sweep goes on)
    lines = str(e).strip().splitlines()
    failure = Failure(f"{type(e).__name__}: {lines[0] if lines else ''}".rstrip(": "),
                      traceback.format_exc())
    return [failure] * len(batch)
  seconds = (time.perf_counter() - start) / len(batch)
  return [(s, seconds) for s in solved]


def run_item(item: Union[Job, Batch]) -> Union[Outcome, List[Outcome]]:
  """``run_job`` of a job, ``run_batch`` of a batch (what executors run for a batched sweep)."""
  return run_batch(item) if isinstance(item, tuple) else run_job(item)


def result_path(folder: pathlib.Path, job: Job) -> pathlib.Path:
  """Where ``job``'s result is saved in ``folder``."""
  return pathlib.Path(folder) / f"{job.key}.json"


def save(folder: pathlib.Path, result: JobResult) -> pathlib.Path:
  """Writes ``result`` atomically to its path in ``folder`` and returns the path."""
  path = result_path(folder, result.job)
  atomic_file.atomic_write_json(path, result.to_json())
  return path


def load(folder: pathlib.Path, job: Job, fingerprint: str) -> Optional[JobResult]:
  """The saved result of ``job`` computed by code with ``fingerprint``, or None (missing,
  unreadable, of another format, of another job, or computed by other code)."""
  path = result_path(folder, job)
  try:
    result = JobResult.from_json(json.loads(path.read_text(encoding="utf-8")))
  except (OSError, ValueError):  # Missing, or not a readable result: recompute and replace.
    return None
  if result.job != job or result.computed_by.get("fingerprint") != fingerprint:
    return None
  return result


def measuring_points(iterations: int, count: int, extra: Sequence[int] = ()) -> List[int]:
  """About ``count`` log-spaced iterations from 1 to ``iterations`` inclusive, plus ``extra``
  points up to ``iterations``, sorted and distinct."""
  marks = np.round(np.logspace(0, math.log10(iterations), count)).astype(int)
  return sorted({int(m) for m in marks} | {t for t in extra if 1 <= t <= iterations}
                | {iterations})
