"""Tests of the simplified game's landscape experiment (experiments/landscape.py)."""

import matplotlib.collections
import numpy as np
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pytest

from algorithms import kuhn_equilibria
from experiments import cli
from experiments import landscape
from experiments import plotting
from spiel_games import kuhn_rules
from test_experiments_head_to_head import kuhn_value

ANTES = [0.25, 0.5, 1.0, 2.0]  # Passive, boundary, and bluffing regimes of the simplified game.


@pytest.fixture(scope="module", params=ANTES)
def game_and_surface(request):
  game = landscape.load_game(request.param)
  return request.param, game, landscape.Bilinear.from_game(game)


def formula_utility(ante, p, q):
  # The closed form of experiments/landscape.py's docstring with B = 1: summing the six deals,
  # U = [q + (2 S - 1) p - (2 S + 1) p q] / 6.
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
