"""Tests of experiments.commands.ante_sweep: closed-form curves, the figures and the command."""

import json

import pytest

from experiments import cli
from experiments.commands import ante_sweep
from experiments.harness import jobs
from experiments.harness import plotting
from experiments.harness import report


def test_sweep_games_cover_both_rule_sets():
  games = ante_sweep.sweep_games([0.5], [2.0])
  assert games == [("kuhn_poker_ante(ante=0.5,bet=1.0)", "ante"),
                   ("kuhn_poker_ante(ante=1.0,bet=2.0)", "bet"),
                   ("kuhn_poker_ante(ante=0.5,bet=1.0,simplified=True)", "ante"),
                   ("kuhn_poker_ante(ante=1.0,bet=2.0,simplified=True)", "bet")]


def test_closed_form_curves_at_kuhns_game():
  curves = ante_sweep.closed_form_curves(simplified=False)
  at_one = curves[curves.r == 1.0].set_index("quantity")
  # Kuhn 1950: J bluff alpha in [0, 1/3], value -1/18.
  assert at_one.loc["0"].low == 0 and at_one.loc["0"].high == pytest.approx(1 / 3)
  assert at_one.loc[ante_sweep.VALUE].low == pytest.approx(-1 / 18)
  simplified = ante_sweep.closed_form_curves(simplified=True)
  at_one = simplified[simplified.r == 1.0].set_index("quantity")
  # Variable-ante game at S = 1: bluff 1/(1 + 2S) = 1/3, call (2S - 1)/(1 + 2S) = 1/3.
  assert at_one.loc["0"].low == at_one.loc["0"].high == pytest.approx(1 / 3)
  assert at_one.loc["1b"].low == pytest.approx(1 / 3)


@pytest.mark.slow
def test_command_solves_checks_and_draws(tmp_path):
  out = tmp_path / "results"
  assert cli.main(["ante-sweep", "--quiet", "--ante", "0.25", "--ante", "2.0", "--bet", "4.0",
                   "--iterations", "200", "--out", str(out)]) == 0
  record = report.load_sections(out, [ante_sweep.NAME])[0]
  assert record.status == "PASS"
  # 6 games, 7 checks per standard game and 4 per simplified game (references.solver_run_checks).
  assert len(record.section.checks) == 3 * 7 + 3 * 4
  assert sorted(record.section.figures) == ["ante_sweep_simplified.png",
                                            "ante_sweep_standard.png"]
  # The standard figure: one panel per checked frequency and the value, each with the closed
  # form, its family band and the solved points of both sweeps.
  figure = plotting.read_figure_summary(out / ante_sweep.NAME / "ante_sweep_standard.png")
  assert figure["title"] == "standard Kuhn poker: solved vs closed form"
  assert [a["title"] for a in figure["axes"]] == [
      "P0 bets J (bluff) [0]", "P0 bets K [2]", "P0 calls with Q after check-bet [1pb]",
      "P1 bets J after a check (bluff) [0p]", "P1 calls a bet with Q [1b]",
      "game value / bet (player 0)"]
  regimes = ["passive", "P1 bluffs", "both bluff", "edge r=1/2", "Kuhn r=1"]
  for axes in figure["axes"]:
    assert axes["xlabel"] == "r = ante / bet (log scale)" and axes["xscale"] == "log"
    assert axes["ylabel"] in ("probability of betting", "probability of calling",
                              "game value / bet (bets per hand)")
    assert "closed form" in axes["lines"]
    # The two sweeps' points, and the family band in the panels where the family is wide over a
    # range of r (a panel whose family is a curve draws no band).
    assert axes["collections"] >= 2
    # Every regime named, in the strip above the data (tested in test_plotting).
    assert sorted(axes["texts"]) == sorted(regimes)
  assert sum(axes["collections"] >= 3 for axes in figure["axes"]) >= 1
  # Information state "1b" (player 1 facing a bet): action 1 is a call.
  assert figure["axes"][4]["ylabel"] == "probability of calling"
  [legend] = figure["legends"]  # One legend, below the panels, over none of them.
  assert legend["overlaps"] == []
  assert set(legend["entries"]) == {
      "closed form", "closed-form family (any point is an equilibrium)",
      "closed-form family at a point regime (r = 1/2, 1)",
      "CFR+ (ours), ante sweep (ante varies, bet 1)", "CFR+ (ours), bet sweep (bet varies, ante 1)"}
  simplified = plotting.read_figure_summary(out / ante_sweep.NAME / "ante_sweep_simplified.png")
  assert sorted(simplified["axes"][0]["texts"]) == ["bluffing", "edge r=1/2", "passive"]


# Another deck (--deck-size): the value against the LP or the continuous limit, on range vectors
# from 13 cards on.

def test_sweep_games_and_curves_on_another_deck():
  assert ante_sweep.sweep_games([0.5], [], deck_size=1000) == [
      ("kuhn_poker_ante(ante=0.5,bet=1.0,deck_size=1000)", "ante"),
      ("kuhn_poker_ante(ante=0.5,bet=1.0,deck_size=1000,simplified=True)", "ante")]
  assert ante_sweep.quantities(False, 1000) == {ante_sweep.VALUE: "game value / bet (player 0)"}
  # The continuous limit at r = 1 (algorithms/exact/continuous_kuhn.py's docstring): -1/18 with
  # standard rules, von Neumann's B / ((B + 1)(B + 4)) = 1/10 simplified.
  for simplified, value in ((False, -1 / 18), (True, 1 / 10)):
    curves = ante_sweep.closed_form_curves(simplified, 1000)
    assert set(curves.quantity) == {ante_sweep.VALUE}
    at_one = curves.iloc[(curves.r - 1.0).abs().argmin()]
    assert at_one.low == at_one.high == pytest.approx(value, abs=1e-3)  # r within 1% of 1.


def test_command_on_a_thousand_cards(tmp_path):
  out = tmp_path / "results"
  assert cli.main(["ante-sweep", "--quiet", "--deck-size", "1000", "--ante", "1.0", "--bet",
                   "4.0", "--iterations", "200", "--out", str(out)]) == 0
  record = report.load_sections(out, [ante_sweep.NAME])[0]
  assert record.status == "PASS"
  # 4 games (ante 1 and bet 4, both rule sets), exploitability and value each, on range vectors
  # and against the continuous limit (a deck too large for OpenSpiel's walk and the LP).
  checks = record.section.checks
  assert len(checks) == 4 * 2 and all(c.passed for c in checks)
  assert sum("continuous limit" in c.source for c in checks) == 4
  assert sum("range-vector best responses" in c.source for c in checks) == 4
  saved = [jobs.JobResult.from_json(json.loads(p.read_text()))
           for p in (out / ante_sweep.NAME / "jobs").glob("*.json")]
  assert len(saved) == 4 and {r.solved.engine for r in saved} == {"range"}
  figure = plotting.read_figure_summary(out / ante_sweep.NAME / "ante_sweep_standard.png")
  assert figure["title"] == "standard Kuhn poker, 1000 cards: solved value vs the continuous limit"
  [axes] = figure["axes"]
  assert axes["title"] == "game value / bet (player 0)"
  assert "continuous limit (N -> infinity)" in axes["lines"]


@pytest.mark.parametrize("bad", ["1", "2.5", "x"])
def test_command_rejects_a_bad_deck(tmp_path, capsys, bad):
  assert cli.main(["ante-sweep", "--deck-size", bad, "--out", str(tmp_path)]) == 2
  assert "argument --deck-size: expected a deck of at least 2 cards (an integer >= 2), got" in (
      capsys.readouterr().err)
  assert not (tmp_path / ante_sweep.NAME).exists()
