"""Tests of the three-player large-deck experiment: the structure readers on hand-made policies,
one solve against the flat engine and the published references, and the checks' verdicts."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from experiments import cli
from experiments.commands import three_player_large
from experiments.commands.three_player_large import checks
from experiments.commands.three_player_large import figures
from experiments.commands.three_player_large import frames
from experiments.commands.three_player_large import plan
from experiments.commands.three_player_large import solve


def test_components_merge_small_gaps_and_read_edges_and_mass():
  # 100 cards: bluffs 0-9 at 0.5, a mixed range 55-60 with one dip below epsilon, values 80-99.
  p = np.zeros(100)
  p[:10] = 0.5
  p[55:61] = 0.3
  p[57] = 0.0
  p[80:] = 1.0
  found = solve.components(p)
  assert [(c.low, c.high) for c in found] == [(0.0, 0.1), (0.55, 0.61), (0.8, 1.0)]
  assert found[0].mass == pytest.approx(0.05)
  assert found[1].mass == pytest.approx(5 * 0.3 / 100)
  assert found[2].mass == pytest.approx(0.2)


def test_value_share_removes_the_bettors_card():
  # A caller with every card calling: a bettor of card 5 of 10 beats 5 of the 9 cards left.
  assert solve.value_share(0.55, np.ones(10)) == pytest.approx(5 / 9)
  # A caller calling only with the bettor's own card never calls: nan (no bluff possible).
  only = np.zeros(4)
  only[3] = 1.0
  assert math.isnan(solve.value_share(0.8, only))


@pytest.fixture(scope="module")
def thirteen():
  return solve.solve(13, plan.MAIN_POT, flat=True)


def test_range_nash_conv_equals_the_flat_engines_on_the_same_policy(thirteen):
  assert thirteen.nash_conv == pytest.approx(thirteen.flat_nash_conv, abs=1e-9)
  assert sum(thirteen.values) == pytest.approx(0.0, abs=1e-12)  # zero-sum


def test_thirteen_cards_are_certified_and_show_the_mid_range_bet(thirteen):
  # Billingham, arXiv 1802.04670 (abstract): for N > 5 a mid-range bet, a bluff against one
  # player and a value bet against the other; certified by NashConv (measured 3.7e-5).
  assert thirteen.nash_conv <= checks.CERTIFIED_NASH_CONV
  row = frames.solves_frame([thirteen], frames.DECK_SWEEP).iloc[0]
  assert row.mid_range_bet
  assert 0.3 < row.mid_range_low < row.mid_range_high < 0.75


@pytest.fixture(scope="module")
def four():
  return solve.solve(4, plan.MAIN_POT, openspiel=True)


def test_four_cards_sit_on_the_family_and_have_no_mid_range_bet(four):
  found = checks.family_checks([four])
  assert len(found) == 3 and all(c.passed for c in found)
  table = frames.solves_frame([four], frames.DECK_SWEEP)
  paper = checks.paper_checks(table)
  assert len(paper) == 1 and paper[0].passed and paper[0].value == 0.0
  assert four.nash_conv == pytest.approx(four.openspiel_nash_conv, abs=1e-9)


def test_a_wrong_value_fails_the_family_check(four):
  shifted = dataclasses.replace(four, values=(four.values[0] + 0.05, four.values[1],
                                              four.values[2] - 0.05))
  assert not all(c.passed for c in checks.family_checks([shifted]))


def test_rate_fit_recovers_a_power_law():
  n = np.array([13, 50, 100, 300, 1000])
  fit = frames.fit_rate(n, 0.2 * n ** -1.0)
  assert fit["k"] == pytest.approx(1.0) and fit["C"] == pytest.approx(0.2)


@pytest.mark.parametrize("value", ["3", "1000001", "x"])
def test_a_bad_max_cards_is_a_one_line_error(tmp_path, capsys, value):
  out = tmp_path / "out"
  assert cli.main([three_player_large.NAME, "--max-cards", value, "--out", str(out)]) == 2
  err = capsys.readouterr().err.strip().splitlines()
  assert err[-1].startswith(f"{cli.PROG} {three_player_large.NAME}: error: argument --max-cards: "
                            "expected an integer from 4 to 1,000,000, got")
  assert not out.exists()


def test_the_structure_figure_gives_every_deck_its_own_labelled_slot():
  # Decks 4 to 8 sit within 0.7 of each other on a log axis, where their labels overlapped: each
  # deck gets one equal slot, labelled, in every panel, and its bars and points sit on it.
  decks = (4, 5, 6, 8, 10_000)
  rows = [{"cards": n, "node": node, "component": 0, "low": 0.1, "high": 0.2,
           "kind_first": "bluff", "kind_second": "bluff"}
          for n in decks for node in ("(open)", "p", "pp", "b")]
  fig = figures.plot_structure(pd.DataFrame(rows), "cards")
  for ax in fig.axes[:4]:
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4", "5", "6", "8", "10,000"]
    assert list(ax.get_xticks()) == [0, 1, 2, 3, 4] and ax.get_xlim() == (-0.6, 4.6)
  assert sorted(p.get_x() + p.get_width() / 2 for p in fig.axes[0].patches) == pytest.approx(
      [0, 1, 2, 3, 4])
  assert list(fig.axes[3].get_lines()[0].get_xdata()) == [0, 1, 2, 3, 4]
  assert fig.axes[0].get_xlabel() == "deck size N (one slot per deck, not to scale)"
