"""Tests of the strategy-tables experiment (experiments/strategy_tables.py)."""

import numpy as np
import pandas as pd
import pyspiel
import pytest

from experiments import cli
from experiments import policies
from experiments import strategy_tables


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
