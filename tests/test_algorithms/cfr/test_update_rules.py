"""The named rules' classes, the engine choice and the evaluation entry point.

References: OpenSpiel's ``cfr.CFRPlusSolver`` (the class a rule class stands in for),
``exploitability.exploitability`` / ``exploitability.nash_conv`` (the measures the entry point
computes), and the project's hand-written classes before the rule table (same options, same
arrays bit for bit: a class made from a rule runs the ``UpdateRule`` of its options).
"""

import dataclasses

import numpy as np
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.cfr import batched_solver
from algorithms.cfr import engine_choice
from algorithms.cfr import evaluation
from algorithms.cfr import solvers
from algorithms.cfr import update_rules
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.update_rules import NamedRule
from algorithms.cfr.update_rules import UpdateRule
from algorithms.tree.tree_layout import TreeArrays

NAMES = [named.name for named in update_rules.RULES]


@pytest.mark.parametrize("name", NAMES)
def test_every_rule_has_both_classes_exported(name):
  single = getattr(algorithms, f"{name}Solver")
  batched = getattr(algorithms, f"Batched{name}Solver")
  assert single is solvers.SOLVERS[f"{name}Solver"]
  assert batched is batched_solver.BATCHED_SOLVERS[f"Batched{name}Solver"]
  assert single.__module__ == "algorithms.cfr.solvers" and issubclass(single, cfr._CFRSolver)  # pylint: disable=protected-access
  assert f"{name}Solver" in algorithms.__all__ and f"Batched{name}Solver" in algorithms.__all__


def test_options_are_converted_recorded_and_refused_when_unknown():
  game = pyspiel.load_game("kuhn_poker")
  solver = algorithms.DCFRSolver(game, alpha=2, gamma=3)
  assert solver.options() == {"alpha": 2.0, "beta": 0.0, "gamma": 3.0}
  assert isinstance(solver.alpha, float) and solver.rule == UpdateRule.dcfr(2.0, 0.0, 3.0)
  assert algorithms.LCFRSolver(game).options() == {}
  assert isinstance(algorithms.LCFRSolver(game), algorithms.DCFRSolver)
  assert isinstance(algorithms.BatchedCFRPlusSolver([game]), algorithms.BatchedCFRSolver)
  with pytest.raises(TypeError, match="gamma"):
    algorithms.CFRPlusSolver(game, gamma=2.0)
  with pytest.raises(TypeError):
    algorithms.CFRSolver(game, True)  # options are keywords only


def test_a_new_named_rule_gets_working_classes(monkeypatch, tmp_path):
  # A rule added to RULES alone: CFR+ with quadratic averaging. Its single-game class runs the
  # engine with its rule bit for bit, its batched class equals it, and its checkpoint resumes.
  quadratic = NamedRule("QuadraticCFRPlus",
                        lambda gamma: dataclasses.replace(UpdateRule.from_options(True, True, True),
                                                          averaging_gamma=gamma),
                        {"gamma": 2.0}, "CFR+ with iteration t weighing t^gamma.\n")
  monkeypatch.setattr(update_rules, "RULES", update_rules.RULES + (quadratic,))
  single = update_rules.rule_classes(solvers.EngineSolver, "", "test")["QuadraticCFRPlusSolver"]
  batched = update_rules.rule_classes(batched_solver.BatchedEngineSolver, "Batched",
                                      "test")["BatchedQuadraticCFRPlusSolver"]
  game = pyspiel.load_game("kuhn_poker")
  solver = single(game).solve(30)
  engine = CFREngine(TreeArrays(solver.tree), UpdateRule(regret_matching_plus=True,
                                                         averaging_gamma=2.0))
  engine.solve(30)
  np.testing.assert_array_equal(solver.engine.cumulative, engine.cumulative)
  batch = batched([game]).solve(30)
  np.testing.assert_array_equal(batch.cumulative[0], engine.cumulative)
  monkeypatch.setattr(solvers, "QuadraticCFRPlusSolver", single, raising=False)
  solver.save(tmp_path / "run.ckpt")
  resumed = solvers.EngineSolver.load(tmp_path / "run.ckpt")
  assert type(resumed) is single and resumed.options() == {"gamma": 2.0}


def test_auto_builds_no_card_tree_for_a_small_deck(monkeypatch):
  def refuse(game):
    raise AssertionError(f"card tree of {game} built")

  monkeypatch.setattr(engine_choice, "card_tree_of", refuse)
  assert engine_choice.range_card_tree(pyspiel.load_game("kuhn_poker"), "auto") is None
  assert algorithms.CFRSolver(pyspiel.load_game("kuhn_poker")).engine_name == "flat"


@pytest.mark.parametrize("game_string", ["kuhn_poker", "kuhn_poker_ante(deck_size=14)",
                                         "leduc_poker"])
def test_entry_points_equal_openspiel(game_string):
  game = pyspiel.load_game(game_string)
  policy = algorithms.CFRSolver(game).solve(20).average_policy()
  expected = "range" if "deck_size=14" in game_string else "flat"
  assert (type(evaluation.evaluator(game)) is evaluation.RangeEvaluator) == (expected == "range")
  assert algorithms.exploitability(game, policy) == pytest.approx(
      exploitability.exploitability(game, policy), abs=1e-12)
  assert algorithms.nash_conv(game, policy) == pytest.approx(
      exploitability.nash_conv(game, policy), abs=1e-12)


def test_a_range_solver_measures_without_a_tabular_layout(monkeypatch):
  # The TabularPolicy map of a large deck takes O(N^2) memory (19 GiB at 10,000 cards): the
  # solver's exact measures read the range vectors only.
  def refuse(tree):
    raise AssertionError(f"RangeLayout of {tree.game} built")

  monkeypatch.setattr(evaluation, "RangeLayout", refuse)
  solver = algorithms.DCFRSolver(pyspiel.load_game("kuhn_poker_ante(deck_size=14)")).solve(10)
  assert solver.engine_name == "range"
  _, expected = solver.engine.values()
  assert solver.nash_conv() == pytest.approx(2 * solver.exploitability(), abs=1e-15)
  best, _ = solver.engine.values()
  assert solver.nash_conv() == pytest.approx(float(np.sum(best - expected)), abs=1e-15)



@pytest.mark.parametrize("name", NAMES)
def test_every_rule_class_is_written_out_by_name(name):
  # The classes are made from RULES; each is also bound by name in its module and imported by
  # name in algorithms/__init__.py, so that grep and editors find its definition.
  expected = [
      (solvers, f'{name}Solver = RULE_SOLVERS["{name}Solver"]'),
      (batched_solver, f'Batched{name}Solver = BATCHED_SOLVERS["Batched{name}Solver"]'),
      (algorithms, f"from algorithms.cfr.solvers import {name}Solver as {name}Solver"),
      (algorithms, f"from algorithms.cfr.batched_solver import Batched{name}Solver as "
                   f"Batched{name}Solver"),
  ]
  for module, line in expected:
    with open(module.__file__, encoding="utf-8") as f:
      assert line in f.read().splitlines(), f"add the line {line!r} to {module.__file__}"
