"""Tests of experiments.reference_check and experiments.references: golden file, family
membership, solver checks, CLI."""

import fractions
import json
import shutil

import pytest

from algorithms import kuhn_equilibria
from experiments import cli
from experiments import games
from experiments import jobs
from experiments import reference_check
from experiments import references
from experiments import report
from experiments import solver_registry
from experiments.checks import Check
from spiel_games import kuhn_rules

Fraction = fractions.Fraction
KUHN = kuhn_rules.KuhnRules()


def test_golden_file_matches_recomputed_references():
  golden = references.load_golden()
  assert set(golden) == set(reference_check.REFERENCE_GAMES)
  for game in reference_check.REFERENCE_GAMES:
    recomputed = references.compute_reference(game)
    checks = (reference_check.golden_checks(recomputed, golden[game])
              + reference_check.consistency_checks(recomputed))
    assert all(c.passed for c in checks), [c for c in checks if not c.passed]


def test_golden_values_are_the_published_ones():
  golden = references.load_golden()
  # Kuhn 1950: the game value of standard Kuhn poker for player 0 is -1/18.
  assert golden["kuhn_poker"]["closed_form"]["value"] == "-1/18"
  assert golden["kuhn_poker"]["closed_form"]["family"]["0"] == ["0", "1/3"]  # alpha in [0, 1/3].
  # Leduc poker's value for player 0, -0.0856 (e.g. OpenSpiel's sequence-form LP tests).
  assert golden["leduc_poker"]["lp_value"] == pytest.approx(-0.085606424078, abs=1e-9)


def test_strategy_checks_accept_family_members_and_reject_others():
  for alpha in (0, Fraction(1, 10), Fraction(1, 3)):
    probs = {s: float(p) for s, p in
             kuhn_equilibria.kuhn_equilibrium(p0_bluff=alpha).action_probabilities().items()}
    assert all(c.passed for c in references.family_checks("t", KUHN, probs, 1e-12))
  probs["2"] = 0.5  # Breaks K bet = 3 alpha.
  failed = [c for c in references.family_checks("t", KUHN, probs, 1e-3) if not c.passed]
  assert [c.name for c in failed] == ["t: P0 bets K [2]"]


def test_family_ranges_at_the_edge_of_the_standard_game():
  # At ante/bet = 1/2 (kuhn_equilibria): P1 bluffs J with y in [0, 1/2] and calls with Q d <= y.
  ranges = references.family_ranges(kuhn_rules.KuhnRules(ante=0.5))
  assert ranges["0p"] == [0, Fraction(1, 2)] and ranges["1b"] == [0, Fraction(1, 2)]


def _result(game, solver, iterations, checked_as):
  """A job result of ``iterations`` iterations, labelled as a run of ``checked_as`` iterations."""
  solved = solver_registry.solve(games.load_game(game), solver, 0, iterations, keep_policy=True)
  return jobs.JobResult(jobs.Job("t", game, solver, 0, checked_as), solved, {}, "", 0.0)


def test_solver_checks_pass_for_cfr_and_fail_for_uniform_play():
  game = "kuhn_poker_ante(ante=2.0)"
  reference = references.compute_reference(game)
  checks = references.solver_run_checks(_result(game, "our_cfr_plus", 300, 300), reference)
  assert len(checks) == 7 and all(c.passed for c in checks)
  # Negative control: one iteration (the uniform policy) checked as if it had run 300.
  uniform = _result(game, "our_cfr", 1, 300)
  failed = [c for c in references.solver_run_checks(uniform, reference) if not c.passed]
  assert any("exploitability" in c.name for c in failed)
  assert any("P1 calls a bet with Q" in c.name for c in failed)


def test_pass_fail_frame_counts_checks_per_game_and_solver():
  ok, bad = Check("ok", 1.0, 1.0, 0.0, "exact"), Check("bad", 2.0, 1.0, 0.5, "exact")
  frame = reference_check.pass_fail_frame(
      {"g1": [ok, ok], "g2": [ok]}, {("g1", "cfr"): [ok, bad, ok], ("g2", "cfr"): [ok]},
      ["cfr", "cs_cfr"])
  assert frame.to_dict("records") == [
      {"game": "g1", "references": "2/2", "cfr": "2/3 FAIL", "cs_cfr": "-"},
      {"game": "g2", "references": "1/1", "cfr": "1/1", "cs_cfr": "-"}]


def test_make_jobs_budgets():
  made = reference_check.make_jobs(["kuhn_poker", "leduc_poker"], ["our_cfr", "cs_cfr"], 0,
                                   None, quick=True)
  budgets = {(j.game, j.solver): j.iterations for j in made}
  assert budgets == {("kuhn_poker", "our_cfr"): reference_check.ITERATIONS.quick,
                     ("kuhn_poker", "cs_cfr"): reference_check.ITERATIONS.quick
                     * solver_registry.SAMPLED_BUDGET_FACTOR,
                     ("leduc_poker", "our_cfr"): reference_check.LEDUC_ITERATIONS}


def test_cli_passes_then_fails_on_a_corrupted_golden_file(tmp_path, monkeypatch, capsys):
  argv = ["reference-check", "--quick", "--solver", "our_cfr", "--solver", "cs_cfr",
          "--game", "kuhn_poker", "--game", "kuhn_poker_ante(ante=0.75)"]
  assert cli.main(argv + ["--out", str(tmp_path / "good")]) == 0
  out = capsys.readouterr().out
  assert "| reference-check |" in out and "| PASS |" in out and "FAIL" not in out
  good = report.load_sections(tmp_path / "good", [])[0]
  assert good.section.checks and all(c.passed for c in good.section.checks)
  corrupted = tmp_path / "golden.json"
  shutil.copy(references.GOLDEN_PATH, corrupted)
  data = json.loads(corrupted.read_text())
  data["games"]["kuhn_poker"]["closed_form"]["value"] = "-1/17"
  corrupted.write_text(json.dumps(data))
  monkeypatch.setattr(references, "GOLDEN_PATH", corrupted)
  assert cli.main(argv + ["--out", str(tmp_path / "bad")]) == 1
  out = capsys.readouterr().out
  # Only the failed check is printed, with its name, and the report lists it.
  assert "kuhn_poker: closed-form value -1/18 = golden" in out and "**FAIL**" in out
  assert out.count("**FAIL**") == 1
  assert "kuhn_poker: closed-form value -1/18 = golden" in (tmp_path / "bad" / "report.md"
                                                             ).read_text()
