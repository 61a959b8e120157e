"""Tests of the strategy-tables experiment (experiments/commands/strategy_tables.py)."""

import fractions

import numpy as np
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel
import pytest

from algorithms.exact import kuhn3_equilibria
from experiments import cli
from experiments.commands import strategy_tables
from experiments.harness import policies
from experiments.harness import tables

Fraction = fractions.Fraction


@pytest.fixture(scope="module")
def kuhn():
  return pyspiel.load_game("kuhn_poker_ante")


@pytest.fixture(scope="module")
def cfr_policy(kuhn):
  return policies.make_policy(kuhn, "cfr:300")


def test_information_states_of_kuhn_poker():
  # OpenSpiel's kuhn_poker: 12 information states, "card" then "p"/"b" history.
  states = strategy_tables.information_states(pyspiel.load_game("kuhn_poker"))
  assert len(states) == 12
  assert states["0pb"] == (0, 0, "pb")
  assert states["2b"] == (1, 2, "b")
  assert states["1"] == (0, 1, "")


def test_table_of_the_equilibrium_matches_kuhn_1950(kuhn):
  equilibrium = policies.make_policy(kuhn, "equilibrium")
  uniform = policies.make_policy(kuhn, "uniform")
  frame = strategy_tables.strategy_table(kuhn, equilibrium, uniform).set_index(
      ["info_state", "action"])
  assert len(frame) == 24
  # Against the uniform policy as the reference column, the difference is the probability - 1/2.
  np.testing.assert_allclose(frame["difference"], frame["probability"] - 0.5, atol=1e-15)
  # Kuhn (1950): player 1 calls a bet with the queen w.p. 1/3 and bluffs the jack after a check
  # w.p. 1/3; nobody calls with the jack; the king always calls.
  assert frame.loc[("1b", "Call"), "probability"] == pytest.approx(1 / 3, abs=1e-12)
  assert frame.loc[("0p", "Bet"), "probability"] == pytest.approx(1 / 3, abs=1e-12)
  assert frame.loc[("0b", "Call"), "probability"] == 0.0
  assert frame.loc[("2pb", "Call"), "probability"] == 1.0
  assert frame.loc[("0", "Check"), "card"] == "J"
  assert frame.loc[("1pb", "Fold"), "betting"] == "Check, Bet"


def test_reference_is_the_nearest_member_of_kuhns_family(kuhn, cfr_policy):
  reference = strategy_tables.reference_for(kuhn, cfr_policy)
  alpha = cfr_policy.policy_for_key("0")[1]
  assert 0 <= alpha <= 1 / 3  # CFR's bluff frequency lies in Kuhn's range here.
  # The member with the same alpha: player 0 bets the king w.p. 3 alpha, calls with the queen
  # w.p. alpha + 1/3 (Kuhn 1950).
  assert reference.policy.policy_for_key("0")[1] == pytest.approx(alpha, abs=1e-12)
  assert reference.policy.policy_for_key("2")[1] == pytest.approx(3 * alpha, abs=1e-12)
  assert reference.policy.policy_for_key("1pb")[1] == pytest.approx(alpha + 1 / 3, abs=1e-12)
  assert reference.value == pytest.approx(-1 / 18, abs=1e-15)


def test_checks_pass_for_cfr(kuhn, cfr_policy):
  reference = strategy_tables.reference_for(kuhn, cfr_policy)
  checks = strategy_tables.table_checks(kuhn, "cfr:300", cfr_policy, reference)
  assert all(c.passed for c in checks), checks
  # Negative control: every policy's value lies within its NashConv of the true game value, so
  # the value check can only fail against a wrong reference value: shift it by 0.5.
  wrong = strategy_tables.references.Reference(reference.policy, reference.value + 0.5, "wrong")
  failed = [c for c in strategy_tables.table_checks(kuhn, "cfr:300", cfr_policy, wrong)
            if not c.passed]
  assert [c.name for c in failed] == [f"strategy table {kuhn}: value of cfr:300"]


def test_simplified_game_uses_pass_and_an_lp_reference_for_four_cards():
  simplified = pyspiel.load_game("kuhn_poker_ante(ante=2.0,simplified=True)")
  pol = policies.make_policy(simplified, "equilibrium")
  reference = strategy_tables.reference_for(simplified, pol)
  frame = strategy_tables.strategy_table(simplified, pol, reference.policy)
  assert set(frame["action"]) == {"Pass", "Bet", "Fold", "Call"}
  four = pyspiel.load_game("kuhn_poker_ante(deck_size=4)")
  reference = strategy_tables.reference_for(four, policies.make_policy(four, "uniform"))
  assert reference.source == "sequence-form LP"
  frame = strategy_tables.strategy_table(four, policies.make_policy(four, "uniform"),
                                         reference.policy)
  assert list(frame["card"].unique()) == ["T", "J", "Q", "K"]


def test_non_kuhn_game_is_a_value_error():
  with pytest.raises(ValueError, match="Kuhn game"):
    strategy_tables.rules_of(pyspiel.load_game("leduc_poker"))


def test_cli_quick_run(tmp_path):
  assert cli.main(["strategy-tables", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
  frame = pd.read_csv(tmp_path / "strategy-tables" / "strategy_table.csv")
  assert len(frame) == 24
  sums = frame.groupby("info_state")[["probability", "reference"]].sum()
  np.testing.assert_allclose(sums.to_numpy(), 1.0, atol=1e-12)


def test_cli_rejects_non_kuhn_game(tmp_path, capsys):
  assert cli.main(["strategy-tables", "--game", "leduc_poker", "--out", str(tmp_path)]) == 2
  assert "Kuhn game" in capsys.readouterr().err


@pytest.fixture(scope="module")
def kuhn3():
  return pyspiel.load_game("kuhn_poker_ante(players=3)")


def test_information_states_of_three_player_kuhn(kuhn3):
  # 4 cards x 12 betting histories (kuhn3_equilibria.SITUATIONS): 48 information states; the
  # card is the player's own deal (the first three chance outcomes).
  states = strategy_tables.information_states(kuhn3)
  assert len(states) == 48
  assert states["2ppb"] == (0, 2, "ppb")
  assert states["0pp"] == (2, 0, "pp")
  assert states["3b"] == (1, 3, "b")


def test_nearest_member_of_an_exact_member_is_itself(kuhn3):
  member = kuhn3_equilibria.kuhn3_equilibrium(c11=Fraction(1, 4), b11=Fraction(1, 8),
                                              b32=Fraction(1, 2), c34=Fraction(1, 3))
  pol = member.policy(kuhn3)
  reference = strategy_tables.reference_for(kuhn3, pol)
  frame = strategy_tables.strategy_table(kuhn3, pol, reference.policy)
  assert len(frame) == 96 and frame["difference"].abs().max() < 1e-6
  assert "0<c11<1/2, beta = 0.1250" in reference.source
  assert reference.values == pytest.approx((-5 / 192, -1 / 48, 3 / 64), abs=1e-12)
  assert all(c.passed for c in strategy_tables.table_checks(kuhn3, "member", pol, reference))


def test_three_player_checks_pass_for_cfr_and_fail_for_a_wrong_reference(kuhn3):
  pol = policies.make_policy(kuhn3, "our_cfr:200")
  reference = strategy_tables.reference_for(kuhn3, pol)
  found = strategy_tables.table_checks(kuhn3, "our_cfr:200", pol, reference)
  assert [c.passed for c in found] == [True, True]
  # The policy's NashConv on the tree is OpenSpiel's nash_conv (recomputed here).
  assert found[0].value == pytest.approx(exploitability.nash_conv(kuhn3, pol), abs=1e-12)
  # Negative control: uniform play is no equilibrium; as the reference, its check fails.
  wrong = strategy_tables.references.Reference(policies.make_policy(kuhn3, "uniform"), 0.0,
                                               "wrong")
  failed = [c.name for c in strategy_tables.table_checks(kuhn3, "our_cfr:200", pol, wrong)
            if not c.passed]
  assert failed == [f"strategy table {kuhn3}: NashConv of the reference"]


def test_four_players_have_no_reference():
  four = pyspiel.load_game("kuhn_poker(players=4)")
  pol = policies.make_policy(four, "uniform")
  assert strategy_tables.reference_for(four, pol) is None
  frame = strategy_tables.strategy_table(four, pol, None)
  assert frame["reference"].isna().all() and set(frame["player"]) == {0, 1, 2, 3}
  table = strategy_tables.table_markdown(frame)
  cells = [cell.strip() for line in table.splitlines() for cell in line.split("|")]
  assert cells.count(tables.MISSING) == 2 * frame["info_state"].nunique()  # Both columns.
  assert table.endswith(f"{tables.MISSING}: {strategy_tables.NO_REFERENCE}.")


def test_cli_three_players(tmp_path):
  assert cli.main(["strategy-tables", "--quick", "--quiet", "--game", "kuhn_poker(players=3)",
                   "--out", str(tmp_path)]) == 0
  frame = pd.read_csv(tmp_path / "strategy-tables" / "strategy_table.csv")
  assert len(frame) == 96 and set(frame["player"]) == {0, 1, 2}
  report = (tmp_path / "report.md").read_text()
  assert "our_cfr:300" in report and "NashConv" in report
  assert "Szafron-Gibson-Sturtevant family, nearest member" in report
