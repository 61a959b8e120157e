"""Jobs: one solver run, its typed result, and the one file format results are saved in.

A ``Job`` is one (experiment, game string, solver, seed, iterations, measuring points, option
overrides) run;
``run_job`` computes it in any process (it is what executors run) and never raises: an exception
becomes a ``Failure`` carrying the one-line error and the traceback. The process that runs the
sweep turns a computed run into a ``JobResult`` stamped with the code that computed it
(``provenance.code_stamp``) and saves it as ``<folder>/<job.key>.json``.

A saved result is reused only for the same job computed by the same code (same fingerprint);
any other file under that name (older code, another format, unreadable, fields that fail their
schema such as an empty curve, or a symbolic link, which is never followed) is ignored and
replaced. File names are bounded (``Job.key``: at most ``_READABLE_CHARS`` readable characters
and a hash), however long the game string, which the file holds in full.
``save`` and ``load`` serve any unit of work with a ``key`` and its ``SavedResult`` (the stamp
and the file format, shared): the tasks of ``experiments.harness.tasks`` are saved the same way.
"""

import abc
import dataclasses
import hashlib
import json
import math
import os
import pathlib
import re
import time
import traceback
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Type, Union

import numpy as np

from experiments.harness import game_loader
from experiments.harness import measures
from experiments.harness import solver_registry
from experiments.harness import solver_runs
from spiel_games import atomic_file

FORMAT = "kuhn-cfr-job-result"
VERSION = 1
# The readable part of a job's file name (game, solver, seed) is cut to this many characters;
# the hash that follows it identifies the job (a file name holds at most 255 bytes).
_READABLE_CHARS = 100


@dataclasses.dataclass(frozen=True)
class Job:
  """One solver run of a sweep.

  Attributes:
    experiment: name of the experiment the job belongs to.
    game: an OpenSpiel game string, e.g. "kuhn_poker_ante(ante=2.0)".
    solver: a name from ``experiments.harness.solver_registry.SOLVERS``.
    seed: the job's own random seed (used by sampled solvers).
    iterations: number of solver iterations T (> 0).
    measure_at: iterations (1..T) at which the average policy is measured; T always is.
    keep_policy: keep the final average policy in the result.
    options: constructor options that replace the registry entry's, as the text of a JSON
      object (e.g. a ``leaf_solver`` description naming a learned value function's file;
      ``solver_registry.SolverSpec.build``); "" for none. ``options_json`` writes it.
  """

  experiment: str
  game: str
  solver: str
  seed: int
  iterations: int
  measure_at: Tuple[int, ...] = ()
  keep_policy: bool = False
  options: str = ""

  def __post_init__(self):
    if isinstance(self.iterations, bool) or not isinstance(self.iterations, int) or (
        self.iterations <= 0):
      raise ValueError(f"job iterations must be a positive integer, got {self.iterations!r}")
    object.__setattr__(self, "measure_at", tuple(int(t) for t in self.measure_at))
    if self.options and not isinstance(self.solver_options(), dict):
      raise ValueError(f"job options must be a JSON object, got {self.options!r}")

  def solver_options(self) -> Dict[str, Any]:
    """The option overrides as a dict (empty for none)."""
    return json.loads(self.options) if self.options else {}

  @property
  def key(self) -> str:
    """A file name stem unique to the job: readable fields (cut to ``_READABLE_CHARS``) plus a
    hash of all of them."""
    fields = dataclasses.asdict(self)
    if not self.options:  # Jobs without overrides keep the names they had before the field.
      del fields["options"]
    fields = json.dumps(fields, sort_keys=True)
    digest = hashlib.sha1(fields.encode("utf-8")).hexdigest()[:10]
    readable = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{self.game}-{self.solver}-s{self.seed}")
    return f"{readable[:_READABLE_CHARS]}-{self.iterations}-{digest}"

  def describe(self) -> str:
    """One line naming the job: solver, game, seed and iterations."""
    return f"{self.solver} on {self.game} (seed {self.seed}, {self.iterations} iterations)"


@dataclasses.dataclass(frozen=True)
class Failure:
  """A job that raised: its one-line error and the traceback."""

  message: str
  traceback: str


@dataclasses.dataclass(kw_only=True)
class SavedResult(abc.ABC):
  """What every saved result of a unit of work (a job, ``tasks.Task``) holds besides the unit
  and its value, and its file format: a JSON object with ``FORMAT`` and ``VERSION`` and the
  fields of the subclass, read back by ``from_json`` (``save``, ``load``).

  A subclass declares its unit and value fields (positional, before these keyword-only ones),
  ``FORMAT``, ``unit`` and ``_fields_from_json``.

  Attributes:
    computed_by: the code that computed it (``provenance.code_stamp()``).
    finished: when it finished (ISO 8601).
    wall_seconds: the unit's wall time.
  """

  FORMAT: ClassVar[str]
  VERSION: ClassVar[int]

  computed_by: Dict[str, Any]
  finished: str
  wall_seconds: float

  @property
  @abc.abstractmethod
  def unit(self):
    """The job or task the result is of (its ``key`` names the file)."""

  @classmethod
  @abc.abstractmethod
  def _fields_from_json(cls, data: Dict[str, Any]) -> Dict[str, Any]:
    """The subclass's own fields (unit and value) rebuilt from ``to_json``'s dict."""

  def to_json(self) -> Dict[str, Any]:
    return {"format": self.FORMAT, "version": self.VERSION, **dataclasses.asdict(self)}

  @classmethod
  def from_json(cls, data: Any):
    """Rebuilds a result from ``to_json``'s dict; ValueError (one line) for another format or
    version, or fields missing or malformed."""
    if not isinstance(data, dict) or data.get("format") != cls.FORMAT:
      raise ValueError(f"not a {cls.FORMAT} file")
    if data.get("version") != cls.VERSION:
      raise ValueError(f"{cls.FORMAT} version {data.get('version')} is not {cls.VERSION}")
    try:
      return cls(**cls._fields_from_json(data), computed_by=dict(data["computed_by"]),
                 finished=str(data["finished"]), wall_seconds=float(data["wall_seconds"]))
    except (KeyError, TypeError) as e:
      raise ValueError(f"malformed {cls.FORMAT} file: {e}") from None


@dataclasses.dataclass
class JobResult(SavedResult):
  """A finished job (``SavedResult``; its wall time: tree walk, iterations and measurements).

  Attributes:
    job: the job.
    solved: what the solver run measured (``solver_runs.Solved``).
  """

  FORMAT: ClassVar[str] = FORMAT
  VERSION: ClassVar[int] = VERSION

  job: Job
  solved: solver_runs.Solved

  @property
  def unit(self) -> Job:
    return self.job

  @classmethod
  def _fields_from_json(cls, data: Dict[str, Any]) -> Dict[str, Any]:
    job = Job(**data["job"])
    solved = solver_runs.Solved(**data["solved"])
    _check_solved(job, solved)
    return {"job": job, "solved": solved}

  @property
  def final(self) -> float:
    """The measure (exploitability or NashConv) of the final average policy."""
    return self.solved.curve[-1]

  @property
  def final_nash_conv(self) -> float:
    """NashConv of the final average policy (twice its exploitability in a two-player
    zero-sum game)."""
    return measures.to_nash_conv(self.solved.measure, self.final)

  @property
  def value(self) -> float:
    """Player 0's expected return when every player plays the final average policy."""
    return self.solved.returns[0]

  @property
  def values(self) -> List[float]:
    """Every player's expected return when every player plays the final average policy."""
    return list(self.solved.returns)



def _numbers(values: Any, what: str) -> None:
  """Raises ValueError unless ``values`` is a non-empty list of finite numbers."""
  if (not isinstance(values, list) or not values or not all(
      isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
      for v in values)):
    raise ValueError(f"malformed {FORMAT} file: {what} must be a non-empty list of finite "
                     "numbers")


def _check_solved(job: Job, solved: solver_runs.Solved) -> None:
  """The schema of a saved ``Solved`` beyond its field names: the measuring points increasing
  and ending at the job's T, one measure and one time per point, finite numbers (ValueError,
  one line, for a file to recompute)."""
  _numbers(solved.iterations, "iterations")
  _numbers(solved.curve, "curve")
  _numbers(solved.seconds, "seconds")
  _numbers(solved.returns, "returns")
  points = solved.iterations
  if points != sorted(set(points)) or points[-1] != job.iterations:
    raise ValueError(f"malformed {FORMAT} file: iterations must increase to {job.iterations}")
  if not len(solved.curve) == len(solved.seconds) == len(points):
    raise ValueError(f"malformed {FORMAT} file: curve and seconds need one entry per point")
  if not isinstance(solved.measure, str) or (
      solved.openspiel is not None and not isinstance(solved.openspiel, (int, float))):
    raise ValueError(f"malformed {FORMAT} file: measure or openspiel")


Outcome = Union[Tuple[solver_runs.Solved, float], Failure]


def failure_of(error: Exception) -> Failure:
  """The ``Failure`` of an exception being handled: its type and first message line, and the
  traceback."""
  lines = str(error).strip().splitlines()
  return Failure(f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": "),
                 traceback.format_exc())


def run_job(job: Job) -> Outcome:
  """Computes ``job`` (in any process): (what the solver run measured, wall seconds), or the
  ``Failure`` if it raised. Only KeyboardInterrupt and SystemExit propagate."""
  start = time.perf_counter()
  try:
    game = game_loader.load_game(job.game, two_player_zero_sum=False)
    solved = solver_runs.solve(game, job.solver, job.seed, job.iterations, job.measure_at,
                               job.keep_policy, job.solver_options())
  except Exception as e:  # noqa: BLE001  (recorded in the report; the sweep goes on)
    return failure_of(e)
  return solved, time.perf_counter() - start


def refusal(solver: str, game: str) -> Optional[str]:
  """Why ``solver`` cannot run on ``game`` (one line), or None if it can.

  Every registered solver runs on any sequential game the engine holds (n players, any utility
  type), except CFR-AVG and CFR-D with a depth limit: their leaf solvers and public tree are
  two-player zero-sum constructions (``algorithms.rebel.cfr_avg``), and they refuse other games.
  """
  spec = solver_registry.get_solver(solver)
  if spec.options.get("depth_limit") is None:
    return None
  loaded = game_loader.load_game(game, two_player_zero_sum=False)
  if game_loader.is_two_player_zero_sum(loaded):
    return None
  return (f"solver {solver} ({spec.label}) needs a two-player zero-sum game; {game} has "
          f"{loaded.num_players()} players")


def skip_reason(solver: str, game: str) -> Optional[str]:
  """Why a solver of an experiment's default list is left out on ``game`` (one line), or None:
  it refuses the game (``refusal``), or it is one of OpenSpiel's full-traversal solvers (Python
  or C++ CFR) on a game implemented in Python with more than two players, where it makes about
  20 iterations per second (``game_loader.is_python_game``); the same game in C++
  (``kuhn_poker(players=3)``) runs them."""
  refused = refusal(solver, game)
  if refused is not None:
    return refused
  loaded = game_loader.load_game(game, two_player_zero_sum=False)
  spec = solver_registry.get_solver(solver)
  if loaded.num_players() > 2 and game_loader.is_python_game(loaded) and not (spec.ours
                                                                         or spec.sampled):
    return f"{spec.label} is too slow on the Python game {game} (about 20 iterations/s)"
  return None


def runs_on(solver: str, game: str, default_solvers: bool) -> bool:
  """Whether an experiment's sweep runs ``solver`` on ``game``.

  With ``default_solvers`` (the solvers are the experiment's default list), a pair that
  ``skip_reason`` names is left out (False); else a solver the user named that refuses the game
  (``refusal``) is an error.

  Raises:
    ValueError: without ``default_solvers``, the refusal (one line).
  """
  reason = skip_reason(solver, game) if default_solvers else refusal(solver, game)
  if reason is not None and not default_solvers:
    raise ValueError(reason)
  return reason is None


def options_json(options: Mapping[str, Any]) -> str:
  """A ``Job.options`` text: the JSON object of ``options``, keys sorted (one text per value)."""
  return json.dumps(dict(options), sort_keys=True)


Batch = Tuple[Job, ...]


def batches(sweep: Sequence[Job]) -> List[Union[Job, Batch]]:
  """The jobs of a sweep grouped for ``run_batch``, in order of first appearance.

  Jobs that differ only in their game form one batch when their solver has a batched form
  (``SolverSpec.batch``), they replace none of its options (``Job.options``) and their games
  share a tree shape (``solver_runs.batch_key``); a group of one stays a single job.
  """
  groups: Dict[Any, List[Job]] = {}
  for job in sweep:
    key: Any = job
    if solver_registry.get_solver(job.solver).batch is not None and not job.options:
      shape = solver_runs.batch_key(game_loader.load_game(job.game, two_player_zero_sum=False))
      if shape is not None:
        key = (dataclasses.replace(job, game=""), shape)
    groups.setdefault(key, []).append(job)
  return [group[0] if len(group) == 1 else tuple(group) for group in groups.values()]


def run_batch(batch: Batch) -> List[Outcome]:
  """Computes a batch (``batches``) in one batched solver run (``solver_runs.solve_batch``,
  in any process): per job, what the run measured for its game and the batch's wall seconds
  shared equally; or, if it raised, the same ``Failure`` for every job."""
  start = time.perf_counter()
  first = batch[0]
  try:
    game_list = [game_loader.load_game(job.game, two_player_zero_sum=False) for job in batch]
    solved = solver_runs.solve_batch(game_list, first.solver, first.iterations,
                                     first.measure_at, first.keep_policy)
  except Exception as e:  # noqa: BLE001  (recorded in the report; the sweep goes on)
    return [failure_of(e)] * len(batch)
  seconds = (time.perf_counter() - start) / len(batch)
  return [(s, seconds) for s in solved]


def run_item(item: Union[Job, Batch]) -> Union[Outcome, List[Outcome]]:
  """``run_job`` of a job, ``run_batch`` of a batch (what executors run for a batched sweep)."""
  return run_batch(item) if isinstance(item, tuple) else run_job(item)


def result_path(folder: pathlib.Path, unit) -> pathlib.Path:
  """Where the result of ``unit`` (a job or a task) is saved in ``folder``."""
  return pathlib.Path(folder) / f"{unit.key}.json"


def save(folder: pathlib.Path, result: SavedResult) -> pathlib.Path:
  """Writes ``result`` (a ``JobResult`` or a ``tasks.TaskResult``) atomically to its path in
  ``folder`` and returns the path."""
  path = result_path(folder, result.unit)
  atomic_file.atomic_write_json(path, result.to_json())
  return path


def load(folder: pathlib.Path, unit, fingerprint: str,
         result_class: Type[SavedResult] = JobResult) -> Optional[SavedResult]:
  """The saved result of ``unit`` (a job, or a task with ``result_class`` its
  ``tasks.TaskResult``) computed by code with ``fingerprint``, or None (missing, unreadable, of
  another format, of another unit, or computed by other code)."""
  path = result_path(folder, unit)
  try:
    # O_NOFOLLOW: a symbolic link planted at the path is not read (OSError, recomputed).
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, encoding="utf-8") as file:
      result = result_class.from_json(json.loads(file.read()))
  except (OSError, ValueError, TypeError):  # Missing, or not a valid result: recompute, replace.
    return None
  if result.unit != unit or result.computed_by.get("fingerprint") != fingerprint:
    return None
  return result


def measuring_points(iterations: int, count: int, extra: Sequence[int] = ()) -> List[int]:
  """About ``count`` log-spaced iterations from 1 to ``iterations`` inclusive, plus ``extra``
  points up to ``iterations``, sorted and distinct."""
  marks = np.round(np.logspace(0, math.log10(iterations), count)).astype(int)
  return sorted({int(m) for m in marks} | {t for t in extra if 1 <= t <= iterations}
                | {iterations})
