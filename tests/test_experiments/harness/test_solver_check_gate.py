"""Tests of the reference check as a CI gate (experiments.harness.solver_check, solver_kinds):
no silent pass (a run that raises or returns a non-policy fails its game, the other games are
checked), declared solver kinds and their measured models, the planted reach bugs, every seed
passing, the time limit, and one-line errors for bad API arguments. The solvers are
tests/external_solvers, named only as module:Name as another project's would be."""

import functools

from open_spiel.python.algorithms import cfr
import pytest

from experiments.harness import external_solvers
from experiments.harness import solver_check
from experiments.harness import solver_kinds

KUHN = "kuhn_poker"
THREE = "kuhn_poker(players=3)"
SIMPLIFIED = "kuhn_poker_ante(ante=1.0,simplified=True)"
SIMULTANEOUS = {"regret_matching_plus": False, "alternating_updates": False,
                "linear_averaging": False}


def test_a_run_that_raises_fails_its_game_and_the_others_are_checked():
  report = solver_check.check_solver("external_solvers.broken:MemoryErrorOnThreePlayers",
                                     [KUHN, THREE, "kuhn_poker_ante(ante=2.0)"])
  assert list(report.table["status"]) == ["pass", "FAIL", "pass"]
  assert not report.passed  # The error is a failed check: never a skip, never a pass.
  failed = report.games[1]
  assert failed.error == ("running it on kuhn_poker(players=3) raised MemoryError: regret tables "
                          "of three players do not fit")
  assert [c.name for c in report.failures] == [
      f"{THREE} external_solvers.broken:MemoryErrorOnThreePlayers T=200: the run raised: "
      f"{failed.error}"]
  text = str(report)
  assert "FAILED" in text and f"  {report.failures[0].name}\n" in text + "\n"


def test_a_policy_error_fails_its_game_only():
  games = [KUHN, SIMPLIFIED, "kuhn_poker_ante(ante=2.0)"]
  report = solver_check.check_solver("external_solvers.broken:NotADistributionOnSimplified", games)
  assert list(report.table["status"]) == ["pass", "FAIL", "pass"]
  assert "is not a distribution at information state '0': [0.7, 0.7] sums to 1.4, not 1" in (
      report.games[1].error)
  assert not report.passed and report.games[2].checks  # The game after it was still checked.


def test_a_solver_whose_runs_raise_on_every_game_fails_them_all():
  report = solver_check.check_solver("external_solvers.broken:MemoryErrorOnThreePlayers", [THREE])
  assert list(report.table["status"]) == ["FAIL"] and not report.passed


def test_the_cli_exit_status_agrees_with_the_report(tmp_path, capsys):
  from experiments import cli  # The driver: only this test needs it.
  argv = ["reference-check", "--quick", "--game", KUHN, "--game", THREE, "--solver",
          "external_solvers.broken:MemoryErrorOnThreePlayers", "--out", str(tmp_path)]
  assert cli.main(argv) == 1
  out = capsys.readouterr().out
  assert "the run raised: running it on kuhn_poker(players=3) raised MemoryError" in out
  text = (tmp_path / "report.md").read_text()
  assert ("FAIL on kuhn_poker(players=3): running it on kuhn_poker(players=3) raised "
          "MemoryError") in text


def test_simultaneous_cfr_is_detected_and_held_to_its_own_model():
  # OpenSpiel's CFR with simultaneous updates: detected by its _alternating_updates attribute.
  spec = "open_spiel.python.algorithms.cfr:_CFRSolver"
  game = "kuhn_poker_ante(ante=0.75)"
  detected = solver_check.check_solver(spec, [game], options=SIMULTANEOUS)
  assert detected.model == solver_kinds.FULL_WIDTH_SIMULTANEOUS and detected.passed, detected
  assert "full width, simultaneous updates (kind not declared: detected)" in str(detected)
  # Held to the alternating model it fails, as before the kinds existed: P0 bets K 0.23 at
  # T = 200 where the family never does (tolerance 1/sqrt(200) = 0.071; measured in
  # solver_kinds: its frequencies stay up to 3.3/sqrt(T) from the family at every T).
  held = solver_check.check_solver(spec, [game], options=SIMULTANEOUS,
                                   kind="full-width-alternating")
  assert not held.passed
  k_bet = next(c for c in held.failures if c.name.endswith("P0 bets K [2]"))
  assert k_bet.value == pytest.approx(0.230047, abs=1e-6) and k_bet.reference == 0
  assert "declared full-width-alternating" in str(held)


@pytest.mark.slow
def test_openspiel_simultaneous_cfr_passes_the_quick_check_declared():
  # The target: the quick set of an outside solver (Leduc included, T = 60 there).
  report = solver_check.check_solver("open_spiel.python.algorithms.cfr:_CFRSolver",
                                     options=SIMULTANEOUS, kind="full-width-simultaneous")
  assert report.passed, str(report)
  assert [g.game for g in report.games] == list(solver_check.OUTSIDE_QUICK_GAMES)


def test_planted_reach_bugs_fail_and_the_correct_solvers_pass():
  # Regrets weighted by the player's own reach: exploitability 0.166, 9.4 times the tolerance on
  # kuhn_poker at T = 200 (every quick game fails, its worst check 5.6 to 15 times out).
  wrong = solver_check.check_solver("external_solvers.reach_bugs:WrongReachCFR", [KUHN])
  assert not wrong.passed and wrong.games[0].run.final == pytest.approx(0.165885, abs=1e-6)
  # The average not weighted by reach passes every Kuhn game and fails Leduc poker at T = 60:
  # 0.2409 against 1/16 * 26 / sqrt(60) = 0.2098 (the correct SimpleCFR: 0.1558).
  unweighted = solver_check.check_solver("external_solvers.reach_bugs:UnweightedAverageCFR",
                                         [KUHN, "leduc_poker"])
  assert list(unweighted.table["status"]) == ["pass", "FAIL"]
  assert unweighted.games[1].run.final == pytest.approx(0.2409, abs=1e-4)


def test_a_declared_chance_sampled_solver_gets_our_chance_sampling_model():
  ours = solver_check.check_solver("cs_cfr", [KUHN])
  good = solver_check.check_solver("external_solvers.reach_bugs:ChanceSampledCFR", [KUHN],
                                   kind="chance-sampled")
  assert ours.model == good.model == solver_kinds.CHANCE_SAMPLING
  assert ours.passed and good.passed, str(good)
  # The chance-sampled reach bug fails the chance-sampling model (3.7 times its tolerance) and
  # would pass the MCCFR model that a solver taking a seed gets when its kind is not declared.
  bad = solver_check.check_solver("external_solvers.reach_bugs:ChanceSampledWrongReachCFR",
                                  [KUHN], kind="chance-sampled")
  assert not bad.passed
  assert bad.games[0].run.final < 32 * 4 / (16 * 2000 ** 0.5)


def test_every_seed_must_pass_when_asked():
  spec = "external_solvers.broken:SwappedOnSomeSeeds"  # Broken on seeds 1 and 3 of 0-4.
  median = solver_check.check_solver(spec, [KUHN])
  assert median.passed and median.model.seeds == 5
  every = solver_check.check_solver(spec, [KUHN], seeds_must_all_pass=True)
  assert not every.passed and every.model.every_run
  # Each failing check names its seed; the tolerance is one run's (solver_kinds.MCCFR_RUN_FACTOR).
  assert sorted({c.name.split(":")[0] for c in every.failures}) == ["seed 1", "seed 3"]
  assert every.failures[0].tolerance == pytest.approx(88 * 4 / (16 * 2000 ** 0.5))
  assert "every run of 5 seeds is checked" in str(every)
  # A chance-sampled solver runs 5 seeds, each held to its kind's one-run model; a full-width
  # solver's single run is checked as always.
  sampled = solver_check.check_solver("cs_cfr", [KUHN], seeds_must_all_pass=True)
  assert sampled.model == solver_kinds.CHANCE_SAMPLING.all_seeds(5) and sampled.passed
  assert len(sampled.games[0].measured) == 5
  full = solver_check.check_solver(cfr.CFRSolver, [KUHN], seeds_must_all_pass=True)
  assert full.model == solver_kinds.FULL_WIDTH_ALTERNATING and full.passed


def test_unknown_kind_gets_the_loosest_model_and_says_so():
  report = solver_check.check_solver(cfr.CFRSolver, [KUHN], kind="unknown")
  assert report.model == solver_kinds.UNKNOWN and report.model.seeds == 5
  assert "unknown kind: the loosest model (MCCFR's) (declared unknown)" in str(report)
  with pytest.raises(ValueError, match="solver kind 'cfr' is not one of full-width-alternating, "):
    solver_check.check_solver(cfr.CFRSolver, [KUHN], kind="cfr")


def test_the_time_limit_cuts_runs_and_the_report_does_not_pass():
  report = solver_check.check_solver(cfr.CFRSolver, [KUHN, THREE], max_minutes=0)
  assert list(report.table["status"]) == ["cut", "cut"] and not report.passed
  assert "Cut kuhn_poker: not started: the time limit had passed" in str(report)
  # Between iterations: the run stops as soon as stop() says so, and says how far it got.
  calls = []
  solver = cfr.CFRSolver(solver_check.game_loader.load_game(KUHN))
  interface = external_solvers.interface_of(solver)
  stop_at_eighth_call = lambda: len(calls.append(1) or calls) > 7  # noqa: E731
  assert external_solvers.run(solver, interface, 100, stop_at_eighth_call) == 7


@pytest.mark.parametrize("call, message", [
    (lambda: solver_check.check_solver(cfr.CFRSolver, "kuhn_poker"),
     "games must be a list of game strings, got the string 'kuhn_poker'; write "
     "games=['kuhn_poker']"),
    (lambda: solver_check.check_solver(cfr.CFRSolver, []), "games is empty"),
    (lambda: solver_check.check_solver(123), "solver 123 (int) is not callable: expected a class "
     "or factory"),
    (lambda: solver_check.check_solver(cfr.CFRSolver, ["leduc_poker(players=3)"]),
     "--game leduc_poker(players=3): no exact reference is known (3 players)"),
])
def test_bad_api_arguments_are_one_line_errors(call, message):
  with pytest.raises(ValueError) as raised:
    call()
  assert message in str(raised.value) and "\n" not in str(raised.value)


def test_partials_are_named_by_what_they_wrap_and_the_report_reads_as_text():
  solver = functools.partial(cfr._CFRSolver, **SIMULTANEOUS)  # noqa: SLF001
  report = solver_check.check_solver(solver, [KUHN])
  assert report.solver == ("functools.partial(open_spiel.python.algorithms.cfr:_CFRSolver, "
                           "regret_matching_plus=False, alternating_updates=False, "
                           "linear_averaging=False)")
  # pytest shows an assertion message that is not a string through repr: it is the report.
  assert repr(report) == str(report) and str(report).startswith("Reference check of functools")
