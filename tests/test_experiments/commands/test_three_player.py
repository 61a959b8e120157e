"""Tests of experiments.commands.three_player: the sweep, its checks, the family analysis and the
figures."""

import copy
import fractions
import re

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel
import pytest

from algorithms.exact import kuhn3_equilibria
from experiments import cli
from experiments.commands import three_player
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import plotting
from experiments.harness import references
from experiments.harness import solver_registry
from experiments.harness import solver_runs
from experiments.harness.context import Context
import helpers

Fraction = fractions.Fraction
GAMES = list(three_player.DEFAULT_GAMES)
SOLVERS = ["our_cfr", "our_cfr_plus", "cs_cfr", "cfr_cpp"]
T = 100  # The smallest T checked against the n-player tolerances (MIN_CHECKED_ITERATIONS).
PYTHON_T = 5


def test_make_jobs_budgets_seeds_and_trajectory():
  made = three_player.make_jobs(GAMES, SOLVERS, seed=3, num_seeds=2, iterations=T,
                                python_iterations=PYTHON_T)
  budgets = {(j.game, j.solver, j.seed): j.iterations for j in made if j.measure_at}
  factor = solver_registry.SAMPLED_BUDGET_FACTOR
  # Engine solvers: T on every game; sampled ones 10 T with seeds 3 and 4; OpenSpiel's C++ CFR:
  # T on OpenSpiel's C++ game, PYTHON_T on the Python games.
  assert budgets[("kuhn_poker_ante(players=3)", "our_cfr", 3)] == T
  assert budgets[("kuhn_poker(players=3)", "cs_cfr", 4)] == factor * T
  assert budgets[("kuhn_poker(players=3)", "cfr_cpp", 3)] == T
  assert budgets[("kuhn_poker_ante(players=3)", "cfr_cpp", 3)] == PYTHON_T
  assert budgets[(three_player.NON_UNIT_GAME, "cfr_cpp", 3)] == PYTHON_T
  assert len(budgets) == 3 * (3 + 2)
  # Every run also at T / 10, keeping the policy; the run to T is measured at log-spaced points
  # including PYTHON_T (the comparison of OpenSpiel's C++ CFR with the engine's).
  cfr = [j for j in made if (j.game, j.solver) == ("kuhn_poker(players=3)", "our_cfr")]
  assert [j.iterations for j in cfr] == [T // 10, T]
  assert all(j.keep_policy for j in made)
  assert cfr[0].measure_at == () and PYTHON_T in cfr[1].measure_at and cfr[1].measure_at[-1] == T


def test_make_jobs_refuses_a_two_player_solver():
  with pytest.raises(ValueError, match="cfr_avg_d1 .* needs a two-player zero-sum game"):
    three_player.make_jobs(GAMES[:1], ["cfr_avg_d1"], 0, 1, T, PYTHON_T)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
  ctx = Context(three_player.NAME, tmp_path_factory.mktemp("three_player"))
  return ctx.run_jobs(three_player.make_jobs(GAMES, SOLVERS, seed=0, num_seeds=2, iterations=T,
                                             python_iterations=PYTHON_T))


@pytest.fixture(scope="module")
def nearest(results):
  return three_player.nearest_members(results)


@pytest.fixture(scope="module")
def runs(results, nearest):
  return three_player.runs_frame(results, nearest)


def test_checks_pass_and_cover_identity_and_openspiel(results, nearest):
  found = three_player.run_checks(results, nearest)
  assert found and all(c.passed for c in found), [c for c in found if not c.passed]
  names = [c.name for c in found]
  # One game, one tree: the engine's runs on both family games agree, sampled ones seed by seed.
  assert ("cs_cfr seed 1 T=1000: value of player 2 on kuhn_poker_ante(players=3) = on "
          "kuhn_poker(players=3)") in names
  # OpenSpiel's C++ CFR against the engine's CFR, at T on its C++ game and at PYTHON_T on ours.
  assert f"kuhn_poker(players=3) cfr_cpp vs our_cfr: NashConv at T={T}" in names
  assert f"kuhn_poker_ante(players=3) cfr_cpp vs our_cfr: NashConv at T={PYTHON_T}" in names
  assert f"{three_player.NON_UNIT_GAME} our_cfr T={T}: NashConv" in names
  # The family's value check only where the family applies.
  family = [n for n in names if "nearest family member" in n]
  assert family and not any(three_player.NON_UNIT_GAME in n for n in family)
  # Below MIN_CHECKED_ITERATIONS only the two computations of NashConv are compared.
  assert not any(f"T={PYTHON_T}: NashConv" == n.split(" ", 2)[-1] for n in names)


def test_checks_fail_for_a_doctored_run(results, nearest):
  # Negative controls: a run whose values are moved 0.05 off its nearest member's (tolerance at
  # T = 100: (max - min utility) / (32 sqrt(T)) = 6 / 320 = 0.019), and a run labelled with more
  # iterations than it ran (tolerance at T = 100000: 6 / (8 sqrt(T)) = 0.0024; it has 0.037).
  run = next(r for r in three_player.final_runs(results)
             if (r.job.game, r.job.solver) == ("kuhn_poker(players=3)", "our_cfr"))
  shifted = copy.deepcopy(run)
  shifted.solved.returns = [v + d for v, d in zip(run.values, (0.05, -0.05, 0.0))]
  failed = [c.name for c in three_player.run_checks([shifted], {shifted.job: nearest[run.job]})
            if not c.passed]
  assert len(failed) == 1 and "players' values - nearest family member's" in failed[0]
  relabelled = jobs.JobResult(jobs.Job(run.job.experiment, run.job.game, run.job.solver, 0,
                                       100_000, run.job.measure_at, True),
                              run.solved, computed_by={}, finished="", wall_seconds=0.0)
  failed = [c.name for c in three_player.run_checks([relabelled], {}) if not c.passed]
  assert failed == ["kuhn_poker(players=3) our_cfr T=100000: NashConv"]


def test_nash_conv_in_the_report_is_openspiels(results, runs):
  # The runs' NashConv (exact, on the game tree) against OpenSpiel's exploitability.nash_conv of
  # the kept average policy, recomputed here from the saved table.
  for r in three_player.final_runs(results)[:6]:
    game = game_loader.load_game(r.job.game, two_player_zero_sum=False)
    tabular = policy_lib.TabularPolicy(game)
    for state, probs in r.solved.policy.items():
      tabular.policy_for_key(state)[:] = probs
    row = runs[(runs.game == r.job.game) & (runs.solver == r.job.solver)
               & (runs.seed == r.job.seed) & (runs["T"] == r.job.iterations)].iloc[0]
    assert row.nash_conv == pytest.approx(exploitability.nash_conv(game, tabular), abs=1e-9)
    # Three-player Kuhn poker is zero-sum: the values sum to 0.
    assert row.value_0 + row.value_1 + row.value_2 == pytest.approx(0.0, abs=1e-12)


def test_cfr_approaches_a_member_and_player_1_gets_minus_one_48th(runs):
  # CFR+ at T = 100 on three-player Kuhn poker: within 0.1 of a member, and player 1's value
  # within 1e-3 of the family's -1/48 (Szafron, Gibson, Sturtevant, AAMAS 2013).
  final = runs[(runs.game == "kuhn_poker(players=3)") & (runs.solver == "our_cfr_plus")
               & (runs["T"] == T)].iloc[0]
  assert final.distance < 0.1 and final.nash_conv < 0.01
  assert final.value_1 == pytest.approx(-1 / 48, abs=1e-3)
  # The member's values follow the formulas of its beta.
  assert final.member_value_0 == pytest.approx(-1 / 48 - final.beta / 24, abs=1e-12)
  assert final.member_value_2 == pytest.approx(1 / 24 + final.beta / 24, abs=1e-12)


def test_nearest_member_of_a_member_is_itself():
  member = kuhn3_equilibria.kuhn3_equilibrium(c11=Fraction(1, 2), b11=Fraction(1, 5),
                                              b21=Fraction(1, 10), b23=Fraction(1, 20),
                                              b32=Fraction(1, 4))
  solved = solver_runs.Solved("NashConv", [1], [0.0], [0.0], 0.0, [0.0, 0.0, 0.0],
                              {s: [float(1 - p), float(p)]
                               for s, p in member.action_probabilities().items()})
  result = jobs.JobResult(jobs.Job("t", "kuhn_poker(players=3)", "our_cfr", 0, 1), solved,
                          computed_by={}, finished="", wall_seconds=0.0)
  nearest = references.nearest_kuhn3_member(result)
  assert nearest.member == member and nearest.distance == pytest.approx(0.0, abs=1e-9)


def test_log_slope_of_a_power_law():
  t = np.array([1, 10, 100, 200, 500, 1000, 2000])
  curve = pd.DataFrame({"iteration": t, "nash_conv": 3.0 * t ** -0.5})
  assert three_player.log_slope(curve) == pytest.approx(-0.5, abs=1e-12)


def test_nash_conv_figure(results):
  curves = three_player.curve_frame(results)
  fig = three_player.plot_nash_conv(curves, GAMES, SOLVERS)
  top, bottom = fig.axes[:3], fig.axes[3:6]
  assert [ax.get_title() for ax in top] == GAMES
  for ax in top + bottom:
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert ax.get_ylabel() in ("NashConv (chips per hand, log scale)", "")
  assert {ax.get_xlabel() for ax in top} == {"iterations T (log scale)"}
  assert {ax.get_xlabel() for ax in bottom} == {
      f"solver time ({solver_runs.SOLVER_TIME_UNIT}, log scale)"}
  legend = [t.get_text() for t in fig.legends[0].get_texts()]
  assert legend == [solver_registry.get_solver(s).label for s in SOLVERS] + [plotting.SQRT_GUIDE]
  for solver in SOLVERS:  # The solver's colour in every figure.
    line = next(ln for ln in top[0].get_lines()
                if ln.get_label() == solver_registry.get_solver(solver).label)
    assert line.get_color() == plotting.solver_style(solver)["color"]
  # The engine's CFR line is the measured curve.
  cfr = curves[(curves.game == GAMES[0]) & (curves.solver == "our_cfr")]
  line = next(ln for ln in top[0].get_lines() if ln.get_label() == "CFR (ours)")
  np.testing.assert_allclose(line.get_ydata(), cfr.nash_conv)
  assert "NashConv" in fig.get_suptitle()


def test_family_figure(runs):
  fig = three_player.plot_family(runs, SOLVERS)
  values, enlarged, player_1 = fig.axes
  segment = next(ln for ln in values.get_lines() if ln.get_label().startswith("family"))
  # The family's values (Szafron et al.): player 2 from 1/24 to 5/96, player 0 from -1/48 to -1/32.
  np.testing.assert_allclose(segment.get_xdata(), [1 / 24, 5 / 96])
  np.testing.assert_allclose(segment.get_ydata(), [-1 / 48, -1 / 32])
  assert values.get_xlabel().startswith("value of player 2")
  assert values.get_ylabel().startswith("value of player 0")
  guide = next(ln for ln in player_1.get_lines() if ln.get_label().startswith("family"))
  np.testing.assert_allclose(guide.get_ydata(), [-1 / 48, -1 / 48])
  assert player_1.get_xscale() == "log" and player_1.get_xlabel() == "iterations T (log scale)"
  legend = [t.get_text() for t in fig.legends[0].get_texts()]
  assert legend[0].startswith("family") and "CFR (ours)" in legend
  # Final points: one per (solver, seed) on the family's games, OpenSpiel's C++ CFR from its C++
  # game (its run on the Python game is short), the engine's from one of the two identical games.
  finals = [ln for ln in values.get_lines() if ln.get_markersize() >= 8]
  assert len(finals) == 1 + 1 + 2 + 1  # CFR, CFR+, chance sampling x 2 seeds, C++ CFR.
  # The middle panel enlarges the family's segment with the same runs.
  assert len(enlarged.get_lines()) == len(values.get_lines())
  assert enlarged.get_xlim()[0] < 1 / 24 and enlarged.get_xlim()[1] > 5 / 96


def test_family_figure_names_the_seeds_and_hides_no_run(runs):
  fig = three_player.plot_family(runs, SOLVERS)
  values = fig.axes[0]
  # A second legend maps each seed to its marker; the deterministic solvers run with seed 0.
  seeds = fig.legends[1]
  assert [t.get_text() for t in seeds.get_texts()] == [
      "seed 0 (and every deterministic solver)", "seed 1"]
  assert [h.get_marker() for h in seeds.legend_handles] == ["o", "s"]
  summary = plotting.describe_figure(fig)
  assert summary["legends"][1]["entries"][1] == "seed 1"
  assert summary["legends"][1]["overlaps"] == []  # Outside the data.
  # Final points: hollow, marker = seed; two at one point (OpenSpiel's C++ CFR = our CFR, same
  # values) differ in size, so the one drawn over the other leaves it visible.
  finals = [ln for ln in values.get_lines() if ln.get_markersize() >= 8]
  assert all(ln.get_markerfacecolor() == "none" for ln in finals)
  cs_markers = {ln.get_marker() for ln in finals
                if ln.get_color() == plotting.solver_style("cs_cfr")["color"]}
  assert cs_markers == {"o", "s"}
  at = {}
  for ln in finals:
    point = (round(ln.get_xdata()[0], 9), round(ln.get_ydata()[0], 9))
    at.setdefault(point, []).append(ln.get_markersize())
  shared = [sizes for sizes in at.values() if len(sizes) > 1]
  assert shared and all(len(set(sizes)) == len(sizes) for sizes in shared)


def test_values_figure_of_the_non_unit_game(runs):
  fig = three_player.plot_values(runs, three_player.NON_UNIT_GAME, SOLVERS)
  assert len(fig.axes) == 3
  assert [ax.get_ylabel() for ax in fig.axes] == [
      f"value of player {p} (chips per hand)" for p in range(3)]
  legend = [t.get_text() for t in fig.legends[0].get_texts()]
  # OpenSpiel's C++ CFR ran only PYTHON_T iterations on this Python game: not drawn.
  assert legend == ["CFR (ours)", "CFR+ (ours)", "chance-sampling CFR (ours)"]
  assert "no published equilibrium" in fig.get_suptitle()
  seeds = plotting.describe_figure(fig)["legends"][1]["entries"]
  assert seeds == ["seed 0 (and every deterministic solver)", "seed 1"]
  assert all(ln.get_markerfacecolor() == "none" for ax in fig.axes for ln in ax.get_lines())


def test_summary_and_member_tables(runs, results):
  summary = three_player.summary_frame(runs, three_player.curve_frame(results))
  # The engine's runs on kuhn_poker_ante(players=3) repeat those on kuhn_poker(players=3).
  ours = summary[summary.game == "kuhn_poker_ante(players=3)"]
  assert list(ours.solver) == ["cfr_cpp"]
  assert (summary[summary.game == three_player.NON_UNIT_GAME]["nearest member"] == "-").all()
  members = three_player.member_frame(runs).set_index("solver")
  assert set(members.index) == {solver_registry.get_solver(s).label for s in SOLVERS}
  assert members.loc["chance-sampling CFR (ours)", "seeds"] == 2
  assert members.loc["CFR+ (ours)", "T"] == T
  for text in members["sub-family"]:
    assert set(text.split(", ")) <= set(kuhn3_equilibria.SUB_FAMILIES)


def test_report_markdown_has_no_nan_and_headers_in_words(runs, results):
  summary = three_player.summary_frame(runs, three_player.curve_frame(results))
  markdown = three_player.report_markdown("intro", three_player.member_frame(runs), summary,
                                          ["caption"])
  assert not re.search(r"\bnan\b", markdown, re.IGNORECASE)
  lines = helpers.compact_tables(markdown).splitlines()
  headers = [[c.strip() for c in lines[k - 1].strip("|").split("|")]
             for k, line in enumerate(lines) if k and re.fullmatch(r"\|( :?-+:? \|)+", line)]
  assert len(headers) == 2  # The family members and every run.
  for cells in headers:
    for cell in cells:
      assert not re.fullmatch(r"[a-z]+(_[a-z]+)+", cell), cell
      assert cell not in ("T", "NashConv", "P0 value", "P2 value", "values", "distance",
                          "slope"), cell
  assert "iterations T" in headers[0] and "NashConv (chips per hand)" in headers[1]
  # The game without a family: its member cells are missing values with a footnote; the frame
  # (and so the CSV) keeps "-".
  rows = [line for line in lines if line.startswith(f"| {three_player.NON_UNIT_GAME} |")]
  assert rows and all(line.endswith("| n/a | n/a |") for line in rows)
  assert "n/a in nearest member: no published equilibrium family for this game" in markdown
  assert (summary[summary.game == three_player.NON_UNIT_GAME]["distance"] == "-").all()


@pytest.mark.slow
def test_cli_quick_run(tmp_path):
  # ~10 s: the section at --quick, every figure saved with its description.
  from experiments.harness import plotting  # pylint: disable=g-import-not-at-top
  assert cli.main(["three-player", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
  folder = tmp_path / three_player.NAME
  summary = plotting.read_figure_summary(folder / "three_player_family.png")
  assert summary["title"].startswith("Three-player Kuhn poker: values")
  assert any(legend["entries"][:1] == ["seed 0 (and every deterministic solver)"]
             for legend in summary["legends"])
  report = (tmp_path / "report.md").read_text()
  assert "NashConv" in report and "Szafron-Gibson-Sturtevant" in report
  assert (folder / "three_player_summary.csv").exists()


def test_cli_rejects_a_two_player_solver(tmp_path, capsys):
  assert cli.main(["three-player", "--solver", "cfr_d_d1", "--out", str(tmp_path / "x")]) == 2
  err = capsys.readouterr().err
  assert "needs a two-player zero-sum game" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("game, players", [("leduc_poker", 2), ("kuhn_poker(players=4)", 4)])
def test_cli_refuses_a_game_without_three_players_before_any_work(tmp_path, capsys,
                                                                  monkeypatch, game, players):
  def no_work(*_args, **_kwargs):
    raise AssertionError("a job ran")

  monkeypatch.setattr(Context, "run_jobs", no_work)
  out = tmp_path / "x"
  assert cli.main(["three-player", "--game", three_player.FAMILY_GAMES[0], "--game", game,
                   "--quick", "--out", str(out)]) == 2
  err = capsys.readouterr().err
  assert len(err.strip().splitlines()) == 1
  assert err.startswith(f"{cli.PROG} three-player: error: game {game} has {players} players")
  assert not out.exists()  # Nothing written.
  with pytest.raises(ValueError, match=f"game {re.escape(game)} has {players} players"):
    three_player.make_jobs([game], SOLVERS, 0, 1, T, PYTHON_T)


def test_game_strings_of_the_family():
  for game in three_player.FAMILY_GAMES:
    assert references.has_kuhn3_family(pyspiel.load_game(game))
  assert not references.has_kuhn3_family(pyspiel.load_game(three_player.NON_UNIT_GAME))
  assert not references.has_kuhn3_family(pyspiel.load_game("kuhn_poker(players=4)"))
