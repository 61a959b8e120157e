"""Solvers from outside the project, named ``package.module:Name``, behind one interface.

``Name`` is a class or a factory: ``Name(game, **options)`` builds the solver for one game (the
options come from ``--solver-arg key=value`` or the API's ``options``). The built object is
matched against the interfaces below, in order, and named in the report:

* the project's: ``solve(n)`` runs n iterations, ``average_policy()``;
* pyspiel's C++ MCCFR (``pyspiel.ExternalSamplingMCCFRSolver``,
  ``pyspiel.OutcomeSamplingMCCFRSolver``): ``run_iteration()``, ``average_policy()``;
* pyspiel's C++ CFR (``pyspiel.CFRSolver``, ``pyspiel.CFRPlusSolver``, ``pyspiel.CFRBRSolver``):
  ``evaluate_and_update_policy()``, ``average_policy()`` (a ``pyspiel.TabularPolicy``);
* OpenSpiel's Python CFR (``cfr.CFRSolver``, ``cfr.CFRPlusSolver``, ``discounted_cfr``...):
  ``evaluate_and_update_policy()``, ``average_policy()``;
* OpenSpiel's Python MCCFR (``external_sampling_mccfr.ExternalSamplingSolver``,
  ``outcome_sampling_mccfr.OutcomeSamplingSolver``): ``iteration()``, ``average_policy()``.

The average policy may be an OpenSpiel ``TabularPolicy`` of the game, any object with
``action_probabilities(state)`` (an OpenSpiel ``Policy``, a ``pyspiel.TabularPolicy``), or a dict
{information-state string: probabilities (a list over the game's actions, or {action: p})}. It is
read into a ``TabularPolicy`` and must be a distribution over the legal actions at every
information state (``to_tabular``); anything else is a one-line ``PolicyError``.

A solver is sampled (its result depends on the draws) if its interface is MCCFR's or its factory
takes a ``seed`` keyword; it is then built with ``seed=`` and run with NumPy's and Python's global
generators seeded too (OpenSpiel's Python MCCFR draws from NumPy's), so each seed gives one
reproducible run. A sampled solver whose kind is not declared is checked with MCCFR's model
(``solver_kinds.detect``: the median run of several seeds). ``run`` asks a stop function between
iterations, by which a deadline ends a run.
"""

import contextlib
import dataclasses
import functools
import importlib
import inspect
import json
import random
import re
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Sequence, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

SEPARATOR = ":"
# ``solve(n)`` runs in this many parts, so that a deadline is checked between them.
STOP_CHUNKS = 100
# A probability vector is a distribution if its entries are >= -EPSILON and sum to 1 within it.
EPSILON = 1e-6


@dataclasses.dataclass(frozen=True)
class Interface:
  """A solver interface: its name in the report, the methods that identify it, and whether its
  iterations sample."""

  name: str
  step: str  # The method that runs iterations ("solve" takes n; the others run one).
  sampled: bool
  pyspiel_object: Optional[bool] = None  # True: only pyspiel's classes; False: only others.

  @property
  def methods(self) -> Tuple[str, str]:
    return (self.step, "average_policy")

  def matches(self, instance: Any) -> bool:
    native = type(instance).__module__ == "pyspiel"
    return (all(callable(getattr(instance, m, None)) for m in self.methods)
            and self.pyspiel_object in (None, native))

  def describe(self) -> str:
    call = f"{self.step}(n)" if self.step == "solve" else f"{self.step}()"
    return f"{self.name}: {call} + average_policy()"


INTERFACES = (
    Interface("the project's solvers", "solve", sampled=False),
    Interface("pyspiel's C++ MCCFR", "run_iteration", sampled=True, pyspiel_object=True),
    Interface("pyspiel's C++ CFR", "evaluate_and_update_policy", sampled=False,
              pyspiel_object=True),
    Interface("OpenSpiel's Python CFR", "evaluate_and_update_policy", sampled=False,
              pyspiel_object=False),
    Interface("OpenSpiel's Python MCCFR", "iteration", sampled=True),
)


class BuildError(ValueError):
  """A solver's constructor raised on a game."""


class PolicyError(ValueError):
  """A solver's average policy is not a policy of the game (wrong shape, not a distribution)."""


def is_external(name: str) -> bool:
  """Whether a ``--solver`` value names a solver outside the registry (``module:Name``)."""
  return SEPARATOR in name


def first_line(error: BaseException) -> str:
  lines = str(error).strip().splitlines()
  return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def import_module(name: str, option: str = "--import") -> Any:
  """Imports module ``name``; a one-line ValueError naming ``option`` if it does not import."""
  try:
    return importlib.import_module(name)
  except Exception as e:  # noqa: BLE001  (any error of the user's module is one line)
    raise ValueError(f"{option} {name}: the module does not import ({first_line(e)})") from None


def load_factory(spec: str) -> Callable[..., Any]:
  """The class or factory that ``package.module:Name`` names (``Name`` may be dotted,
  e.g. ``Outer.Inner``).

  Raises:
    ValueError: one line: not of that form, a module that does not import, a missing name, or
      one that cannot be called.
  """
  module_name, _, attribute = spec.partition(SEPARATOR)
  if not module_name or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", attribute):
    raise ValueError(f"--solver {spec!r}: expected a registry name or package.module:Name")
  found = import_module(module_name, f"--solver {spec}:")
  for part in attribute.split("."):
    if not hasattr(found, part):
      raise ValueError(f"--solver {spec}: module {module_name} has no attribute {attribute!r}")
    found = getattr(found, part)
  if not callable(found):
    raise ValueError(f"--solver {spec}: {attribute} is a {type(found).__name__}, not a class or "
                     "a factory called with the game")
  return found


def parse_options(texts: Sequence[str]) -> Dict[str, Any]:
  """``--solver-arg key=value`` texts as keyword options: the value as JSON where it parses
  (numbers, true, false, null, lists, quoted strings), else as the text itself.

  Raises:
    ValueError: one line, for a text without ``=`` or with an empty or invalid key.
  """
  options = {}
  for text in texts:
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
      raise ValueError(f"--solver-arg expects key=value with a Python identifier as the key, "
                       f"got {text!r}")
    try:
      options[key] = json.loads(value)
    except ValueError:
      options[key] = value
  return options


def takes_seed(factory: Callable[..., Any]) -> bool:
  """Whether ``factory`` accepts a ``seed`` keyword: from its signature, or for pyspiel's classes
  (no Python signature) from the constructor's docstring, e.g. ``__init__(self, game, seed: int
  = 0)``."""
  try:
    parameters = inspect.signature(factory).parameters
  except (TypeError, ValueError):  # pybind11 classes: read the documented signature.
    init = getattr(factory, "__init__", None)
    return re.search(r"\bseed\s*:", getattr(init, "__doc__", None) or "") is not None
  return "seed" in parameters  # Not **kwargs: a deterministic solver may take those too.


def interface_of(instance: Any) -> Optional[Interface]:
  """The first of ``INTERFACES`` that ``instance`` offers, or None."""
  return next((i for i in INTERFACES if i.matches(instance)), None)


def no_interface_message(spec: str, instance: Any) -> str:
  """The one-line error of an object that offers none of the interfaces."""
  looked_for = "; ".join(i.describe() for i in INTERFACES)
  return (f"--solver {spec}: {type(instance).__name__} has none of the supported interfaces "
          f"(looked for {looked_for})")


@contextlib.contextmanager
def seeded_globals(seed: Optional[int]) -> Iterator[None]:
  """NumPy's and Python's global generators seeded with ``seed`` inside the block (nothing done
  for None), their states restored after it."""
  if seed is None:
    yield
    return
  saved_numpy, saved_python = np.random.get_state(), random.getstate()
  np.random.seed(seed)
  random.seed(seed)
  try:
    yield
  finally:
    np.random.set_state(saved_numpy)
    random.setstate(saved_python)


def factory_name(factory: Callable[..., Any]) -> str:
  """How a report names a class or factory: ``module:QualifiedName``; a ``functools.partial`` by
  the callable it wraps and its bound arguments, e.g. ``functools.partial(mod:CFR,
  alternating_updates=False)``; a callable object by its class."""
  if isinstance(factory, functools.partial):
    bound = [repr(a) for a in factory.args] + [f"{k}={v!r}" for k, v in factory.keywords.items()]
    return f"functools.partial({', '.join([factory_name(factory.func), *bound])})"
  named = factory if hasattr(factory, "__qualname__") else type(factory)
  return f"{named.__module__}{SEPARATOR}{named.__qualname__}"


@dataclasses.dataclass
class ExternalSolver:
  """A solver outside the registry: a factory and its options.

  Attributes:
    name: how the report names it (``package.module:Name``, or the factory's qualified name).
    factory: ``factory(game, **options)`` builds the solver for one game.
    options: constructor keyword options.
    sampled: whether its runs depend on the draws; None: decided by its interface or a ``seed``
      keyword of the factory (``is_sampled``).
  """

  name: str
  factory: Callable[..., Any]
  options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  sampled: Optional[bool] = None

  @classmethod
  def from_spec(cls, spec: str, options: Optional[Mapping[str, Any]] = None
                ) -> "ExternalSolver":
    """The solver that ``package.module:Name`` names (``load_factory``)."""
    return cls(spec, load_factory(spec), dict(options or {}))

  @classmethod
  def from_factory(cls, factory: Callable[..., Any],
                   options: Optional[Mapping[str, Any]] = None,
                   sampled: Optional[bool] = None) -> "ExternalSolver":
    """The solver of a class or factory object, named by its module and qualified name
    (``factory_name``)."""
    return cls(factory_name(factory), factory, dict(options or {}), sampled)

  def is_sampled(self, interface: Interface) -> bool:
    """The ``sampled`` attribute if set, else whether ``interface`` samples or the factory takes
    a ``seed``."""
    if self.sampled is not None:
      return self.sampled
    return interface.sampled or takes_seed(self.factory)

  def build(self, game: pyspiel.Game, game_string: str,
            seed: Optional[int]) -> Tuple[Any, Interface]:
    """The solver for ``game`` and its interface; with ``seed``, passed as ``seed=`` where the
    factory takes one (and not already among the options).

    Raises:
      BuildError: the factory raised (its message, one line).
      ValueError: the object has none of the interfaces (one line).
    """
    options = dict(self.options)
    if seed is not None and "seed" not in options and takes_seed(self.factory):
      options["seed"] = seed
    try:
      instance = self.factory(game, **options)
    except Exception as e:  # noqa: BLE001  (the user's constructor: its message, one line)
      raise BuildError(f"--solver {self.name}: building it on {game_string} raised "
                       f"{first_line(e)}") from None
    interface = interface_of(instance)
    if interface is None:
      raise ValueError(no_interface_message(self.name, instance))
    return instance, interface


def run(instance: Any, interface: Interface, iterations: int,
        stop: Callable[[], bool] = lambda: False) -> int:
  """Runs ``iterations`` iterations through ``interface``, asking ``stop()`` between iterations
  (between ``STOP_CHUNKS`` equal parts of ``solve(n)``) and stopping once it says so.

  Returns:
    The iterations run: ``iterations``, or fewer where ``stop()`` ended the run.
  """
  step = getattr(instance, interface.step)
  done = 0
  while done < iterations and not stop():
    count = (max(1, iterations // STOP_CHUNKS) if interface.step == "solve" else 1)
    count = min(count, iterations - done)
    if interface.step == "solve":
      step(count)
    else:
      step()
    done += count
  return done


def to_tabular(game: pyspiel.Game, average: Any, where: str) -> policy_lib.TabularPolicy:
  """A solver's average policy read into a ``TabularPolicy`` of ``game`` and checked.

  Args:
    game: the game.
    average: what ``average_policy()`` returned (see the module docstring).
    where: how the error names the solver and game, e.g. "mod:Name on kuhn_poker".

  Raises:
    PolicyError: one line: a table of another shape, an information state missing, a vector of
      the wrong length, or probabilities that are not a distribution over the legal actions.
  """
  table = policy_lib.TabularPolicy(game)
  probabilities = table.action_probability_array
  if isinstance(average, policy_lib.TabularPolicy):
    if average.action_probability_array.shape != probabilities.shape or (
        average.state_lookup != table.state_lookup):
      raise PolicyError(f"{where}: the average policy's table has shape "
                        f"{average.action_probability_array.shape}; the game's is "
                        f"{probabilities.shape} (a TabularPolicy of another game?)")
    probabilities[:] = average.action_probability_array
  elif isinstance(average, Mapping) or hasattr(average, "action_probabilities"):
    for state_key, row in table.state_lookup.items():
      entry = _entry(average, state_key, table.states[row], where)
      probabilities[row] = _vector(entry, game.num_distinct_actions(), state_key, where)
  else:
    raise PolicyError(f"{where}: average_policy() returned a {type(average).__name__}; expected "
                      "an OpenSpiel Policy, a pyspiel TabularPolicy or a dict {information "
                      "state: probabilities}")
  _check_distributions(table, where)
  return table


def _entry(average: Any, state_key: str, state: pyspiel.State, where: str) -> Any:
  """The policy's entry at one information state (a dict lookup or ``action_probabilities``)."""
  if isinstance(average, Mapping):
    if state_key not in average:
      raise PolicyError(f"{where}: the average policy has no entry for information state "
                        f"{state_key!r} ({len(average)} entries)")
    return average[state_key]
  return average.action_probabilities(state)


def _vector(entry: Any, num_actions: int, state_key: str, where: str) -> np.ndarray:
  """One entry as a vector over the game's actions: {action: p} or a sequence of length
  ``num_actions``."""
  vector = np.zeros(num_actions)
  if isinstance(entry, Mapping):
    for action, p in entry.items():
      if not 0 <= int(action) < num_actions:
        raise PolicyError(f"{where}: the average policy at information state {state_key!r} "
                          f"names action {action}; the game has actions 0..{num_actions - 1}")
      vector[int(action)] = p
    return vector
  values = np.asarray(entry, dtype=float).reshape(-1)
  if values.shape != (num_actions,):
    raise PolicyError(f"{where}: the average policy at information state {state_key!r} has "
                      f"{values.size} probabilities; the game has {num_actions} actions")
  return values


def _check_distributions(table: policy_lib.TabularPolicy, where: str) -> None:
  """PolicyError unless every row is a distribution over the legal actions."""
  probabilities, legal = table.action_probability_array, table.legal_actions_mask
  for state_key, row in table.state_lookup.items():
    p, mask = probabilities[row], legal[row].astype(bool)
    shown = "[" + ", ".join(f"{x:.4g}" for x in p) + "]"
    if not np.all(np.isfinite(p)) or np.any(p < -EPSILON):
      problem = "has a negative or non-finite probability"
    elif np.any(np.abs(p[~mask]) > EPSILON):
      problem = "puts probability on an illegal action"
    elif abs(p[mask].sum() - 1.0) > EPSILON:
      problem = f"sums to {p[mask].sum():.6g}, not 1"
    else:
      continue
    raise PolicyError(f"{where}: the average policy is not a distribution at information state "
                      f"{state_key!r}: {shown} {problem}")
