"""JSON descriptions of the project's leaf solvers, for checkpoints and the solver registry.

``spec(solver)`` describes a leaf solver by its class name and parameters, ``from_spec`` rebuilds
it; ``CFRAvgSolver.save`` records its leaf solver this way and the experiments' solver registry
takes a ``leaf_solver`` option in this form. The descriptions:

* ``{"name": "SequenceFormLPSolver"}`` (the exact LP; its caches are rebuilt on demand);
* ``{"name": "CFRLeafSolver", "iterations": N, "rule": {UpdateRule fields}}``;
* ``{"name": "HedgeLeafSolver", "iterations": N, "eta": eta}`` (``leaves.hedge``);
* ``{"name": "ValueFunctionLeafSolver", "value_function": V, "continuation": S or None,
  "one_player_exact": bool}`` (``leaves.leaf_values``; a description without
  ``one_player_exact``, written before the option, is a run with the values everywhere: false)
  with S a leaf-solver description and V a value function's:

  - ``{"name": "PBSValueFunction", "path": FILE, "sha256": DIGEST}``: a saved model
    (``learning.value_network``), read from FILE, whose weights must have the digest DIGEST (so a
    description names one model, and a run rebuilt from it is the run recorded);
  - ``{"name": "ExactValueFunction", "solver": S}``: a leaf solver's values;
  - ``{"name": "PerturbedValueFunction", "value_function": V, "delta": d, "seed": k}``, with
    ``"public_states": [s, ...]`` when only those leaves are perturbed (every leaf without it).

Within one description, equal sub-descriptions build one object: e.g. the exact LP that supplies
a perfect value function's values and the continuation is solved once per leaf and belief.

The learned value function lives a floor above the leaves (``algorithms.rebel.learning``, which
builds on them), so this module does not import it: it describes and rebuilds itself through
``register_value_function``, called when ``learning.value_network`` is imported (as
``algorithms`` does); a description of it read before that import is refused with a one-line
error that names the module to import.
"""

import dataclasses
import json
from typing import Any, Callable, Dict, Tuple

from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.rebel.leaves.hedge import HedgeLeafSolver
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import PerturbedValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import CFRLeafSolver
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver

LEAF_SOLVERS = ("SequenceFormLPSolver", "CFRLeafSolver", "HedgeLeafSolver",
                "ValueFunctionLeafSolver")
# The value functions of this floor; those of higher floors register (``register_value_function``).
OWN_VALUE_FUNCTIONS = ("ExactValueFunction", "PerturbedValueFunction")
# Registered value functions by name, and the module that registers each one known to exist.
_REGISTERED: Dict[str, Tuple[type, Callable[[Any], Dict[str, Any]],
                             Callable[[Dict[str, Any]], Any]]] = {}
REGISTERED_BY = {"PBSValueFunction": "algorithms.rebel.learning.value_network"}


def register_value_function(kind: type, describe: Callable[[Any], Dict[str, Any]],
                            build: Callable[[Dict[str, Any]], Any]) -> None:
  """Makes a value function class of a higher floor describable: ``describe(v)`` gives its
  description's fields besides "name", ``build(description)`` rebuilds it (ValueError, one line,
  for a bad one)."""
  _REGISTERED[kind.__name__] = (kind, describe, build)


def value_function_names() -> Tuple[str, ...]:
  """The value functions a description may name now (this floor's and those registered)."""
  return tuple(sorted(_REGISTERED)) + OWN_VALUE_FUNCTIONS


def spec(solver: LeafSolver) -> Dict[str, Any]:
  """The JSON description of one of the project's leaf solvers (module docstring).

  Raises:
    ValueError: for any other callable (subclasses included), or a value function that cannot
      be described (e.g. a model that was never saved), which cannot be recorded.
  """
  kind = type(solver)
  if kind is SequenceFormLPSolver:
    return {"name": kind.__name__, **_ties(solver)}
  if kind is CFRLeafSolver:
    return {"name": kind.__name__, "iterations": solver.iterations,
            "rule": dataclasses.asdict(solver.rule)}
  if kind is HedgeLeafSolver:
    return {"name": kind.__name__, "iterations": solver.iterations, "eta": solver.eta}
  if kind is ValueFunctionLeafSolver:
    return {"name": kind.__name__, "value_function": value_function_spec(solver.value_function),
            "continuation": None if solver.continuation is None else spec(solver.continuation),
            "one_player_exact": solver.one_player_exact, **_ties(solver)}
  raise ValueError(f"leaf solver {kind.__name__} is not one of the project's "
                   f"({', '.join(LEAF_SOLVERS)}) and cannot be recorded")


def _ties(solver) -> Dict[str, Any]:
  """``split_ties`` in a description when set (descriptions without it stay as they were)."""
  return {"split_ties": True} if solver.split_ties else {}


def value_function_spec(value_function) -> Dict[str, Any]:
  """The JSON description of a value function (module docstring).

  Raises:
    ValueError: for another kind of value function, or a model without a file.
  """
  kind = type(value_function)
  registered = _REGISTERED.get(kind.__name__)
  if registered is not None and registered[0] is kind:
    return {"name": kind.__name__, **registered[1](value_function)}
  if kind is ExactValueFunction:
    return {"name": kind.__name__, "solver": spec(value_function.solver)}
  if kind is PerturbedValueFunction:
    return {"name": kind.__name__,
            "value_function": value_function_spec(value_function.value_function),
            "delta": value_function.delta, "seed": value_function.seed,
            **({} if value_function.public_states is None
               else {"public_states": list(value_function.public_states)})}
  raise ValueError(f"value function {kind.__name__} is not one of the project's "
                   f"({', '.join(value_function_names())}) and cannot be recorded")


def from_spec(description: Dict[str, Any]) -> LeafSolver:
  """Rebuilds a leaf solver from ``spec``'s description.

  Raises:
    ValueError: one line, for an unknown name, bad parameters, or a model file that is missing,
      unreadable or not the recorded one.
  """
  return _Builder().leaf_solver(description)


class _Builder:
  """Builds one description; equal sub-descriptions give one object."""

  def __init__(self):
    self._built: Dict[str, Any] = {}

  def _memo(self, description: Dict[str, Any], build) -> Any:
    key = json.dumps(description, sort_keys=True)
    if key not in self._built:
      self._built[key] = build()
    return self._built[key]

  def leaf_solver(self, description: Dict[str, Any]) -> LeafSolver:
    name = description.get("name") if isinstance(description, dict) else None
    if name not in LEAF_SOLVERS:
      raise ValueError(f"unknown leaf solver {description!r} (known: {', '.join(LEAF_SOLVERS)})")
    try:
      return self._memo(description, lambda: self._leaf_solver(name, description))
    except (KeyError, TypeError) as e:
      raise ValueError(f"bad {name} description {description!r}: {e!r}") from None

  def _leaf_solver(self, name: str, d: Dict[str, Any]) -> LeafSolver:
    if name == "SequenceFormLPSolver":
      return SequenceFormLPSolver(bool(d.get("split_ties", False)))
    if name == "CFRLeafSolver":
      return CFRLeafSolver(d["iterations"], UpdateRule(**d["rule"]))
    if name == "HedgeLeafSolver":
      return HedgeLeafSolver(d["iterations"], d["eta"])
    continuation = d["continuation"]
    return ValueFunctionLeafSolver(self.value_function(d["value_function"]),
                                   None if continuation is None
                                   else self.leaf_solver(continuation),
                                   bool(d.get("one_player_exact", False)),
                                   bool(d.get("split_ties", False)))

  def value_function(self, description: Dict[str, Any]):
    name = description.get("name") if isinstance(description, dict) else None
    if name in REGISTERED_BY and name not in _REGISTERED:
      raise ValueError(f"value function {name} is described by {REGISTERED_BY[name]}: import it "
                       "(or algorithms) before reading this description")
    if name not in value_function_names():
      raise ValueError(f"unknown value function {description!r} "
                       f"(known: {', '.join(value_function_names())})")
    try:
      return self._memo(description, lambda: self._value_function(name, description))
    except (KeyError, TypeError) as e:
      raise ValueError(f"bad {name} description {description!r}: {e!r}") from None

  def _value_function(self, name: str, d: Dict[str, Any]):
    if name in _REGISTERED:
      return _REGISTERED[name][2](d)
    if name == "ExactValueFunction":
      return ExactValueFunction(self.leaf_solver(d["solver"]))
    return PerturbedValueFunction(self.value_function(d["value_function"]), d["delta"],
                                  d["seed"], d.get("public_states"))
