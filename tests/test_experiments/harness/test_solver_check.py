"""Tests of experiments.harness.solver_check (check_solver) and external_solvers: solvers from
outside the project, named only as module:Name (tests/external_solvers), through the Python API."""

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
import pyspiel
import pytest

from experiments.harness import external_solvers
from experiments.harness import game_loader
from experiments.harness import solver_check
from experiments.harness import solver_kinds

SIMPLE = "external_solvers.simple_cfr:SimpleCFR"
SIGN_ERROR = "external_solvers.simple_cfr:SignErrorCFR"
KUHN = "kuhn_poker"
GAMES = [KUHN, "kuhn_poker(players=3)"]


def test_a_correct_cfr_passes_and_the_sign_error_fails():
  cache = {}
  good = solver_check.check_solver(SIMPLE, GAMES, reference_of=cache)
  assert good.passed and good.interface == "OpenSpiel's Python CFR" and not good.sampled
  # The same exploitability as OpenSpiel's CFRSolver at T = 200 (0.00333 on Kuhn poker, as the
  # reference check's registry run of cfr): the solver is an independent CFR.
  assert good.games[0].run.final == pytest.approx(0.0033296031363, rel=1e-9)
  # Two-player only: its constructor raises on the three-player game, which is skipped.
  assert "raised ValueError: SimpleCFR solves two-player zero-sum games" in good.games[1].skipped
  assert list(good.table["status"]) == ["pass", "skipped"]
  bad = solver_check.check_solver(SIGN_ERROR, GAMES, reference_of=cache)
  assert not bad.passed
  assert list(bad.table["status"]) == ["FAIL", "skipped"]
  text = str(bad)
  # Each failing game is named with its check, value, reference and tolerance: exploitability
  # 0.83 on Kuhn poker against 1/(4 sqrt(200)) = 0.0177.
  assert text.startswith(f"Reference check of {SIGN_ERROR} (OpenSpiel's Python CFR; ")
  assert f"  kuhn_poker {SIGN_ERROR} T=200: exploitability: 0.83" in text
  assert "reference 0, |gap| 0.83" in text and "> tolerance 0.0176777" in text


def test_interfaces_of_openspiel_and_pyspiel_are_detected():
  game = game_loader.load_game(KUHN)
  found = {name: external_solvers.interface_of(solver).name for name, solver in {
      "python cfr": cfr.CFRSolver(game), "cpp cfr": pyspiel.CFRPlusSolver(game),
      "cpp mccfr": pyspiel.ExternalSamplingMCCFRSolver(game, seed=1)}.items()}
  assert found == {"python cfr": "OpenSpiel's Python CFR", "cpp cfr": "pyspiel's C++ CFR",
                   "cpp mccfr": "pyspiel's C++ MCCFR"}
  assert external_solvers.takes_seed(pyspiel.OutcomeSamplingMCCFRSolver)
  assert not external_solvers.takes_seed(pyspiel.CFRSolver)
  report = solver_check.check_solver(pyspiel.CFRSolver, [KUHN])  # A class object, not a name.
  assert report.passed and report.solver == "pyspiel:CFRSolver"


def test_a_sampled_solver_is_checked_on_its_median_seed_and_a_wrong_one_fails():
  # pyspiel's outcome sampling, seeded: 5 runs of 10 T, the median one checked.
  good = solver_check.check_solver("pyspiel:OutcomeSamplingMCCFRSolver", [KUHN])
  assert good.sampled and good.passed, str(good)
  checked = good.games[0]
  assert good.model == solver_kinds.MCCFR_SAMPLING
  assert checked.iterations == 2000 and len(checked.measured) == solver_kinds.MCCFR_SEEDS
  assert checked.run.final == sorted(checked.measured)[2]
  # Exploitability and value only: an MCCFR run's frequencies are not checked.
  assert [c.name.rpartition(": ")[2] for c in checked.checks] == [
      "exploitability", "value of the average policy"]
  # The same with player 1's actions read in reverse: exploitability 0.62 against 0.179
  # (32 x 4 / (16 sqrt(2000)), solver_kinds.MCCFR_FACTOR), out by a factor of 3.5.
  bad = solver_check.check_solver("external_solvers.broken:SwappedActionsMCCFR", [KUHN])
  assert bad.sampled and not bad.passed
  assert [c.name.rpartition(": ")[2] for c in bad.failures] == ["exploitability"]
  assert bad.failures[0].tolerance == pytest.approx(32 * 4 / (16 * 2000 ** 0.5))
  assert bad.games[0].run.final > 3 * bad.failures[0].tolerance


def test_policies_are_read_from_tables_dicts_and_callables():
  game = game_loader.load_game(KUHN)
  uniform = policy_lib.TabularPolicy(game)
  table = external_solvers.to_tabular(game, uniform, "t")
  np.testing.assert_array_equal(table.action_probability_array, 0.5)
  as_dict = {s: [0.25, 0.75] for s in uniform.state_lookup}
  read = external_solvers.to_tabular(game, as_dict, "t")
  np.testing.assert_array_equal(read.action_probability_array[:, 1], 0.75)
  read = external_solvers.to_tabular(game, {s: {1: 1.0} for s in as_dict}, "t")
  np.testing.assert_array_equal(read.action_probability_array[:, 0], 0.0)
  with pytest.raises(external_solvers.PolicyError, match="no entry for information state '0'"):
    external_solvers.to_tabular(game, {}, "t")
  with pytest.raises(external_solvers.PolicyError, match="names action 2; the game has actions"):
    external_solvers.to_tabular(game, {s: {2: 1.0} for s in as_dict}, "t")
  with pytest.raises(external_solvers.PolicyError, match="negative"):
    external_solvers.to_tabular(game, {s: [1.5, -0.5] for s in as_dict}, "t")
  with pytest.raises(external_solvers.PolicyError, match="expected an OpenSpiel Policy"):
    external_solvers.to_tabular(game, [0.5, 0.5], "t")
  other = policy_lib.TabularPolicy(game_loader.load_game("leduc_poker"))
  with pytest.raises(external_solvers.PolicyError, match="a TabularPolicy of another game"):
    external_solvers.to_tabular(game, other, "t")


def test_options_are_parsed_as_json_where_they_parse():
  assert external_solvers.parse_options(["a=1", "b=true", "c=text", "d=[1, 2]", 'e="1"']) == {
      "a": 1, "b": True, "c": "text", "d": [1, 2], "e": "1"}
  with pytest.raises(ValueError, match="expects key=value"):
    external_solvers.parse_options(["novalue"])
  # Constructor options reach the factory: OpenSpiel's CFR with simultaneous updates.
  report = solver_check.check_solver(
      "open_spiel.python.algorithms.cfr:_CFRSolver", [KUHN], iterations=20,
      options={"regret_matching_plus": True, "alternating_updates": True,
               "linear_averaging": True})
  assert report.games[0].run.final == pytest.approx(
      solver_check.check_solver(cfr.CFRPlusSolver, [KUHN], iterations=20).games[0].run.final)


@pytest.mark.parametrize("solver, message", [
    ("external_solvers.missing:X", "the module does not import (ModuleNotFoundError"),
    ("external_solvers.simple_cfr:Nope", "module external_solvers.simple_cfr has no attribute "
     "'Nope'"),
    ("external_solvers.broken:NOT_A_CLASS", "NOT_A_CLASS is a int, not a class or a factory"),
    ("external_solvers.broken:NoInterface", "NoInterface has none of the supported interfaces "
     "(looked for the project's solvers: solve(n) + average_policy(); "),
    ("external_solvers.broken:RaisingConstructor", "ran on none of the games: kuhn_poker: "
     "--solver external_solvers.broken:RaisingConstructor: building it on kuhn_poker raised "
     "RuntimeError: this solver needs a depth_limit option for kuhn_poker()"),
    ("external_solvers.broken:WrongShape", "at information state '0' has 3 probabilities; the "
     "game has 2 actions"),
    ("external_solvers.broken:NotADistribution", "is not a distribution at information state "
     "'0': [0.7, 0.7] sums to 1.4, not 1"),
])
def test_bad_solvers_are_one_line_errors(solver, message):
  with pytest.raises(ValueError) as raised:
    solver_check.check_solver(solver, [KUHN], iterations=2)
  assert message in str(raised.value) and "\n" not in str(raised.value)
