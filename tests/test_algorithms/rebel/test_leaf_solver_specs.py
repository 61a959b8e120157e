"""Tests of the leaf solvers' JSON descriptions (algorithms/rebel/leaves/specs.py).

References: the solvers built directly (a rebuilt solver must give the same solutions and a
CFR-AVG run resumed from a checkpoint the same state bit for bit as an uninterrupted run).
"""

import json
import subprocess
import sys

import numpy as np
import pyspiel
import pytest

from algorithms import CFRAvgSolver
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.leaves import specs
from algorithms.rebel.leaves.hedge import HedgeLeafSolver
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import PerturbedValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import CFRLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver


def _random_model(path=None) -> PBSValueFunction:
  _, domain = cut_of(pyspiel.load_game("kuhn_poker"), 1)
  rng = np.random.default_rng(0)
  shapes = {"w0": (8, domain.input_size), "b0": (8,), "g0": (8,), "n0": (8,),
            "w_out": (domain.num_deals, 8), "b_out": (domain.num_deals,)}
  model = PBSValueFunction(domain, (8,), {k: rng.normal(size=s) for k, s in shapes.items()})
  if path is not None:
    model.save(str(path))
  return model


def _solvers(tmp_path):
  lp = SequenceFormLPSolver()
  return [lp, CFRLeafSolver(7, UpdateRule(averaging_gamma=1.0)), HedgeLeafSolver(5, 3.0),
          ValueFunctionLeafSolver(_random_model(tmp_path / "m.npz"), lp),
          ValueFunctionLeafSolver(ExactValueFunction(lp), None),
          ValueFunctionLeafSolver(PerturbedValueFunction(ExactValueFunction(lp), 0.1, seed=2),
                                  CFRLeafSolver(3)),
          ValueFunctionLeafSolver(PerturbedValueFunction(ExactValueFunction(lp), 0.1, seed=2,
                                                         public_states=["b"]), lp),
          SequenceFormLPSolver(split_ties=True),
          ValueFunctionLeafSolver(ExactValueFunction(lp), lp, split_ties=True)]


def test_every_solver_round_trips_through_its_description(tmp_path):
  # JSON and back: the same description, and the same solutions at a belief of each leaf.
  tree, _ = cut_of(pyspiel.load_game("kuhn_poker"), 1)
  belief = np.random.default_rng(1).dirichlet(np.ones(6))
  for solver in _solvers(tmp_path):
    description = specs.spec(solver)
    rebuilt = specs.from_spec(json.loads(json.dumps(description)))
    assert type(rebuilt) is type(solver)
    assert specs.spec(rebuilt) == description
    for leaf in tree.leaves:
      ours, theirs = rebuilt(leaf, belief), solver(leaf, belief)
      np.testing.assert_array_equal(ours.root_values, theirs.root_values)
      np.testing.assert_array_equal(ours.policy, theirs.policy)
  assert specs.from_spec(specs.spec(CFRLeafSolver(7))).rule == UpdateRule()


def test_equal_sub_descriptions_build_one_solver():
  # The perfect value function and its continuation share one LP, which solves each (leaf,
  # belief) once: the second call returns the first call's solution object.
  lp = {"name": "SequenceFormLPSolver"}
  solver = specs.from_spec({
      "name": "ValueFunctionLeafSolver", "continuation": lp,
      "value_function": {"name": "ExactValueFunction", "solver": lp}})
  assert solver.value_function.solver is solver.continuation
  tree, _ = cut_of(pyspiel.load_game("kuhn_poker"), 1)
  leaf, belief = tree.leaves[0], np.full(6, 1 / 6)
  assert solver.continuation(leaf, belief) is solver.continuation(leaf, belief.copy())


def test_cfr_avg_with_learned_leaves_resumes_exactly(tmp_path):
  # A learned value function is recorded by its file and weights' digest: a run stopped after 6
  # iterations, saved and loaded goes on exactly as an uninterrupted 10-iteration run.
  game = pyspiel.load_game("kuhn_poker")
  model = _random_model(tmp_path / "v.npz")

  def make():
    return CFRAvgSolver(game, depth_limit=1, variant="modified",
                        leaf_solver=ValueFunctionLeafSolver(model, SequenceFormLPSolver()))

  straight = make().solve(10)
  path = str(tmp_path / "run.npz")
  make().solve(6).save(path)
  resumed = CFRAvgSolver.load(path).solve(4)
  assert resumed.options() == straight.options()
  for name in ("regrets", "cumulative", "sigma"):
    np.testing.assert_array_equal(getattr(resumed.engine, name), getattr(straight.engine, name))


def test_bad_descriptions_give_one_line_errors(tmp_path):
  model = _random_model(tmp_path / "v.npz")
  description = specs.spec(ValueFunctionLeafSolver(model))
  other = _random_model()
  other.params["b_out"] = other.params["b_out"] + 1
  other.save(str(tmp_path / "v.npz"))  # The recorded file replaced by other weights.
  cases = [
      ({"name": "NeuralLeafSolver"}, "unknown leaf solver"),
      ({"name": "CFRLeafSolver", "iterations": 3}, "bad CFRLeafSolver description"),
      ({"name": "HedgeLeafSolver", "iterations": 3, "eta": -1.0}, "eta must be > 0"),
      ({"name": "ValueFunctionLeafSolver", "continuation": None,
        "value_function": {"name": "Oracle"}}, "unknown value function"),
      (description, "the model's weights have digest .* not the recorded"),
      (dict(description, value_function=dict(description["value_function"],
                                             path=str(tmp_path / "missing.npz"))),
       "no such checkpoint"),
  ]
  for bad, message in cases:
    with pytest.raises(ValueError, match=message) as info:
      specs.from_spec(bad)
    assert "\n" not in str(info.value)
  with pytest.raises(ValueError, match="not one of the project's"):
    specs.spec(lambda leaf, belief: None)
  with pytest.raises(ValueError, match="recorded by its file: save it first"):
    specs.spec(ValueFunctionLeafSolver(_random_model()))


def test_a_learned_description_before_its_module_is_imported_is_refused_in_one_line():
  # leaves.specs does not import the learning floor above it; the learned value function
  # registers itself when learning.value_network is imported. A fresh process that has not
  # imported it gets a one-line error naming the module.
  code = ("from algorithms.rebel.leaves import specs\n"
          "try:\n"
          "  specs.from_spec({'name': 'ValueFunctionLeafSolver', 'continuation': None,\n"
          "                   'value_function': {'name': 'PBSValueFunction', 'path': 'x.npz',\n"
          "                                      'sha256': '0'}})\n"
          "except ValueError as e:\n"
          "  print(e)\n")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.strip().endswith("before reading this description")
  assert "algorithms.rebel.learning.value_network" in out.stdout
  assert out.stdout.count("\n") == 1


def test_one_player_exact_is_recorded_and_old_descriptions_ask_the_values_everywhere():
  # A description written before the option (no "one_player_exact") recorded a run whose value
  # function answered every leaf: it rebuilds as that run; new descriptions record the option.
  lp = {"name": "SequenceFormLPSolver"}
  old = {"name": "ValueFunctionLeafSolver", "continuation": None,
         "value_function": {"name": "ExactValueFunction", "solver": lp}}
  assert specs.from_spec(old).one_player_exact is False
  for flag in (True, False):
    solver = ValueFunctionLeafSolver(ExactValueFunction(SequenceFormLPSolver()),
                                     one_player_exact=flag)
    assert specs.spec(solver)["one_player_exact"] is flag
    assert specs.from_spec(specs.spec(solver)).one_player_exact is flag
