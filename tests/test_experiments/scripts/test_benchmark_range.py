"""The range-engine benchmark (experiments/scripts/benchmark_range.py): the consistency of its
numbers, never its speed.

References: the flat engine's average policy (the range engine's must equal it to 1e-12 where no
regret ties at the uniform start, ``game_loader.uniform_profile_ties``); the target
exploitability 1e-6, measured by the range engine's exact best response (itself checked against
OpenSpiel's in tests/test_algorithms/cfr/test_range_engine.py).
"""

import math

import pytest

from experiments.scripts import benchmark_range


@pytest.fixture(scope="module")
def quick_rows():
  return benchmark_range.main(["--quick"])


@pytest.mark.slow  # the quick run: 8 rates of 3 x 0.1 CPU s each, and a 2,000-card run
def test_quick_run_agrees_and_reports_finite_ratios(quick_rows):
  agreement, speed, large = quick_rows
  # Both rule sets of every quick deck, none with ties: all checked, all within 1e-12.
  assert len(agreement) == 2 * len(benchmark_range.QUICK_AGREEMENT_DECKS)
  for row in agreement:
    assert row.ties == 0 and row.agrees
    assert 0 <= row.difference <= benchmark_range.AGREEMENT_TOLERANCE
  assert [(s.cards, s.simplified) for s in speed] == [
      (n, simplified) for n in benchmark_range.QUICK_DECKS for simplified in (False, True)]
  for row in speed:
    assert row.flat > 0 and row.range > 0
    assert math.isfinite(row.ratio) and row.ratio == row.range / row.flat
    assert row.target == benchmark_range.SPEED_TARGETS.get(row.cards)
    assert (row.met is None) == (row.target is None)
  [deck] = large
  assert deck.cards == benchmark_range.QUICK_LARGE_DECKS[0] and deck.target is None
  assert 0 < deck.exploitability <= benchmark_range.TARGET_EXPLOITABILITY
  assert deck.iterations > 0 and deck.iterations % benchmark_range.CHECK_EVERY == 0
  assert deck.cpu_seconds > 0 and deck.peak_bytes >= deck.run_bytes >= 0


@pytest.mark.slow
def test_tables_mark_targets_met_or_missed(quick_rows, capsys):
  benchmark_range.print_rows(quick_rows)
  out = capsys.readouterr().out
  for row in quick_rows.speed:
    verdict = "-" if row.met is None else "met" if row.met else "missed"
    assert f"| {row.ratio:.1f} | " in out and out.count(f"| {verdict} |") >= 1
  assert "not checked (ties)" not in out and "| NO |" not in out
  assert benchmark_range.exit_status(quick_rows) == 0
  disagreeing = benchmark_range.Agreement("g", 0, 1e-9)
  assert benchmark_range.exit_status(quick_rows._replace(agreement=[disagreeing])) == 1


def test_large_deck_rows_judge_time_and_memory():
  row = benchmark_range.LargeDeck(100_000, False, 300, 5.0, 9e-7, 3 * 10**8, 10**8)
  assert row.met
  assert not benchmark_range.LargeDeck(100_000, False, 300, 5.0, 9e-7, 3 * 10**9, 10**8).met
  assert not benchmark_range.LargeDeck(10_000, False, 300, 61.0, 9e-7, 10**8, 10**7).met
  assert not benchmark_range.LargeDeck(10_000, False, 10**5, 5.0, 2e-6, 10**8, 10**7).met


def test_bad_arguments_are_refused(capsys):
  with pytest.raises(SystemExit) as exit_info:
    benchmark_range.parse_args(["--repeats", "0"])
  assert exit_info.value.code == 2
  assert "--repeats must be > 0, got 0" in capsys.readouterr().err
