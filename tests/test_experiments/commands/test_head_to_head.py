"""Tests of the head-to-head experiment and the named policies
(experiments/commands/head_to_head.py, experiments/harness/policies.py)."""

import numpy as np
import pandas as pd
import pyspiel
import pytest
from scipy import stats

from algorithms.file_formats import policy_io
from experiments import cli
from experiments.commands import head_to_head
from experiments.harness import policies
from helpers import kuhn_value
from spiel_games import kuhn_rules


@pytest.fixture(scope="module")
def kuhn():
  return pyspiel.load_game("kuhn_poker_ante")


def test_named_policies_have_their_exact_values(kuhn):
  rules = kuhn_rules.KuhnRules()

  def uniform(card, history):
    return 0.5

  def bet(card, history):
    return 1.0

  cases = [("uniform", "always-bet", uniform, bet), ("always-bet", "uniform", bet, uniform),
           ("always-bet", "always-bet", bet, bet)]
  for name_0, name_1, bet_0, bet_1 in cases:
    exact = policies.expected_value(kuhn, policies.make_policy(kuhn, name_0),
                                    policies.make_policy(kuhn, name_1))
    assert exact == pytest.approx(kuhn_value(rules, bet_0, bet_1), abs=1e-12)
  # Kuhn (1950): the game value is -1/18 for player 0.
  equilibrium = policies.make_policy(kuhn, "equilibrium")
  assert policies.expected_value(kuhn, equilibrium, equilibrium) == pytest.approx(-1 / 18,
                                                                                  abs=1e-12)


def test_equilibrium_of_a_game_with_other_information_states_is_the_lp():
  # kuhn_poker_referee carries KuhnRules, but its information states are not kuhn_poker_ante's,
  # so the closed form does not apply. The simplified rules keep its tree small; on grid 3 the
  # referee game's value is the base game's 1/18 (closed form, bluffing regime at ante = bet).
  referee = pyspiel.load_game("kuhn_poker_referee(simplified=True)")
  reference = policies.reference_equilibrium(referee)
  assert reference.source == "sequence-form LP"
  assert reference.value == pytest.approx(1 / 18, abs=1e-9)


def test_solver_policy_name(kuhn):
  cfr = policies.make_policy(kuhn, "cfr:50")
  again = policies.make_policy(kuhn, "cfr:50")
  np.testing.assert_array_equal(cfr.action_probability_array, again.action_probability_array)
  # CFR's average after 50 iterations is close to the value -1/18, within its NashConv.
  from open_spiel.python.algorithms import exploitability  # pylint: disable=g-import-not-at-top
  nash_conv = exploitability.nash_conv(kuhn, cfr)
  assert policies.expected_value(kuhn, cfr, cfr) == pytest.approx(-1 / 18, abs=nash_conv)


def test_policy_file_name(kuhn, tmp_path):
  cfr = policies.make_policy(kuhn, "cfr:20")
  path = tmp_path / "cfr.json"
  policy_io.save_policy(str(path), cfr)
  loaded = policies.make_policy(kuhn, f"file:{path}")
  np.testing.assert_array_equal(loaded.action_probability_array, cfr.action_probability_array)


@pytest.mark.parametrize("name, message", [
    ("bogus", "unknown policy"), ("cfr:0", "positive integer"), ("cfr:x", "positive integer"),
    ("nosolver:10", "unknown solver"), ("file:/nonexistent/policy.json", "no such file")])
def test_bad_policy_names(kuhn, name, message):
  with pytest.raises(ValueError, match=message):
    policies.make_policy(kuhn, name)


def test_play_counts_and_interval(kuhn):
  hands = 20000
  result = head_to_head.play(kuhn, ["uniform", "always-bet"], hands, seed=0)
  wins, draws, losses = result.wins_draws_losses()
  assert wins + losses == hands and draws == 0  # Kuhn poker has no draws.
  # Two players, zero-sum: one player checked, so the plain 95% interval (z = 1.96).
  half = stats.norm.ppf(0.975) * result.returns[:, 0].std(ddof=1) / np.sqrt(hands)
  assert result.half_width() == pytest.approx(half, rel=1e-9)
  rules = kuhn_rules.KuhnRules()
  assert result.exact[0] == pytest.approx(kuhn_value(rules, lambda c, h: 0.5,
                                                     lambda c, h: 1.0), abs=1e-12)
  # Zero-sum: every hand's returns and the exact values sum to 0.
  np.testing.assert_array_equal(result.returns.sum(axis=1), 0.0)
  assert sum(result.exact) == pytest.approx(0.0, abs=1e-12)
  # Seeded, so deterministic: the exact value lies in this run's 95% interval.
  assert result.exact_in_interval()
  assert set(np.unique(result.returns[:, 0])) <= {-2.0, -1.0, 1.0, 2.0}


def test_sampled_outcome_frequencies_match_exact_probabilities(kuhn):
  # always-bet vs always-bet: every hand is a showdown for 2 chips, player 0 wins with the higher
  # card: probability 1/2 exactly (three of the six equally likely deals).
  result = head_to_head.play(kuhn, ["always-bet", "always-bet"], 4000, seed=1)
  assert set(np.unique(result.returns)) == {-2.0, 2.0}
  wins = result.wins_draws_losses()[0]
  assert abs(wins / 4000 - 0.5) < 5 * np.sqrt(0.25 / 4000)  # 5 standard errors.
  assert result.exact == (0.0, 0.0)


def test_play_is_reproducible(kuhn):
  a = head_to_head.play(kuhn, ["uniform", "equilibrium"], 300, seed=3)
  b = head_to_head.play(kuhn, ["uniform", "equilibrium"], 300, seed=3)
  np.testing.assert_array_equal(a.returns, b.returns)


def test_cli_quick_run(tmp_path):
  code = cli.main(["head-to-head", "--quick", "--quiet", "--p0", "cfr:100", "--p1", "uniform",
                   "--out", str(tmp_path)])
  assert code == 0
  frame = pd.read_csv(tmp_path / "head-to-head" / "head_to_head.csv")
  row = frame.iloc[0]
  assert row.hands == head_to_head.HANDS.quick
  assert row.wins + row.draws + row.losses == row.hands
  assert row.ci95_low <= row.exact_value <= row.ci95_high


def test_a_policy_over_the_budget_is_refused_with_its_estimate_before_any_work(tmp_path, capsys):
  assert cli.main(["head-to-head", "--p0", "cfr:10000000", "--max-minutes", "1", "--quiet",
                   "--out", str(tmp_path)]) == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1
  assert ("error: policy preparation estimated at " in err and "(cfr on kuhn_poker_ante (58 "
          "histories) for 10,000,000 iterations, " in err and "over the limit --max-minutes 1; "
          in err), err


def test_cli_rejects_bad_policy(tmp_path, capsys):
  assert cli.main(["head-to-head", "--p0", "bogus", "--out", str(tmp_path)]) == 2
  assert "unknown policy 'bogus'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def kuhn3():
  return pyspiel.load_game("kuhn_poker_ante(players=3)")


def test_three_player_always_bet_showdowns(kuhn3):
  # Everyone bets or calls: every hand is a three-way showdown with 2 chips each in; the holder
  # of the highest of the three dealt cards gains 4, the others lose 2. By symmetry each player
  # holds it w.p. 1/3, so every exact value is 4/3 - 2 (2/3) = 0.
  result = head_to_head.play(kuhn3, ["always-bet"] * 3, 4000, seed=2)
  assert result.returns.shape == (4000, 3)
  assert set(np.unique(result.returns)) == {-2.0, 4.0}
  np.testing.assert_array_equal(result.returns.sum(axis=1), 0.0)
  assert result.exact == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
  wins = [result.wins_draws_losses(p)[0] for p in range(3)]
  assert sum(wins) == 4000
  assert all(abs(w / 4000 - 1 / 3) < 5 * np.sqrt(2 / 9 / 4000) for w in wins)  # 5 std. errors.


@pytest.mark.slow  # 3-6 s: the full suite runs it; the quick subset keeps within 3 minutes.
def test_three_player_family_member_values(kuhn3):
  # The family's default member at every seat: values (-1/48, -1/48, 1/24) (Szafron, Gibson,
  # Sturtevant, AAMAS 2013; algorithms.exact.kuhn3_equilibria, certified exactly there).
  result = head_to_head.play(kuhn3, ["equilibrium"] * 3, 20000, seed=0)
  assert result.exact == pytest.approx((-1 / 48, -1 / 48, 1 / 24), abs=1e-12)
  # Zero-sum with three players: players 0 and 1 are checked, Bonferroni z = Phi^-1(1 - 0.0125).
  assert result.z == pytest.approx(stats.norm.ppf(1 - 0.05 / 4), rel=1e-12)
  assert head_to_head.checked_players(kuhn3) == 2
  assert all(result.exact_in_interval(p) for p in range(3))


def test_cli_three_players_one_policy_per_seat(tmp_path):
  out = tmp_path / "out"
  code = cli.main(["head-to-head", "--quick", "--quiet", "--game", "kuhn_poker(players=3)",
                   "--policy", "uniform", "--policy", "equilibrium", "--policy", "always-bet",
                   "--hands", "3000", "--out", str(out)])
  assert code == 0
  frame = pd.read_csv(out / "head-to-head" / "head_to_head.csv")
  assert list(frame.player) == [0, 1, 2]
  assert list(frame.policy) == ["uniform", "equilibrium", "always-bet"]
  assert frame.chips_per_hand.sum() == pytest.approx(0.0, abs=1e-9)  # Zero-sum, hand by hand.
  assert frame.exact_value.sum() == pytest.approx(0.0, abs=1e-12)
  report = (out / "report.md").read_text()
  assert "player 0's chips per hand" in report and "player 1's chips per hand" in report
  assert "player 2's chips per hand" not in report  # Fixed by the others' (zero-sum).


@pytest.mark.parametrize("argv, message", [
    (["--game", "kuhn_poker(players=3)"], "has 3 players: give --policy 3 times"),
    (["--game", "kuhn_poker(players=3)", "--policy", "uniform", "--policy", "uniform"],
     "give --policy 3 times (one per seat), got 2"),
    (["--policy", "uniform", "--policy", "uniform", "--p0", "uniform"], "not both"),
    (["--game", "kuhn_poker(players=4)", "--policy", "equilibrium", "--policy", "uniform",
      "--policy", "uniform", "--policy", "uniform"], "no exact equilibrium"),
])
def test_cli_rejects_bad_seats(tmp_path, capsys, argv, message):
  assert cli.main(["head-to-head", "--out", str(tmp_path / "x")] + argv) == 2
  err = capsys.readouterr().err
  assert message in err and len(err.strip().splitlines()) == 1
  assert not (tmp_path / "x").exists()
