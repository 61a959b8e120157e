"""Tests of the rock-paper-scissors regret-matching experiment (experiments/commands/rps.py)."""

import numpy as np
import pandas as pd
import pyspiel
import pytest

from experiments import cli
from experiments.commands import rps
from experiments.harness import plotting


def test_modified_game_doubles_every_payoff_involving_scissors():
  # ReBeL (Brown et al. 2020), modified RPS example: scissors' wins and losses pay 2, the rest
  # as in RPS.
  base, modified = rps.rps_game(), rps.modified_rps_game()
  expected = base.row_utilities().copy()
  expected[2, :] *= 2
  expected[:, 2] *= 2
  np.testing.assert_array_equal(modified.row_utilities(), expected)
  np.testing.assert_array_equal(modified.col_utilities(), -expected)
  assert modified.row_utility(2, 1) == 2  # Scissors beats paper: +2.
  assert modified.row_utility(0, 1) == -1  # Rock loses to paper: -1.


@pytest.mark.parametrize("game, expected", [
    (rps.rps_game(), [1 / 3, 1 / 3, 1 / 3]),  # Symmetric game: uniform.
    (rps.modified_rps_game(), [0.4, 0.4, 0.2]),  # Brown et al. 2020 (ReBeL), modified RPS example.
])
def test_lp_equilibrium_matches_published(game, expected):
  row, col, value = rps.equilibrium(game)
  np.testing.assert_allclose(row, expected, atol=1e-12)
  np.testing.assert_allclose(col, expected, atol=1e-12)
  assert value == pytest.approx(0.0, abs=1e-12)  # Symmetric zero-sum games: value 0.
  assert rps.matrix_nash_conv(game, row, col) == pytest.approx(0.0, abs=1e-12)


def test_equilibrium_refuses_a_game_that_is_not_zero_sum():
  game = pyspiel.create_matrix_game([[1, 0], [0, 1]], [[1, 0], [0, 1]])
  with pytest.raises(ValueError, match="not zero-sum"):
    rps.equilibrium(game)


def test_first_steps_against_0_90_10_by_hand():
  # By hand: u = A y = (-0.8, -0.1, 0.9) against y = (0, 0.9, 0.1); iteration 1 plays uniform
  # (no regret yet), so regrets = u - 0 = (-0.8, -0.1, 0.9) and iteration 2 plays pure scissors.
  run = rps.against_fixed(rps.rps_game(), (0.0, 0.9, 0.1), 2)
  np.testing.assert_allclose(run.average[0], [1 / 3, 1 / 3, 1 / 3])
  np.testing.assert_allclose(run.average[1], [1 / 6, 1 / 6, 2 / 3])
  # Average regret after 2: (0.9 + 0.9) / 2 - (0 + 0.9) / 2 = 0.45.
  assert run.regret[1] == pytest.approx(0.45, abs=1e-12)


@pytest.mark.parametrize("opponent, best_value", [((0.0, 0.9, 0.1), 0.9), ((0.1, 0.8, 0.1), 0.7)])
def test_pure_best_response_against_fixed_opponent(opponent, best_value):
  # Best response: scissors, value 0.9 (resp. 0.8 - 0.1 = 0.7), exact from the payoff matrix.
  iterations = 2000
  run = rps.against_fixed(rps.rps_game(), opponent, iterations)
  bound = rps.regret_bound(run.game, iterations)  # Zinkevich et al. 2007: Delta sqrt(|A|/T).
  assert 0 <= run.regret[-1] <= bound
  payoff = run.average[-1] @ (run.game.row_utilities() @ np.asarray(opponent))
  assert best_value - bound <= payoff <= best_value
  # Regret >= (1 - sigma_bar(S)) * gap, with gap 0.9 - (-0.1) = 1.0 (resp. 0.7 - 0 = 0.7).
  assert run.average[-1, 2] >= 1 - bound / 0.7


def test_uniform_opponent_every_strategy_is_a_best_response():
  game = rps.rps_game()
  # Exact: A (1/3, 1/3, 1/3) = 0 for every pure strategy, so regret is 0 whatever is played.
  np.testing.assert_array_equal(game.row_utilities() @ np.full(3, 1 / 3), np.zeros(3))
  run = rps.against_fixed(game, (1 / 3, 1 / 3, 1 / 3), 500)
  np.testing.assert_allclose(run.average[-1], np.full(3, 1 / 3), atol=1e-15)
  assert np.all(run.regret == 0.0)
  sampled = rps.against_fixed(game, (1 / 3, 1 / 3, 1 / 3), 2000, rng=np.random.default_rng(0))
  # Sampled feedback drifts away from uniform, yet its exact expected payoff is still 0.
  assert np.abs(sampled.average[-1] - 1 / 3).max() > 0.01
  assert sampled.average[-1] @ game.row_utilities() @ np.full(3, 1 / 3) == pytest.approx(0.0,
                                                                                        abs=1e-15)


@pytest.mark.parametrize("game", [rps.rps_game(), rps.modified_rps_game()])
def test_self_play_average_converges_to_equilibrium(game):
  iterations = 3000
  run = rps.self_play(game, iterations, np.random.default_rng(0))
  # Folk theorem: NashConv of the average <= sum of the two players' average regrets.
  bound = 2 * rps.regret_bound(game, iterations)
  assert run.regret[-1] <= bound
  assert run.regret[-1] < run.regret[9] / 3  # It actually decreases, not just stays bounded.
  _, _, value_eq = rps.equilibrium(game)
  value = run.average[-1] @ game.row_utilities() @ run.average_col[-1]
  assert value == pytest.approx(value_eq, abs=run.regret[-1])
  # Independent recomputation: in a zero-sum game NashConv = max_r (A y)_r - min_c (x A)_c.
  x, y, a = run.average[-1], run.average_col[-1], game.row_utilities()
  assert run.regret[-1] == pytest.approx((a @ y).max() - (x @ a).min(), abs=1e-12)


def test_bad_opponent_is_a_value_error():
  with pytest.raises(ValueError, match="opponent strategy"):
    rps.against_fixed(rps.rps_game(), (0.5, 0.5, 0.5), 10)


def test_cli_quick_run_writes_outputs_and_checks_pass(tmp_path):
  assert cli.main(["rps", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
  out = tmp_path / "rps"
  frame = pd.read_csv(out / "rps.csv")
  final = frame[frame["iteration"] == rps.ITERATIONS.quick].set_index("scenario")
  assert final.loc["vs 0/90/10", "Scissors"] > 0.99
  # One panel per scenario, each with the three actions' average probabilities and, where there
  # is one, the strategy it should reach.
  strategies = plotting.read_figure_summary(out / "rps_strategies.png")
  assert [a["title"] for a in strategies["axes"]] == [
      # Lines drawn over each other are named (Rock's exactly equals Paper's against a fixed
      # opponent that plays them alike, and all three equal 1/3 against uniform).
      "vs 0/90/10\nbest response: pure Scissors\nRock and Paper coincide (markers mark each)",
      "vs 10/80/10\nbest response: pure Scissors\nRock and Paper coincide (markers mark each)",
      "vs uniform\nevery strategy is a best response\nall 3 lines coincide (markers mark each)",
      "vs uniform (sampled)\nevery strategy is a best response",
      "self-play RPS\nequilibrium (0.33, 0.33, 0.33)",
      "self-play modified RPS\nequilibrium (0.40, 0.40, 0.20)"]
  for axes in strategies["axes"]:
    assert [x for x in axes["lines"] if x != rps.REFERENCE] == ["Rock", "Paper", "Scissors"]
    assert axes["xscale"] == "log" and axes["xlabel"] == "iteration t (log scale)"
  assert [a["ylabel"] for a in strategies["axes"]] == [
      "probability in the average strategy", "", "", "probability in the average strategy", "",
      ""]  # The rows share their y axis.
  assert [a["lines"].count(rps.REFERENCE) for a in strategies["axes"]] == [2, 2, 0, 0, 1, 2]
  [legend] = strategies["legends"]
  assert legend["entries"] == ["Rock", "Paper", "Scissors", rps.REFERENCE]
  assert legend["overlaps"] == []
  # Regret and NashConv: log-log, each run with its bound.
  regret = plotting.read_figure_summary(out / "rps_exploitability.png")
  self_play, fixed = regret["axes"]
  assert self_play["title"] == "self-play: NashConv of the average profile"
  assert self_play["ylabel"] == "NashConv (payoff per round, log scale)"
  assert fixed["ylabel"] == "average regret (payoff per round, log scale)"
  assert self_play["lines"] == [
      "self-play RPS", r"bound for self-play RPS: $2\Delta\sqrt{3/T}$, $\Delta = 2$",
      "self-play modified RPS",
      r"bound for self-play modified RPS: $2\Delta\sqrt{3/T}$, $\Delta = 4$"]
  assert (fixed["xscale"], fixed["yscale"]) == ("log", "log")
  assert fixed["lines"] == ["vs 0/90/10", "vs 10/80/10", "vs uniform (sampled)",
                            r"bound for every fixed opponent: $\Delta\sqrt{3/T}$, $\Delta = 2$"]
  # Regret 0 has no place on a log axis: the panel says so instead of dropping the run silently.
  assert fixed["texts"] == ["vs uniform: regret 0 at every t\n(not drawn on a log axis)"]
  [legend] = regret["legends"]
  assert "vs 0/90/10" in legend["entries"] and legend["overlaps"] == []


def test_reference_lines_are_the_equilibrium_and_the_best_response():
  runs = [rps.against_fixed(rps.rps_game(), (0.0, 0.9, 0.1), 20, name="vs 0/90/10"),
          rps.self_play(rps.modified_rps_game(), 20, np.random.default_rng(0), name="modified")]
  fig = rps.plot_strategies(runs)
  heights = [sorted(line.get_ydata()[0] for line in ax.get_lines()
                    if line.get_label() == rps.REFERENCE) for ax in fig.axes[:2]]
  # Pure scissors against 0/90/10 (probabilities 0 and 1); ReBeL's (0.4, 0.4, 0.2) equilibrium
  # of the modified game (Brown et al. 2020), by the LP.
  assert heights[0] == pytest.approx([0.0, 1.0], abs=1e-12)
  assert heights[1] == pytest.approx([0.2, 0.4], abs=1e-9)


def test_cli_rejects_bad_iterations(tmp_path, capsys):
  assert cli.main(["rps", "--iterations", "-3", "--out", str(tmp_path)]) == 2
  assert "iterations" in capsys.readouterr().err
