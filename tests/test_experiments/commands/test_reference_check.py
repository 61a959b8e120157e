"""Tests of experiments.commands.reference_check and experiments.harness.references: golden file,
family membership, solver checks, CLI."""

import dataclasses
import fractions
import json
import shutil

import pandas as pd
import pytest

from algorithms.exact import kuhn3_equilibria
from algorithms.exact import kuhn_equilibria
from experiments import cli
from experiments.commands import reference_check
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import references
from experiments.harness import report
from experiments.harness import solver_kinds
from experiments.harness import solver_registry
from experiments.harness import solver_runs
from experiments.harness.checks import Check
import helpers
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
  solved = solver_runs.solve(game_loader.load_game(game, two_player_zero_sum=False), solver, 0,
                             iterations, keep_policy=True)
  return jobs.JobResult(jobs.Job("t", game, solver, 0, checked_as), solved, computed_by={},
                        finished="", wall_seconds=0.0)


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


def test_each_sampling_scheme_has_its_model():
  # Chance sampling: one seed, 13x the exploitability, 32x the strategy and 16x the n-player
  # tolerances (measured over seeds 0-19 at T = 2000 and 10000: solver_kinds).
  for name in ("cs_cfr", "cs_cfr_simultaneous"):
    model = references.sampling_model(name)
    assert (model.seeds, model.factor, model.strategy_factor, model.n_player_factor) == (
        1, 13.0, 32.0, 16.0)
  for name in ("mccfr_external", "mccfr_outcome_cpp", "our_mccfr_outcome"):
    model = references.sampling_model(name)
    assert (model.seeds, model.factor, model.strategy_factor, model.n_player_factor) == (
        5, 32.0, None, 36.0)
  assert references.sampling_model("our_cfr") == solver_kinds.FULL_WIDTH_ALTERNATING
  # Every sampled registry entry has a measured model; one without is a one-line error.
  assert all(references.sampling_model(n).sampled == s.sampled
             for n, s in solver_registry.SOLVERS.items())
  unmeasured = dataclasses.replace(solver_registry.get_solver("cs_cfr"), algorithm="ES-CFR")
  with pytest.MonkeyPatch.context() as patch:
    patch.setitem(solver_registry.SOLVERS, "cs_cfr", unmeasured)
    with pytest.raises(ValueError, match="algorithm 'ES-CFR'.* has no sampling model"):
      references.sampling_model("cs_cfr")


def test_cs_cfr_frequencies_are_checked_and_mccfr_are_not():
  game = "kuhn_poker_ante(ante=0.75)"  # P0's K bet pinned only weakly (regime p1_bluffs).
  reference = references.compute_reference(game)
  t = reference_check.ITERATIONS.quick * solver_registry.SAMPLED_BUDGET_FACTOR
  found = references.solver_run_checks(_result(game, "cs_cfr", t, t), reference)
  suffixes = [c.name.rpartition(": ")[2] for c in found]
  assert suffixes == ["exploitability", "value of the average policy"] + [
      f"{label} [{state}]" for state, label in references.CHECKED_STATES_STANDARD.items()]
  assert all(c.passed for c in found), [c for c in found if not c.passed]
  assert found[0].tolerance == pytest.approx(13 * 3.5 / (16 * t ** 0.5))  # Delta = 2 (ante + bet).
  assert found[2].tolerance == pytest.approx(32 / t ** 0.5)
  # Negative control: the same run with P0 always betting K (the family never does) fails that
  # frequency's check only (gap 1 > 32 / sqrt(2000) = 0.72).
  run = _result(game, "cs_cfr", t, t)
  run.solved.policy["2"] = [0.0, 1.0]
  failed = [c.name for c in references.solver_run_checks(run, reference) if not c.passed]
  assert len(failed) == 1 and failed[0].endswith("P0 bets K [2]")
  mccfr = references.solver_run_checks(_result(game, "our_mccfr_outcome", t, t), reference)
  assert [c.name.rpartition(": ")[2] for c in mccfr] == [
      "exploitability", "value of the average policy"]
  assert mccfr[0].tolerance == pytest.approx(32 * 3.5 / (16 * t ** 0.5))


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
  # Chance sampling runs one seed, MCCFR solver_kinds.MCCFR_SEEDS.
  made = reference_check.make_jobs(["kuhn_poker"], ["cs_cfr", "our_mccfr_outcome"], 3, None,
                                   quick=True)
  assert [(j.solver, j.seed) for j in made] == [("cs_cfr", 3)] + [
      ("our_mccfr_outcome", s) for s in range(3, 3 + solver_kinds.MCCFR_SEEDS)]


def test_cli_passes_then_fails_on_a_corrupted_golden_file(tmp_path, monkeypatch, capsys):
  argv = ["reference-check", "--quick", "--solver", "our_cfr", "--solver", "cs_cfr",
          "--game", "kuhn_poker", "--game", "kuhn_poker_ante(ante=0.75)"]
  assert cli.main(argv + ["--out", str(tmp_path / "good")]) == 0
  out = helpers.compact_tables(capsys.readouterr().out)
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


THREE = "kuhn_poker(players=3)"


def test_golden_file_has_the_three_player_family():
  golden = references.load_golden()
  for game in (THREE, "kuhn_poker_ante(players=3)"):
    family = golden[game]["family"]
    # Szafron, Gibson, Sturtevant (AAMAS 2013): P2's value -1/48 is constant over the family;
    # P1's and P3's move with beta = max(b11, b21).
    assert family["value_formulas"] == {"player_0": "-1/48 - beta/24", "player_1": "-1/48",
                                        "player_2": "1/24 + beta/24", "beta": "max(b11, b21)"}
    assert 4 <= len(family["members"]) <= 10  # A handful, not the whole certified grid.
    names = family["parameter_names"]
    for entry in family["members"]:
      p = dict(zip(names, map(Fraction, entry["parameters"])))
      beta = max(p["b11"], p["b21"])
      assert [Fraction(v) for v in entry["values"]] == [
          -Fraction(1, 48) - beta / 24, -Fraction(1, 48), Fraction(1, 24) + beta / 24]
    betas = {max(Fraction(e["parameters"][1]), Fraction(e["parameters"][2]))
             for e in family["members"]}
    assert {Fraction(0), Fraction(1, 4)} <= betas  # Both ends of the values' segment.
    assert {e["sub_family"] for e in family["members"]} == set(
        kuhn3_equilibria.SUB_FAMILIES)


def test_three_player_golden_checks_fail_for_a_doctored_family_value():
  recomputed = references.compute_reference(THREE)
  golden = json.loads(json.dumps(references.load_golden()[THREE]))
  assert all(c.passed for c in reference_check.golden_checks(recomputed, golden))
  golden["family"]["members"][1]["values"][1] = "-1/47"
  failed = [c.name for c in reference_check.golden_checks(recomputed, golden) if not c.passed]
  assert failed == [f"{THREE}: family member 1 (c11=0, values -1/32, -1/48, 5/96) parameters "
                    "and values = golden"]
  golden["family"]["value_formulas"]["player_1"] = "-1/47"
  assert any("value formulas" in c.name and not c.passed
             for c in reference_check.golden_checks(recomputed, golden))


def test_family_certificates_are_exact_and_fail_for_a_non_member():
  family = references.compute_reference(THREE)["family"]
  found = reference_check.family_certificate_checks(THREE, family)
  assert len(found) == 3 * len(references.KUHN3_GOLDEN_MEMBERS)
  assert all(c.passed for c in found)
  exact = [c for c in found if c.name.endswith("exact NashConv")]
  assert all(c.value == 0.0 and c.tolerance == 0.0 for c in exact)  # Fractions: exactly 0.
  # Negative control: a recorded value that the exact tree walk does not give.
  doctored = json.loads(json.dumps(family))
  doctored["members"][0]["values"][0] = "-1/50"
  failed = [c.name for c in reference_check.family_certificate_checks(THREE, doctored)
            if not c.passed]
  assert len(failed) == 1 and "exact values = recorded -1/50" in failed[0]


def test_three_player_run_checks_pass_for_cfr_and_fail_for_uniform_play():
  reference = references.compute_reference(THREE)
  checks = references.solver_run_checks(_result(THREE, "our_cfr", 200, 200), reference)
  assert [c.passed for c in checks] == [True, True, True]
  assert "nearest family member" in checks[2].name
  # Negative control: one iteration (uniform play) checked as if it had run 300.
  # Uniform play: NashConv 2.0625 (> 0.043) and values 0.26 off the nearest member's (> 0.011).
  failed = [c.name for c in references.solver_run_checks(_result(THREE, "our_cfr", 1, 300),
                                                         reference) if not c.passed]
  assert len(failed) == 2 and failed[0] == f"{THREE} our_cfr T=300: NashConv"
  assert "players' values - nearest family member's" in failed[1]
  # Four players: no family; NashConv against OpenSpiel's and its tolerance only.
  four = "kuhn_poker(players=4)"
  checks = references.solver_run_checks(_result(four, "our_cfr_plus", 100, 100),
                                        references.compute_reference(four))
  assert [c.passed for c in checks] == [True, True]


def test_make_jobs_leaves_out_solvers_that_cannot_run_on_three_players():
  made = reference_check.make_jobs([THREE, "kuhn_poker_ante(players=3)"],
                                   solver_registry.report_solvers(), 0, None, quick=True)
  pairs = {(j.game, j.solver) for j in made}
  assert (THREE, "cfr") in pairs and (THREE, "cs_cfr") in pairs
  assert (THREE, "cfr_avg_d1") not in pairs  # A depth limit needs two players.
  # OpenSpiel's Python CFR on the Python game (about 20 iterations per second): left out.
  assert ("kuhn_poker_ante(players=3)", "cfr") not in pairs
  assert ("kuhn_poker_ante(players=3)", "our_cfr") in pairs
  with pytest.raises(ValueError, match="cfr_avg_d1 .* needs a two-player zero-sum game"):
    reference_check.make_jobs([THREE], ["cfr_avg_d1"], 0, None, quick=True,
                              default_solvers=False)


def test_cli_three_players_fails_on_a_doctored_golden_family(tmp_path, monkeypatch, capsys):
  argv = ["reference-check", "--quick", "--solver", "our_cfr", "--game", THREE]
  assert cli.main(argv + ["--out", str(tmp_path / "good")]) == 0
  report_text = (tmp_path / "good" / "report.md").read_text()
  assert "More than two players" in report_text and "NashConv" in report_text
  corrupted = tmp_path / "golden.json"
  data = json.loads(references.GOLDEN_PATH.read_text())
  data["games"][THREE]["family"]["members"][0]["values"][2] = "1/25"
  corrupted.write_text(json.dumps(data))
  monkeypatch.setattr(references, "GOLDEN_PATH", corrupted)
  capsys.readouterr()
  assert cli.main(argv + ["--out", str(tmp_path / "bad")]) == 1
  out = capsys.readouterr().out
  assert out.count("**FAIL**") == 1
  assert f"{THREE}: family member 0 (c11=0, values -1/48, -1/48, 1/24) parameters" in out


SIMPLE = "external_solvers.simple_cfr:SimpleCFR"
SIGN_ERROR = "external_solvers.simple_cfr:SignErrorCFR"


def test_cli_checks_solvers_from_outside_the_project(tmp_path, capsys):
  # tests/external_solvers is imported only through module:Name, as another project's code.
  argv = ["reference-check", "--quick", "--game", "kuhn_poker", "--game", THREE,
          "--solver", SIMPLE, "--solver", SIGN_ERROR, "--solver", "our_cfr"]
  assert cli.main(argv + ["--out", str(tmp_path)]) == 1
  out = helpers.compact_tables(capsys.readouterr().out)
  # Only the sign error fails, on the two-player game: exploitability 0.83 against 0.0177.
  failed = [line for line in out.splitlines() if "**FAIL**" in line]
  assert failed and all(SIGN_ERROR in line for line in failed)
  assert any(f"kuhn_poker {SIGN_ERROR} T=200: exploitability | 0.83" in line for line in failed)
  frame = {r["game"]: r for r in pd.read_csv(tmp_path / "reference-check" / "pass_fail.csv",
                                              keep_default_na=False).to_dict("records")}
  assert frame["kuhn_poker"][SIMPLE] == "7/7" and frame["kuhn_poker"][SIGN_ERROR].endswith("FAIL")
  assert frame[THREE][SIMPLE] == "-" and frame[THREE]["our_cfr"] == "3/3"
  text = (tmp_path / "report.md").read_text()
  assert (f"`{SIMPLE}`: run through OpenSpiel's Python CFR; kind not declared, detected: checked "
          f"with the full width, alternating updates model; skipped on {THREE}: ") in text
  assert "SimpleCFR solves two-player zero-sum games" in text


def test_cli_imports_a_module_that_registers_a_game(tmp_path, capsys):
  argv = ["reference-check", "--quick", "--game", "external_kuhn", "--solver", SIMPLE]
  assert cli.main(argv + ["--out", str(tmp_path / "a")]) == 2  # Not registered yet.
  assert "unknown game 'external_kuhn'" in capsys.readouterr().err
  argv += ["--import", "external_solvers.my_games"]
  assert cli.main(argv + ["--out", str(tmp_path / "b")]) == 0
  found = report.load_sections(tmp_path / "b", [])[0].section.checks
  # No golden entry and no closed form for another project's game: the LP's checks (duality,
  # exploitability 0 of its equilibrium) and the solver's exploitability and value against it.
  assert [c.name.rpartition(": ")[2] for c in found] == [
      "LP value, player 0 vs player 1 program", "exploitability of the LP equilibrium",
      "exploitability", "value of the average policy"]
  assert found[3].reference == pytest.approx(-1 / 30)  # Kuhn poker at ante 2 (closed form).


@pytest.mark.parametrize("options, message", [
    (["--solver", "external_solvers.missing:X"], "the module does not import"),
    (["--solver", "external_solvers.simple_cfr:Nope"], "has no attribute 'Nope'"),
    (["--solver", "external_solvers.broken:NoInterface"], "NoInterface has none of the supported "
     "interfaces (looked for the project's solvers: solve(n) + average_policy(); pyspiel's C++ "
     "MCCFR: run_iteration() + average_policy(); "),
    (["--solver", "external_solvers.broken:RaisingConstructor"],
     "raised RuntimeError: this solver needs a depth_limit option for kuhn_poker()"),
    (["--solver", "external_solvers.broken:WrongShape"], "has 3 probabilities; the game has 2"),
    (["--solver", "external_solvers.broken:NotADistribution"], "sums to 1.4, not 1"),
    (["--solver", SIMPLE, "--import", "external_solvers.missing"],
     "--import external_solvers.missing: the module does not import"),
    (["--solver", SIMPLE, "--solver-arg", "novalue"], "--solver-arg expects key=value"),
    (["--solver", "our_cfr", "--solver-arg", "a=1"], "no --solver names one"),
    (["--solver", SIMPLE, "--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["--solver", SIMPLE, "--game", "leduc_poker(players=3)"],
     "--game leduc_poker(players=3): no exact reference is known (3 players)"),
    (["--solver", "our_cfr", "--solver-kind", "unknown"], "--solver-kind applies to "
     "package.module:Name solvers; no --solver names one"),
])
def test_cli_bad_solvers_are_one_line_errors(options, message, tmp_path, capsys):
  argv = ["reference-check", "--quick", "--iterations", "2", "--out", str(tmp_path / "out")]
  if "--game" not in options:
    argv += ["--game", "kuhn_poker"]
  assert cli.main(argv + options) == 2
  err = capsys.readouterr().err
  assert message in err and err.count("\n") == 1, err
  assert not (tmp_path / "out").exists()  # Nothing half-written.


def test_cli_bad_solver_kind_names_the_kinds(tmp_path, capsys):
  # An argparse error (exit 2); its one-line form is the CLI's (experiments/cli.py).
  argv = ["reference-check", "--quick", "--solver", SIMPLE, "--solver-kind", "vanilla", "--out",
          str(tmp_path / "out")]
  assert cli.main(argv) == 2
  assert ("argument --solver-kind: solver kind 'vanilla' is not one of full-width-alternating, "
          "full-width-simultaneous, chance-sampled, external-sampled, outcome-sampled, unknown"
          ) in capsys.readouterr().err
  assert not (tmp_path / "out").exists()


def test_checked_runs_keep_the_median_seed_of_each_game():
  """``references.checked_runs``: one run per (game, solver, T), the median final measure of its
  seeds (``median_run``, the run the MCCFR sampling model checks); one seed stays itself."""
  def run(game, seed, final):
    solved = dataclasses.replace(_result("kuhn_poker", "our_cfr", 2, 2).solved, curve=[final])
    return jobs.JobResult(jobs.Job("t", game, "our_cfr", seed, 2), solved, computed_by={},
                          finished="", wall_seconds=0.0)
  runs = [run("kuhn_poker", s, f) for s, f in enumerate([0.5, 0.1, 0.3, 0.9, 0.2])]
  runs.append(run("kuhn_poker_ante", 0, 0.7))
  checked = references.checked_runs(runs)
  assert [(r.job.game, r.job.seed, r.final) for r in checked] == [
      ("kuhn_poker", 2, 0.3), ("kuhn_poker_ante", 0, 0.7)]
