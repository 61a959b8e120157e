"""Tasks: units of experiment work that are not solver runs, saved and reused like jobs.

A ``Task`` names a module-level function (``"package.module:function"``) and its keyword
arguments as the text of a JSON object; ``run_task`` calls it in any process (it is what the
executors run, as ``jobs.run_job`` is for a solver run) and never raises: an exception becomes a
``jobs.Failure``. The function returns a pandas DataFrame, or a JSON-able dict whose values may
be DataFrames too; ``run_task`` encodes it as JSON text at once (``encode``), so that a result
computed now and one read back from its file are the same value, key order included
(``TaskResult.value`` decodes it). ``pack_files`` lets a function return files it wrote (models,
figures) in its result.

``Context.run_tasks`` saves each result as ``<folder>/<task.key>.json`` (``jobs.save``), stamped
with the code that computed it (``provenance.code_stamp``), and reuses it only for the same task
(function and arguments) computed by the same code (``jobs.load``); any other file under that
name is ignored and replaced.
"""

import base64
import dataclasses
import hashlib
import importlib
import json
import pathlib
import re
import time
from typing import Any, ClassVar, Dict, Mapping

import pandas as pd

from experiments.harness import jobs as jobs_lib
from spiel_games import atomic_file

FORMAT = "kuhn-cfr-task-result"
VERSION = 1
_FRAME = "__dataframe__"  # The key that marks an encoded DataFrame.


@dataclasses.dataclass(frozen=True)
class Task:
  """One unit of an experiment's work: ``function(**arguments)``.

  Attributes:
    experiment: name of the experiment the task belongs to.
    function: "package.module:name" of a module-level function.
    arguments: its keyword arguments, the text of a JSON object (``make`` writes it).
    label: a short readable name (file names, failures); not part of the identity.
    estimate: the estimated wall time in seconds (``Context.sweep_cost``); not part of the
      identity.
  """

  experiment: str
  function: str
  arguments: str = "{}"
  label: str = dataclasses.field(default="", compare=False)
  estimate: float = dataclasses.field(default=0.0, compare=False)

  def __post_init__(self):
    if not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", self.function):
      raise ValueError(f"task function must be 'package.module:name', got {self.function!r}")
    if not isinstance(json.loads(self.arguments), dict):
      raise ValueError(f"task arguments must be a JSON object, got {self.arguments!r}")

  @classmethod
  def make(cls, experiment: str, function, label: str = "", estimate: float = 0.0,
           **arguments) -> "Task":
    """The task of calling ``function`` (a module-level function) with ``arguments`` (JSON-able;
    their text has sorted keys, one text per value)."""
    return cls(experiment, f"{function.__module__}:{function.__name__}",
               json.dumps(arguments, sort_keys=True), label, float(estimate))

  @property
  def key(self) -> str:
    """A file name stem unique to the task: its label and a hash of function and arguments."""
    identity = json.dumps([self.experiment, self.function, self.arguments])
    digest = hashlib.sha1(identity.encode("utf-8")).hexdigest()[:12]
    readable = re.sub(r"[^A-Za-z0-9_.=-]+", "_", self.label or self.function.rpartition(":")[2])
    return f"task-{readable[:80]}-{digest}"

  def describe(self) -> str:
    """One line naming the task (its label, else its function)."""
    return f"task {self.label or self.function}"


@dataclasses.dataclass
class TaskResult(jobs_lib.SavedResult):
  """A finished task (``jobs.SavedResult``); ``encoded`` is ``encode``'s JSON text."""

  FORMAT: ClassVar[str] = FORMAT
  VERSION: ClassVar[int] = VERSION

  task: Task
  encoded: str

  @property
  def unit(self) -> Task:
    return self.task

  @property
  def value(self) -> Any:
    """What the function returned (its DataFrames rebuilt)."""
    return decode(self.encoded)

  @classmethod
  def _fields_from_json(cls, data: Dict[str, Any]) -> Dict[str, Any]:
    return {"task": Task(**data["task"]), "encoded": str(data["encoded"])}


def _plain(value: Any) -> Any:
  """``json.dumps``'s fallback: numpy scalars and arrays as Python numbers and lists."""
  if hasattr(value, "tolist"):
    return value.tolist()
  raise TypeError(f"a task result must be JSON-able; got {type(value).__name__}")


def encode(value: Any) -> str:
  """``value`` (a DataFrame, or a dict of JSON-able values and DataFrames, at any depth) as JSON
  text: a DataFrame becomes ``{_FRAME: {"columns", "data"}}`` (its rows as lists); numpy
  numbers become JSON numbers; dicts keep their order. Raises TypeError for anything else that
  JSON cannot hold."""
  def frames(item):
    if isinstance(item, pd.DataFrame):
      return {_FRAME: {"columns": list(item.columns),
                       "data": item.to_dict(orient="split")["data"]}}
    if isinstance(item, Mapping):
      return {str(k): frames(v) for k, v in item.items()}
    if isinstance(item, (list, tuple)):
      return [frames(v) for v in item]
    return item
  if not isinstance(value, (pd.DataFrame, Mapping)):
    raise TypeError(f"a task must return a DataFrame or a dict, got {type(value).__name__}")
  return json.dumps(frames(value), default=_plain)


def decode(text: str) -> Any:
  """The value ``encode`` encoded, its DataFrames rebuilt (columns in order, dtypes inferred from
  the rows as ``pandas.DataFrame`` infers them from records)."""
  def frames(data):
    if isinstance(data, dict):
      if set(data) == {_FRAME}:
        return pd.DataFrame(data[_FRAME]["data"], columns=data[_FRAME]["columns"])
      return {k: frames(v) for k, v in data.items()}
    if isinstance(data, list):
      return [frames(v) for v in data]
    return data
  return frames(json.loads(text))


def run_task(task: Task) -> jobs_lib.Outcome:
  """Computes ``task`` (in any process): (its encoded result, wall seconds), or the
  ``jobs.Failure`` if it raised. Only KeyboardInterrupt and SystemExit propagate."""
  start = time.perf_counter()
  try:
    module, _, name = task.function.partition(":")
    function = getattr(importlib.import_module(module), name)
    encoded = encode(function(**json.loads(task.arguments)))
  except Exception as e:  # noqa: BLE001  (recorded in the report; the other tasks go on)
    return jobs_lib.failure_of(e)
  return encoded, time.perf_counter() - start


def pack_files(folder: pathlib.Path) -> Dict[str, str]:
  """Every file directly in ``folder``, name -> content (base64), for a task's result."""
  return {path.name: base64.b64encode(path.read_bytes()).decode("ascii")
          for path in sorted(pathlib.Path(folder).iterdir()) if path.is_file()}


def unpack_files(files: Mapping[str, str], folder: pathlib.Path) -> None:
  """Writes ``pack_files``'s files into ``folder`` (created if missing), each atomically.

  Raises:
    ValueError: (before writing anything) for a name that is not a plain file name (empty,
      ``.`` or ``..``, with a path separator, absolute) and could write outside ``folder``, or
      for a ``folder`` that is a symbolic link.
  """
  folder = pathlib.Path(folder)
  for name in files:
    if (not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\\" in name
        or "\0" in name or pathlib.PurePath(name).is_absolute()):
      raise ValueError(f"a packed file name must be a plain file name, got {name!r}")
  if folder.is_symlink():
    raise ValueError(f"{folder} is a symbolic link; files are not unpacked through links")
  folder.mkdir(parents=True, exist_ok=True)
  for name, content in files.items():
    data = base64.b64decode(content)
    atomic_file.atomic_write(folder / name, lambda tmp, data=data: tmp.write_bytes(data))
