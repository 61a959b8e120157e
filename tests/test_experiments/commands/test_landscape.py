"""Tests of the simplified game's landscape experiment
(experiments/commands/landscape/__init__.py)."""

import dataclasses

import matplotlib.collections
import numpy as np
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pytest

import algorithms
from algorithms.exact import kuhn_equilibria
from experiments import cli
from experiments.commands import landscape
from experiments.commands.landscape import equilibrium_map
from experiments.harness import plotting
from helpers import kuhn_value
from spiel_games import kuhn_rules

ANTES = [0.25, 0.5, 1.0, 2.0]  # Passive, boundary, and bluffing regimes of the simplified game.


@pytest.fixture(scope="module", params=ANTES)
def game_and_surface(request):
  game = landscape.load_game(request.param)
  return request.param, game, landscape.Bilinear.from_game(game)


def formula_utility(ante, p, q):
  # The closed form of experiments/commands/landscape/__init__.py's docstring with B = 1: summing
  # the six deals, U = [q + (2 S - 1) p - (2 S + 1) p q] / 6.
  return (q + (2 * ante - 1) * p - (2 * ante + 1) * p * q) / 6


def enumerated_utility(ante, p, q):
  # Independent of OpenSpiel and of the formula: every deal and betting line of the simplified
  # rules (KuhnRules), with the reduced strategy (bluff p with the lowest card, bet the highest,
  # pass the middle; call q with the middle card, call the highest, fold the lowest).
  bet, call = {0: p, 1: 0.0, 2: 1.0}, {0: 0.0, 1: q, 2: 1.0}
  return kuhn_value(kuhn_rules.KuhnRules(ante=ante, simplified=True),
                    lambda card, history: bet[card], lambda card, history: call[card])


def test_surface_is_bilinear_and_matches_policy_value(game_and_surface):
  ante, game, surface = game_and_surface
  rng = np.random.default_rng(0)
  for p, q in rng.uniform(size=(5, 2)):
    exact = landscape.utility(game, p, q)  # OpenSpiel's policy_value on the full game.
    assert surface(p, q) == pytest.approx(exact, abs=1e-12)
    assert exact == pytest.approx(enumerated_utility(ante, p, q), abs=1e-12)
    assert exact == pytest.approx(formula_utility(ante, p, q), abs=1e-12)


def test_saddle_point_is_the_closed_form_and_a_full_game_equilibrium(game_and_surface):
  ante, game, surface = game_and_surface
  closed = kuhn_equilibria.kuhn_equilibrium(ante, 1, simplified=True)
  p_star, q_star = float(closed.p0_bluff), float(closed.p1_call_mid)
  # The closed form is a saddle of the OpenSpiel surface: no gain for either player.
  assert surface.saddle_gap(p_star, q_star) == pytest.approx(0.0, abs=1e-12)
  assert surface(p_star, q_star) == pytest.approx(float(closed.value), abs=1e-12)
  p, q = surface.saddle_point()
  if not closed.family:  # Unique equilibrium (every regime but the boundary ante = bet / 2).
    assert (p, q) == pytest.approx((p_star, q_star), abs=1e-12)
  # The reduction is exact: the reduced saddle point is a full-game equilibrium (OpenSpiel).
  nash_conv = exploitability.nash_conv(game, landscape.reduced_policy(game, p, q))
  assert nash_conv == pytest.approx(0.0, abs=1e-12)


def test_hand_derived_interior_saddle_at_ante_one():
  # The interior saddle of the formula above: p = 1 / (1 + 2S), q = (2S - 1) / (1 + 2S), value
  # (2S - 1) / (6 (1 + 2S))
  # at S = 1: (1/3, 1/3), value 1/18; the Hessian [[0, d], [d, 0]] is indefinite (d = -1/2).
  surface = landscape.Bilinear.from_game(landscape.load_game(1.0))
  assert surface.saddle_point() == pytest.approx((1 / 3, 1 / 3), abs=1e-12)
  assert surface(1 / 3, 1 / 3) == pytest.approx(1 / 18, abs=1e-12)
  assert surface.d == pytest.approx(-0.5, abs=1e-12)
  assert surface.gradient(1 / 3, 1 / 3) == pytest.approx((0.0, 0.0), abs=1e-12)


def test_cfr_path_projects_the_solver_policies():
  game = landscape.load_game(1.0)
  path = landscape.cfr_path(game, "cfr", 50)
  average = path.average_policy
  assert path.average_p[-1] == pytest.approx(average.policy_for_key("0")[1], abs=1e-15)
  assert path.average_q[-1] == pytest.approx(average.policy_for_key("1b")[1], abs=1e-15)
  # Iteration 1 of CFR starts from uniform: the average after one iteration is uniform (OpenSpiel
  # CFR's first current policy), so the path starts at (1/2, 1/2).
  assert (path.average_p[0], path.average_q[0]) == pytest.approx((0.5, 0.5), abs=1e-15)


def test_project_cfr_path_equals_openspiel_cfr_path():
  # The project's CFRSolver is a drop-in for OpenSpiel's cfr.CFRSolver: the same iterates.
  game = landscape.load_game(2.0)
  ours, theirs = (landscape.cfr_path(game, solver, 30) for solver in ("our_cfr", "cfr"))
  for field in ("current_p", "current_q", "average_p", "average_q"):
    np.testing.assert_allclose(getattr(ours, field), getattr(theirs, field), atol=1e-12)


def test_bad_ante_is_a_value_error():
  with pytest.raises(ValueError, match="ante"):
    landscape.load_game(0.0)


def test_cli_quick_run(tmp_path):
  assert cli.main(["landscape", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
  out = tmp_path / "landscape"
  grid = pd.read_csv(out / "landscape_grid.csv")
  path = pd.read_csv(out / "landscape_path.csv")
  assert len(grid) == landscape.GRID**2
  assert len(path) == landscape.ITERATIONS.quick
  figure = plotting.read_figure_summary(out / "landscape.png")
  assert figure["title"] == ("kuhn_poker_ante(ante=1.0,bet=1.0,simplified=True): U(p, q) and the "
                             "path of CFR (ours)")
  left, right, colorbar = figure["axes"]
  for axes in (left, right):
    assert axes["xlabel"] == "p: player 0 bets the lowest card (bluff)"
    assert axes["ylabel"] == "q: player 1 calls with the middle card"
    assert {"closed-form equilibrium (p, q)", landscape.LEVEL_SET} <= set(axes["lines"])
  assert {"current strategy (one iteration in 2, darker later)", "average strategy",
          "start (iteration 1)"} <= set(right["lines"])
  assert colorbar["colorbar"]
  assert colorbar["ylabel"] == "U(p, q): player 0's expected utility (chips per hand)"
  [legend] = figure["legends"]
  assert legend["overlaps"] == [] and "average strategy" in legend["entries"]
  # The average ends nearer the equilibrium (1/3, 1/3) than the current strategy's mean distance.
  last = path.iloc[-1]
  average_distance = np.hypot(last.average_p - 1 / 3, last.average_q - 1 / 3)
  current_distance = np.hypot(path.current_p - 1 / 3, path.current_q - 1 / 3)[-100:].mean()
  assert average_distance < current_distance


def test_cli_rejects_bad_ante(tmp_path, capsys):
  assert cli.main(["landscape", "--ante", "-1", "--out", str(tmp_path)]) == 2
  assert "ante" in capsys.readouterr().err


def test_plot_thins_the_current_strategy_and_leaves_no_band_under_the_title():
  game = landscape.load_game(1.0)
  iterations = 2000
  points = np.random.default_rng(0).uniform(size=(4, iterations))  # Any path will do.
  path = landscape.Path(*points, average_policy=None)
  fig = landscape.plot(landscape.Bilinear.from_game(game), path, (1 / 3, 1 / 3), "title")
  [current] = [c for c in fig.axes[1].collections  # The scatter of the current strategy.
               if type(c) is matplotlib.collections.PathCollection]
  # One iteration in 13: about 150 dots instead of 2,000 segments, starting at iteration 1.
  assert len(current.get_offsets()) == len(range(0, iterations, iterations // 150))
  np.testing.assert_array_equal(current.get_offsets()[1], points[:2, iterations // 150])
  summary = plotting.describe_figure(fig)
  # The panels start right under the title: the old layout left 16% of the height empty there.
  top = max(a["bbox"][3] for a in summary["axes"])
  assert summary["title_bbox"][1] - top < 0.08


# The equilibrium map (experiments/commands/landscape/equilibrium_map.py): the (ante, bet) grid
# solved in one batch.

def hand_closed_form(ante, bet):
  # The simplified game's equilibrium (experiments/commands/landscape/__init__.py's docstring: the
  # saddle point of U = [B q + (2S - B) p - (2S + B) p q] / 6): p = B / (2S + B),
  # q = (2S - B) / (2S + B) when 2S > B, else p = q = 0 (the lowest member of the family
  # p in [0, 1/2] at 2S = B).
  if 2 * ante > bet:
    return bet / (2 * ante + bet), (2 * ante - bet) / (2 * ante + bet)
  return 0.0, 0.0


@pytest.fixture(scope="module")
def small_map():
  # 6 x 6: antes and bets 1/3, 2/3, ..., 2; three points on 2S = B (the family).
  return equilibrium_map.solve_grid(6, 300, measure_at=(100,))


def test_grid_points_lie_on_an_exact_grid_with_the_boundary_on_it():
  ante, bet, rules = equilibrium_map.grid_rules(6)
  np.testing.assert_allclose(np.unique(ante), np.arange(1, 7) / 3, atol=1e-15)
  assert (rules[8].ante, rules[8].bet) == (ante[8], bet[8]) == (1.0, 2 / 3)  # Bet-major.
  assert sum(2 * a == b for a, b in zip(ante, bet)) == 3  # Exactly, in floating point.
  with pytest.raises(ValueError, match="grid points per axis must be an integer >= 2, got 1"):
    equilibrium_map.stakes(1)


def test_batched_grid_equals_each_game_solved_alone(small_map):
  # Each game's policy in the batch is the one CFRPlusSolver gives on that game alone, for the
  # same iterations (batched solving changes nothing but the cost).
  assert list(small_map.convergence.iterations) == [100, 300]
  # (ante, bet) = (1/3, 1/3), (2, 1/3), (1, 2/3), (1/3, 1), (2, 2): bluffing, bluffing, the
  # family 2S = B, passive, bluffing.
  for i in (0, 5, 6, 12, 35):
    alone = equilibrium_map.solve_alone(small_map.ante[i], small_map.bet[i], 300)
    assert alone == pytest.approx((small_map.p[i], small_map.q[i]), abs=1e-12)
  # One game through OpenSpiel's iteration interface, one iteration per call.
  solver = algorithms.CFRPlusSolver(landscape.load_game(small_map.ante[5], small_map.bet[5]))
  for _ in range(300):
    solver.evaluate_and_update_policy()
  assert equilibrium_map.bluff_and_call(solver.average_policy()) == pytest.approx(
      (small_map.p[5], small_map.q[5]), abs=1e-12)


def test_small_map_closed_form_and_distances(small_map):
  for a, b, p, q, pc, qc, family, distance in zip(
      small_map.ante, small_map.bet, small_map.p, small_map.q, small_map.p_closed,
      small_map.q_closed, small_map.family, small_map.distance):
    assert (pc, qc) == pytest.approx(hand_closed_form(a, b), abs=1e-15)
    assert family == (2 * a == b)
    if family:  # Distance to the segment p in [0, 1/2], q = 0.
      assert distance == pytest.approx(max(p - 0.5, 0.0, -p, abs(q)), abs=1e-15)
    else:
      assert distance == pytest.approx(max(abs(p - pc), abs(q - qc)), abs=1e-15)


def test_distance_to_closed_form_handles_the_family():
  distance = equilibrium_map.distance_to_closed_form
  assert distance(0.5, 1.0, 0.3, 0.0) == 0.0  # Inside the family p in [0, 1/2], q = 0.
  assert distance(0.5, 1.0, 0.7, 0.05) == pytest.approx(0.2, abs=1e-15)
  assert distance(1.0, 1.0, 1 / 3, 1 / 3 + 0.1) == pytest.approx(0.1, abs=1e-15)
  assert distance(0.25, 1.0, 0.0, 0.0) == 0.0


def test_default_iterations_reach_the_closed_form_and_the_exploitability_target():
  # 8 x 8 grid, the default CFR+ iterations: every point within the stated tolerance of the hand
  # closed form above, and the exploitability within the batched-solving target (exact, and
  # OpenSpiel's at the worst point).
  solved = equilibrium_map.solve_grid(8)
  for a, b, p, q, family in zip(solved.ante, solved.bet, solved.p, solved.q, solved.family):
    if family:
      assert -1e-12 <= p <= 0.5 + equilibrium_map.STRATEGY_TOLERANCE
      assert q == pytest.approx(0.0, abs=equilibrium_map.STRATEGY_TOLERANCE)
    else:
      assert (p, q) == pytest.approx(hand_closed_form(a, b),
                                     abs=equilibrium_map.STRATEGY_TOLERANCE)
  assert solved.exploitability.max() <= equilibrium_map.EXPLOITABILITY_BOUND
  worst = solved.worst
  game = landscape.load_game(solved.ante[worst], solved.bet[worst])
  alone = algorithms.CFRPlusSolver(game).solve(solved.iterations)
  assert exploitability.exploitability(game, alone.average_policy()) == pytest.approx(
      solved.exploitability[worst], abs=1e-12)
  found = equilibrium_map.map_checks(solved)
  assert len(found) == 4 and all(c.passed for c in found)
  # The largest distance shrinks with the iterations (CFR+'s average converges).
  distances = solved.convergence.max_distance.to_numpy()
  assert np.all(np.diff(distances) < 0)


def test_map_checks_fail_for_a_wrong_solution(small_map):
  # The checks can fail: a grid whose solved p is off by 0.01 everywhere.
  wrong = dataclasses.replace(small_map, distance=small_map.distance + 0.01)
  assert not any(c.passed for c in equilibrium_map.map_checks(wrong)[:2])


def test_equilibrium_map_figure(tmp_path, small_map):
  path = tmp_path / "map.png"
  title = equilibrium_map.figure_title(small_map)
  plotting.save_figure(equilibrium_map.plot(small_map, title), path)
  figure = plotting.read_figure_summary(path)
  assert figure["title"] == ("Simplified Kuhn poker over (ante, bet): 36 games, each solved by "
                             "CFR+ (ours) for 300 iterations in one batch")
  panels = [a for a in figure["axes"] if not a["colorbar"]]
  bars = [a for a in figure["axes"] if a["colorbar"]]
  assert [a["title"] for a in panels] == [
      "solved p: player 0 bets the lowest card [0]",
      "solved q: player 1 calls with the middle card [1b]",
      "max(|p - p*|, |q - q*|): distance to the closed form",
      "exploitability of the average policy"]
  boundary = "2S = B: the closed form's regime boundary (on it a family, p in [0, 1/2], q = 0)"
  for a in panels:
    assert a["xlabel"] == "ante S (chips)" and a["ylabel"] == "bet B (chips)"
    assert boundary in a["lines"]
    assert {"passive\n2S < B", "bluffing\n2S > B"} <= set(a["texts"])
  for a, levels in zip(panels[:2], ({"0.1", "0.2", "0.3", "0.4"}, {"0.2", "0.4", "0.6", "0.8"})):
    assert {"the same contours of the closed form"} <= set(a["lines"])
    labels = set(a["texts"]) - {"passive\n2S < B", "bluffing\n2S > B"}
    assert labels and labels <= levels  # The closed-form contours carry their levels.
  assert [b["ylabel"] for b in bars] == [
      "probability of betting", "probability of calling", "distance (log scale)",
      "exploitability (chips per hand, log scale)"]
  [legend] = figure["legends"]
  assert boundary in legend["entries"] and legend["overlaps"] == []


@pytest.mark.slow
def test_cli_default_grid_checks_pass(tmp_path):
  # The default 40 x 40 map: the command's checks (tolerances in
  # experiments/commands/landscape/equilibrium_map.py) pass, so the exit code is 0.
  assert cli.main(["landscape", "--iterations", "50", "--quiet", "--out", str(tmp_path)]) == 0
  table = pd.read_csv(tmp_path / "landscape" / landscape.MAP_TABLE)
  assert len(table) == 40**2
  assert table.distance.max() <= equilibrium_map.STRATEGY_TOLERANCE


def test_cli_rejects_a_grid_of_one_point(tmp_path, capsys):
  assert cli.main(["landscape", "--grid", "1", "--out", str(tmp_path)]) == 2
  assert "--grid" in capsys.readouterr().err


# The map on another deck (--deck-size): von Neumann's thresholds of the continuous limit.

def von_neumann(ante, bet):
  # The simplified game's continuous limit (algorithms/exact/continuous_kuhn.py's docstring; von
  # Neumann and Morgenstern 1944, section 19): player 0 bluffs below alpha, player 1 calls above
  # gamma, alpha = S B / ((S + B)(4S + B)), gamma = B (3S + B) / ((S + B)(4S + B)).
  d = (ante + bet) * (4 * ante + bet)
  return ante * bet / d, bet * (3 * ante + bet) / d


def test_thresholds_of_a_threshold_policy():
  # Ten cards: player 0 bets cards 0 (a bluff), 8 and 9; player 1 calls with cards 6 to 9, so
  # gamma = 1 - 4/10 and alpha is the bet mass below it, 1/10.
  probabilities = np.zeros((2, 10, 2))
  probabilities[0, [0, 8, 9], 1] = probabilities[1, 6:, 1] = 1
  probabilities[..., 0] = 1 - probabilities[..., 1]
  policy = algorithms.CardPolicy(("", "b"), np.array([0, 1]), probabilities)
  assert equilibrium_map.bluff_and_call_thresholds(policy) == pytest.approx((0.1, 0.6),
                                                                           abs=1e-15)


@pytest.mark.parametrize("deck_size", [20, 1000])
def test_map_on_another_deck_reaches_the_continuous_limit(deck_size):
  solved = equilibrium_map.solve_grid(2, deck_size=deck_size)  # (ante, bet) in {1, 2}^2.
  assert solved.deck_size == deck_size and not solved.family.any()
  for a, b, pc, qc in zip(solved.ante, solved.bet, solved.p_closed, solved.q_closed):
    assert (pc, qc) == pytest.approx(von_neumann(a, b), abs=1e-15)
  np.testing.assert_allclose(solved.distance, np.maximum(np.abs(solved.p - solved.p_closed),
                                                         np.abs(solved.q - solved.q_closed)))
  assert solved.distance.max() <= equilibrium_map.strategy_tolerance(deck_size)
  found = equilibrium_map.map_checks(solved)
  assert all(c.passed for c in found)
  if deck_size == 20:  # OpenSpiel walks 20 cards: its exploitability at the worst point.
    assert len(found) == 3
    assert solved.openspiel_exploitability == pytest.approx(solved.exploitability[solved.worst],
                                                            abs=1e-12)
  else:  # 1,000 cards: past OpenSpiel's walk, the range vectors' exact measure alone.
    assert len(found) == 2 and solved.openspiel_exploitability is None


def test_map_refuses_range_vectors_over_the_memory_limit():
  with pytest.raises(ValueError, match="equilibrium map: 1600 games of 100000 cards need about "
                                       r"\d+\.\d GiB of range vectors, over the limit"):
    equilibrium_map.solve_grid(40, deck_size=100_000)


@pytest.mark.slow  # 3-6 s: the full suite runs it; the quick subset keeps within 3 minutes.
def test_cli_map_on_another_deck(tmp_path):
  # 20 cards (50 took 2 s more, in OpenSpiel's walk at the worst point): the command passes any
  # deck the same way (test_map_on_another_deck_reaches_the_continuous_limit: 20 and 1,000).
  assert cli.main(["landscape", "--quick", "--quiet", "--grid", "2", "--deck-size", "20",
                   "--out", str(tmp_path)]) == 0
  table = pd.read_csv(tmp_path / "landscape" / landscape.MAP_TABLE)
  assert len(table) == 4
  figure = plotting.read_figure_summary(tmp_path / "landscape" / landscape.MAP_FIGURE)
  assert figure["title"].startswith("Simplified Kuhn poker with 20 cards over (ante, bet): 4 games")
  panels = [a for a in figure["axes"] if not a["colorbar"]]
  assert [a["title"] for a in panels[:2]] == [
      "solved alpha: player 0's bluff mass (bets below the call threshold)",
      "solved gamma: player 1's call threshold (the folding mass)"]
  for a in panels:  # One regime: no boundary 2S = B.
    assert not any(line.startswith("2S = B") for line in a["lines"])


@pytest.mark.parametrize("bad", ["1", "0.5", "many"])
def test_cli_rejects_a_bad_deck(tmp_path, capsys, bad):
  assert cli.main(["landscape", "--deck-size", bad, "--out", str(tmp_path)]) == 2
  assert "argument --deck-size: expected a deck of at least 2 cards" in capsys.readouterr().err
