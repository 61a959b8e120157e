"""Tests of the large-deck experiment (experiments/commands/large_deck/): the targets, the solves
against the LP and the continuous closed forms, the distances and rates, the fresh-process
measurement, the checks, the figures, the command line and its quick run."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from algorithms.exact import continuous_kuhn
from algorithms.exact import deck_thresholds
from algorithms.exact import sequence_form_lp
from experiments import cli
from experiments.commands import large_deck
from experiments.commands.large_deck import captions
from experiments.commands.large_deck import checks
from experiments.commands.large_deck import footprint
from experiments.commands.large_deck import frames
from experiments.commands.large_deck import limit_figures
from experiments.commands.large_deck import limits
from experiments.commands.large_deck import plan
from experiments.commands.large_deck import rate_figures
from experiments.commands.large_deck import solve
from experiments.commands.large_deck import stakes
from experiments.commands.large_deck import sweep
from experiments.harness import plotting
from experiments.harness import report
import helpers

DECKS = (13, 25, 100, 1000)  # The quick sweep's decks: each solve to 1e-6 well under a second.
TARGET = 1e-6


@pytest.fixture(scope="module")
def records():
  return [solve.finish(solve.solve(solve.Spec(n, plan.MAIN_RATIO, simplified, "range", TARGET)))
          for simplified in plan.RULE_SETS for n in DECKS]


@pytest.fixture(scope="module")
def solves(records):
  return frames.solves_frame(records, sweep.lp_values(records))


def test_targets_shrink_with_the_deck_as_the_plan_states():
  # plan.py: epsilon(N) = min(1e-7, kappa / N), kappa = 1e-4 (simplified), 1e-2 (standard).
  assert plan.target(1000, True) == 1e-7
  assert plan.target(10_000, True) == pytest.approx(1e-8, rel=1e-12)
  assert plan.target(100_000, True) == pytest.approx(1e-9, rel=1e-12)
  assert plan.target(100_000, False) == pytest.approx(1e-7, rel=1e-12)
  assert plan.decks_up_to(plan.DECKS.default, 5000) == (13, 25, 50, 100, 250, 1000, 5000)
  assert [plan.short(x) for x in (1e-7, 2e-10, 1e-2)] == ["1e-7", "2e-10", "1e-2"]
  ratios = plan.stakes_ratios(15)
  assert ratios[0] == pytest.approx(0.1, rel=1e-12) and ratios[-1] == pytest.approx(10, rel=1e-12)
  assert ratios[7] == pytest.approx(1.0, rel=1e-12)  # r = 1 in the middle of an odd count.


def test_flat_limit_is_the_engines_history_limit():
  # The flat engine refuses trees over 2,000,000 histories (algorithms/tree/game_tree.py):
  # 471 cards fit, 472 do not (9 N^2 - 8 N + 1 histories, standard rules).
  fits = solve.Spec(plan.FLAT_LARGEST_DECK, 1.0, False, "flat", 1e-7).game().num_histories()
  over = solve.Spec(plan.FLAT_LARGEST_DECK + 1, 1.0, False, "flat", 1e-7).game().num_histories()
  assert fits <= 2_000_000 < over


def test_continuous_references_are_von_neumanns_and_kuhns():
  # continuous_kuhn's docstring: at a = b, von Neumann's value 1/10 with alpha = 1/10,
  # beta = 7/10, gamma = 2/5; the standard twin's value -1/18 (Kuhn's three-card value).
  assert limits.value(1.0, True) == pytest.approx(0.1, abs=1e-15)
  assert limits.value(1.0, False) == pytest.approx(-1 / 18, abs=1e-15)
  assert limits.thresholds(1.0, True) == pytest.approx(
      {"p0_bluff": 0.1, "p0_value": 0.7, "p1_call": 0.4}, abs=1e-15)
  assert limits.threshold_names(False) == ("p0_bluff", "p0_value", "p1_call", "p0_call",
                                           "p1_bluff", "p1_value")


def test_distances_resolve_a_gap_only_outside_the_certified_interval():
  thresholds = limits.thresholds(1.0, True)
  inside = limits.distances(100, 1.0, True, 0.1 - 1e-9, (0.1 + 1e-8, -0.1 + 1e-8), thresholds)
  assert not inside["value_resolved"]  # V = 0.1 lies in [-BR_1, BR_0] = [0.1 - 1e-8, 0.1 + 1e-8].
  assert inside["value_bound"] == pytest.approx(1e-8, rel=1e-6)
  assert inside["threshold_gap"] == 0.0
  shifted = dict(thresholds, p1_call=0.4 + 2 / 100)  # Two cards of a 100-card deck.
  outside = limits.distances(100, 1.0, True, 0.099, (0.0991, -0.0989), shifted)
  assert outside["value_resolved"] and outside["value_gap"] == pytest.approx(0.001, abs=1e-15)
  assert outside["threshold_gap_cards"] == pytest.approx(2.0, abs=1e-9)
  assert outside["worst_threshold"] == "p1_call"
  # V outside [0.0997, 0.0999] by 1e-4, less than its width 2e-4: |V - V_N| is only known to lie
  # in [1e-4, 3e-4], not resolved.
  near = limits.distances(100, 1.0, True, 0.0998, (0.0999, -0.0997), thresholds)
  assert not near["value_resolved"] and near["value_bound"] == pytest.approx(3e-4, abs=1e-15)


def test_power_law_fits_an_exact_power_law():
  cards = np.array([13.0, 100.0, 1000.0, 1e5])
  assert frames.power_law(cards, 0.111 / cards) == pytest.approx((1.0, 0.111), rel=1e-9)
  assert frames.power_law(cards, 0.3 / cards**2) == pytest.approx((2.0, 0.3), rel=1e-9)
  assert all(math.isnan(x) for x in frames.power_law(cards[:2], 1 / cards[:2]))
  assert all(math.isnan(x) for x in frames.power_law(cards, np.zeros(4)))


def test_solves_reach_the_target_and_agree_with_openspiel_and_the_lp(records, solves):
  for r in records:
    assert r.exploitability <= TARGET and r.spec.engine == "range"
    assert r.nash_conv == pytest.approx(2 * r.exploitability, abs=1e-12)
    # OpenSpiel's exploitability of the same average policy, up to plan.OPENSPIEL_MAX_CARDS.
    if r.spec.cards <= plan.OPENSPIEL_MAX_CARDS:
      assert r.openspiel_exploitability == pytest.approx(r.exploitability, abs=1e-9)
    else:
      assert r.openspiel_exploitability is None
  # -BR_1 <= V_N <= BR_0 for any profile of a zero-sum game; the LP's V_N is exact.
  small = solves[solves.cards <= plan.LP_MAX_CARDS]
  assert len(small) == 6 and solves[solves.cards > plan.LP_MAX_CARDS].lp_value.isna().all()
  for row in small.itertuples():
    lp = sequence_form_lp.solve_game(solve.Spec(row.cards, 1.0, row.rules == "simplified",
                                                "range", TARGET).game()).value
    assert row.lp_value == lp
    assert row.value_low - 1e-9 <= lp <= row.value_high + 1e-9


def test_solves_lie_near_the_continuous_game(solves):
  # The frames' references are continuous_kuhn's closed forms, field by field.
  for row in solves.itertuples():
    simplified = row.rules == "simplified"
    assert row.continuous_value == float(continuous_kuhn.game_value(1, 1, simplified))
    reference = continuous_kuhn.thresholds(1, 1, simplified).as_dict()
    for name, x in reference.items():
      assert getattr(row, f"{name}_limit") == float(x)
    assert row.value_gap == pytest.approx(row.continuous_value - row.value, abs=1e-15)
    # checks.py: within 3 cards and 0.08 (a + b) / N (+ NashConv) of the continuous game.
    assert row.threshold_gap_cards <= deck_thresholds.THRESHOLD_BAND
    assert abs(row.value_gap) <= 0.08 * 2 / row.cards + row.nash_conv
  standard = solves[solves.rules == "standard"]
  # deck_thresholds' docstring: V_N - V close to -b / (9 N) at r = 1 for the standard rules.
  assert (standard.cards * standard.value_gap).to_numpy() == pytest.approx(1 / 9, abs=0.01)


def test_checks_pass_and_fail_for_a_doctored_solve(solves):
  rates = frames.rates_frame(solves)
  found = checks.solve_checks(solves) + checks.series_checks(solves, rates)
  assert found and all(c.passed for c in found)
  assert {c.source for c in found if c.name.endswith("OpenSpiel")} == {
      "OpenSpiel exploitability of the same average policy"}
  doctored = solves.copy()
  doctored["value"] += 0.05  # 0.05 chips off: beyond 0.08 (a + b) / N + NashConv at 13 cards.
  doctored["threshold_gap"] = 4 / doctored.cards  # Four cards off: beyond THRESHOLD_CARDS.
  failed = [c.name for c in checks.solve_checks(doctored) if not c.passed]
  assert any("13 cards: player 0's value u_0 against the continuous game's V" in n for n in failed)
  assert any("largest threshold gap" in n for n in failed)
  assert any("value u_0 against the LP's V_N" in n for n in failed)


needs_peak_reset = pytest.mark.skipif(not footprint.MEASURABLE,
                                      reason="resetting a process's peak memory needs Linux")


@needs_peak_reset
def test_peak_since_reset_sees_a_new_array():
  baseline = footprint.reset_peak()
  block = np.ones(10_000_000)  # 80,000,000 bytes, touched.
  growth = footprint.peak_since_reset() - baseline
  del block
  assert 0.95 * 80e6 <= growth <= 80e6 + 8 * 2**20  # The array, and at most a few MiB more.


@needs_peak_reset
def test_fresh_process_computes_what_this_process_computes():
  spec = solve.Spec(13, 2.0, False, "range", 1e-5)
  here = solve.finish(solve.solve(spec))
  fresh = footprint.solve_in_fresh_process(spec)
  # Discounted CFR is deterministic: the same iterations give the same policy and values.
  assert fresh.spec == spec and fresh.iterations == here.iterations
  assert fresh.value == pytest.approx(here.value, abs=1e-12)
  assert fresh.thresholds == pytest.approx(here.thresholds, abs=1e-12)
  assert fresh.peak_bytes >= 0 and here.peak_bytes is None
  assert footprint.from_json(json.loads(json.dumps(footprint.to_json(fresh)))) == fresh


def test_fresh_process_failure_is_one_line():
  with pytest.raises(RuntimeError, match=r"^the fresh process solving .* failed: ValueError: "
                     r"DCFRSolver: engine must be one of .*; got 'tree'$"):
    footprint.solve_in_fresh_process(solve.Spec(13, 1.0, False, "tree", 1e-7))


def test_stakes_grid_against_the_closed_forms():
  grid, cpu = stakes.solve_grid(50, (0.5, 1.0, 4.0))
  assert len(grid) == 6 and cpu > 0
  for row in grid.itertuples():
    simplified = row.rules == "simplified"
    assert row.exploitability <= plan.STAKES_TARGET
    assert row.continuous_value == float(continuous_kuhn.game_value(row.ratio, 1, simplified))
    assert row.threshold_gap_cards <= deck_thresholds.THRESHOLD_BAND
  assert all(c.passed for c in checks.stakes_checks(grid))


def _lines(ax):
  return {line.get_label(): line for line in ax.get_lines()}


def test_limit_and_rates_figures(solves):
  fig = limit_figures.plot_limits(solves)
  threshold_axes, value_axes = fig.axes[0], fig.axes[1]
  assert threshold_axes.get_xscale() == "log" and threshold_axes.get_ylim() == (0, 1)
  assert threshold_axes.get_xlabel() == "deck size N (cards, log scale)"
  assert value_axes.get_ylabel() == limit_figures.RELATIVE_VALUE
  solved = _lines(threshold_axes)["player 0 bluffs below"]
  simplified = solves[solves.rules == "simplified"]
  assert list(solved.get_xdata()) == list(DECKS)
  assert list(solved.get_ydata()) == list(simplified.p0_bluff)
  # The value panel shows V_N / V with the limit 1 (V = 1/10 at r = 1, von Neumann).
  relative = _lines(value_axes)[limit_figures.value_label(1.0)].get_ydata()
  assert relative == pytest.approx(simplified.value.to_numpy() / 0.1, abs=1e-12)
  assert value_axes.get_title() == "simplified rules: player 0's value (V = 0.1 chips at r = 1)"
  legend = [t.get_text() for t in fig.legends[0].get_texts()]
  assert legend[-1] == limit_figures.LIMIT_LABEL and limit_figures.value_label(1.0) in legend
  rates = frames.rates_frame(solves)
  fig = rate_figures.plot_rates(solves, rates)
  ax_value, ax_threshold = fig.axes
  for ax in (ax_value, ax_threshold):
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
  assert ax_threshold.get_ylabel().startswith("largest threshold gap")
  standard = rates[(rates.rules == "standard")
                   & (rates.distance == frames.VALUE_DISTANCE)].iloc[0]
  fit = _lines(ax_value)[f"standard, r = 1: {rate_figures.fit_label(standard.k, standard.C)}"]
  assert fit.get_linestyle() == "--"
  assert fit.get_ydata()[0] == pytest.approx(standard.C * 13.0**-standard.k, rel=1e-12)
  assert "one card, 1/N" in _lines(ax_threshold)


def test_cost_figure_marks_bounds_and_the_flat_limit():
  cost = pd.DataFrame({
      "engine": ["range", "range", "flat", "flat"], "cards": [1000, 100_000, 13, 200],
      "cpu_seconds": [0.1, 20.0, 0.05, 2.0], "iterations": [1000, 2000, 500, 1000],
      "peak_mib": [np.nan, 50.0, 0.2, 60.0], "peak_resolved": [False, True, False, True],
      "estimate_mib": [0.6, 61.0, 0.27, 68.4], "target": [1e-7] * 4})
  fig = rate_figures.plot_cost(cost)
  ax_time, ax_memory = fig.axes
  assert ax_time.get_ylabel() == "CPU time per iteration (s, log scale)"
  assert ax_memory.get_ylabel() == "peak memory added by the solve (MiB, log scale)"
  lines = _lines(ax_memory)
  assert list(lines["range engine"].get_ydata()) == [50.0]  # Only the measured, resolved one.
  assert list(lines["flat engine's estimate"].get_ydata()) == [0.27, 68.4]
  bounds = [ln for ln in ax_memory.get_lines() if ln.get_marker() == rate_figures.BOUND_MARKER
            and len(ln.get_xdata())]
  assert [list(ln.get_xdata()) for ln in bounds] == [[13]]  # Measured below the resolution.
  assert list(_lines(ax_time)["range engine"].get_ydata()) == [1e-4, 1e-2]
  assert any(t.get_text().startswith("flat engine's limit, 471") for t in ax_time.texts)


@pytest.mark.parametrize("option, value, allowed", [
    ("--max-cards", "12", "an integer from 13 to 1,000,000"),
    ("--flat-max-cards", "500", "an integer from 13 to 471"),
    ("--stakes-cards", "x", "an integer from 13 to 1,000,000"),
    ("--stakes-points", "2", "an integer from 3 to 101"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, option, value, allowed):
  out = tmp_path / "out"
  assert cli.main([large_deck.NAME, option, value, "--out", str(out)]) == 2
  err = capsys.readouterr().err.strip().splitlines()
  assert err[-1].startswith(f"{cli.PROG} {large_deck.NAME}: error: argument {option}: expected "
                            f"{allowed}")
  assert not out.exists()


@pytest.mark.slow
def test_quick_run_end_to_end(tmp_path):
  # ~15 s: the --quick section, its tables against continuous_kuhn, its checks and figures.
  assert cli.main([large_deck.NAME, "--quick", "--quiet", "--out", str(tmp_path)]) == 0
  folder = tmp_path / large_deck.NAME
  solves = pd.read_csv(folder / large_deck.SOLVES_TABLE)
  assert sorted(solves.cards.unique()) == list(plan.DECKS.quick)
  for row in solves.itertuples():
    simplified = row.rules == "simplified"
    assert row.continuous_value == pytest.approx(
        float(continuous_kuhn.game_value(row.ratio, 1, simplified)), abs=1e-15)
    assert row.exploitability <= row.target
  grid = pd.read_csv(folder / large_deck.STAKES_TABLE)
  assert len(grid) == 2 * plan.STAKES_POINTS.quick
  assert set(grid.cards) == {plan.STAKES_CARDS.quick}
  record = report.read_section(folder / report.SECTION_NAME)
  assert record.status == "PASS" and len(record.section.checks) > 50
  assert all(c.passed for c in record.section.checks)
  for name in (captions.LIMIT_FIGURE, captions.RATES_FIGURE, captions.COST_FIGURE,
               captions.STAKES_FIGURE):
    summary = plotting.read_figure_summary(folder / name)
    assert summary["title"] and all(a["xscale"] == "log" for a in summary["axes"])
    assert all(not legend["overlaps"] for legend in summary["legends"])
  table = helpers.compact_tables((folder / captions.DOCS_TABLE).read_text())
  assert "| rules | r = ante / bet | distance |" in table and "nan" not in table
