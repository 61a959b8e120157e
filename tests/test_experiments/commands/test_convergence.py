"""Tests of experiments.commands.convergence: measuring points, jobs, the checks and the figure."""

import copy

import matplotlib.colors
import pytest

from experiments.commands import convergence
from experiments.harness import jobs
from experiments.harness import plotting
from experiments.harness import solver_runs
from experiments.harness.context import Context


def test_measuring_points_are_log_spaced_and_end_at_t():
  marks = jobs.measuring_points(1000, convergence.NUM_MEASURING_POINTS)
  assert marks[0] == 1 and marks[-1] == 1000 and marks == sorted(set(marks))
  assert 15 <= len(marks) <= convergence.NUM_MEASURING_POINTS
  # Log spacing: consecutive ratios stay near 1000^(1/19) = 1.44 once rounding stops mattering.
  ratios = [b / a for a, b in zip(marks, marks[1:]) if a >= 20]
  assert all(1.3 < r < 1.6 for r in ratios), ratios
  assert jobs.measuring_points(1, 20) == [1]
  assert jobs.measuring_points(50, 4, extra=(7, 100)) == [1, 4, 7, 14, 50]


def test_make_jobs_seeds_only_sampled_solvers():
  made = convergence.make_jobs([("kuhn_poker", 50)], ["our_cfr", "cs_cfr"], seed=7, num_seeds=3)
  assert [(j.solver, j.seed, j.iterations) for j in made] == [
      ("our_cfr", 7, 50), ("cs_cfr", 7, 500), ("cs_cfr", 8, 500), ("cs_cfr", 9, 500)]
  assert made[0].measure_at[-1] == 50 and made[1].measure_at[-1] == 500


@pytest.fixture(scope="module")
def results(tmp_path_factory):
  ctx = Context(convergence.NAME, tmp_path_factory.mktemp("convergence"))
  return ctx.run_jobs(convergence.make_jobs([("kuhn_poker", 60)],
                                            ["cfr", "our_cfr", "cfr_cpp", "cs_cfr"], seed=0,
                                            num_seeds=2))


def test_checks_of_the_final_points(results):
  found = convergence.final_checks(results)
  assert found and all(c.passed for c in found), [c for c in found if not c.passed]
  names = [c.name for c in found]
  # OpenSpiel's Python CFR is the reference of both other implementations of the algorithm.
  assert "kuhn_poker our_cfr vs cfr: final exploitability" in names
  assert "kuhn_poker cfr_cpp vs cfr: final exploitability" in names
  value = [c for c in found if c.name.startswith("kuhn_poker cfr seed 0") and "value" in c.name]
  assert value[0].reference == pytest.approx(-1 / 18)  # Kuhn 1950, the closed form.


def test_checks_fail_for_a_wrong_final_point(results):
  # Negative control: a run whose value is off by more than its NashConv fails its value check.
  broken = copy.deepcopy(results[0])
  broken.solved.returns = [broken.value + 2 * broken.final_nash_conv + 0.01, 0.0]
  failed = [c for c in convergence.final_checks([broken]) if not c.passed]
  assert [c.name for c in failed] == ["kuhn_poker cfr seed 0 T=60: value of the average policy"]


def test_exploitability_decreases_and_figure_shows_every_solver(results):
  frame = convergence.results_frame(results)
  cfr = frame[frame.solver == "cfr"].exploitability.to_numpy()
  assert cfr[0] == pytest.approx(0.4583333333333333)  # Uniform play, OpenSpiel's Kuhn tests.
  assert cfr[-1] < 0.02
  fig = convergence.plot_game(frame, "kuhn_poker")
  by_iterations, by_time = fig.axes
  assert (by_iterations.get_xscale(), by_iterations.get_yscale()) == ("log", "log")
  assert by_iterations.get_xlabel() == "iterations T (log scale)"
  assert by_time.get_xlabel() == f"solver time ({solver_runs.SOLVER_TIME_UNIT}, log scale)"
  assert by_iterations.get_ylabel() == ("exploitability of the average policy (chips per hand, "
                                        "log scale)")
  # Our CFR and OpenSpiel's C++ CFR draw OpenSpiel's Python CFR's curve (same algorithm, equal to
  # rounding): the legend says so, and their looks differ so that each stays visible.
  same = " identical to CFR (OpenSpiel) to 1e-9"
  labels = {"CFR (OpenSpiel)", f"CFR (ours),{same}", f"CFR (OpenSpiel C++),{same}",
            "chance-sampling CFR (ours)", plotting.SQRT_GUIDE}
  summary = plotting.describe_figure(fig)
  [legend] = summary["legends"]
  assert set(legend["entries"]) == labels and legend["overlaps"] == []
  styles = summary["axes"][0]["styles"]
  for solver, label in (("cfr", "CFR (OpenSpiel)"), ("our_cfr", f"CFR (ours),{same}"),
                        ("cs_cfr", "chance-sampling CFR (ours)")):
    style = plotting.solver_style(solver)  # The solver's colour and look in every figure.
    assert styles[label]["color"] == matplotlib.colors.to_hex(style["color"])
    assert styles[label]["marker"] == style.get("marker", "None")
  assert styles[f"CFR (ours),{same}"]["marker"] != styles[f"CFR (OpenSpiel C++),{same}"]["marker"]
  # The plotted CFR series is the measured one, at the measuring points.
  line = by_iterations.get_lines()[0]
  assert list(line.get_ydata()) == pytest.approx(list(cfr))
  assert fig.get_suptitle() == "kuhn_poker: exact exploitability of the average policy"
  assert [by_iterations.get_title(), by_time.get_title()] == [
      "against iterations", "against the solver's own time"]


def test_identical_curves_only_within_1e_9(results):
  frame = convergence.results_frame(results)
  assert convergence.identical_curves(frame) == {"our_cfr": "cfr", "cfr_cpp": "cfr"}
  # Negative control: a difference of 1e-6 at one point is not "identical".
  moved = frame.copy()
  moved.loc[moved.index[moved.solver == "our_cfr"][3], "exploitability"] += 1e-6
  assert convergence.identical_curves(moved) == {"cfr_cpp": "cfr"}


def test_make_jobs_leaves_out_default_solvers_that_cannot_run():
  made = convergence.make_jobs([("kuhn_poker_ante(players=3)", 50)],
                               ["cfr", "our_cfr", "cfr_avg_d1", "cs_cfr"], seed=0, num_seeds=1,
                               default_solvers=True)
  # CFR-AVG with a depth limit needs two players; OpenSpiel's Python CFR on the Python
  # three-player game makes about 20 iterations per second.
  assert [j.solver for j in made] == ["our_cfr", "cs_cfr"]
  with pytest.raises(ValueError, match="needs a two-player zero-sum game"):
    convergence.make_jobs([("kuhn_poker(players=3)", 50)], ["cfr_avg_d1"], seed=0, num_seeds=1)


@pytest.fixture(scope="module")
def results_3p(tmp_path_factory):
  ctx = Context(convergence.NAME, tmp_path_factory.mktemp("convergence3"))
  return ctx.run_jobs(convergence.make_jobs(
      [("kuhn_poker(players=3)", 40), ("kuhn_poker(players=4)", 5)], ["cfr", "our_cfr"], seed=0,
      num_seeds=1))


def test_more_players_measure_nash_conv(results_3p):
  frame = convergence.results_frame(results_3p)
  assert set(frame.measure) == {"NashConv"}
  # Uniform play in three-player Kuhn poker: NashConv 2.0625 (OpenSpiel's nash_conv, in
  # test_measures_of_more_players); OpenSpiel's CFR and ours start from it.
  first = frame[(frame.game == "kuhn_poker(players=3)") & (frame.iteration == 1)]
  assert list(first.exploitability) == pytest.approx([2.0625, 2.0625])
  found = convergence.final_checks(results_3p)
  assert found and all(c.passed for c in found), [c for c in found if not c.passed]
  names = [c.name for c in found]
  assert "kuhn_poker(players=3) our_cfr seed 0 T=40: exact tree NashConv" in names
  # No game value with more than two players, and no comparison of implementations where the
  # uniform profile ties (three players at "0pp", four at "0p").
  assert not any("value" in n or " vs " in n for n in names)
  assert convergence.tied_games(["kuhn_poker", "kuhn_poker(players=3)",
                                 "kuhn_poker(players=4)"]) == {
                                     "kuhn_poker(players=3)": ["0pp"],
                                     "kuhn_poker(players=4)": ["0p"]}
  fig = convergence.plot_game(frame, "kuhn_poker(players=3)")
  assert "NashConv" in fig.axes[0].get_ylabel()


def test_text_and_legend_agree_where_implementations_are_not_checked(results_3p):
  # kuhn_poker(players=3) ties at the uniform profile: our CFR is not checked against OpenSpiel's
  # there, and the report's text says whether the figure's legend calls their curves identical.
  frame = convergence.results_frame(results_3p)
  game = "kuhn_poker(players=3)"
  moved = frame.copy()
  moved.loc[moved.index[(moved.solver == "our_cfr") & (moved.game == game)][3],
            "exploitability"] += 1e-6
  for data in (frame, moved):
    [legend] = plotting.describe_figure(convergence.plot_game(data, game))["legends"]
    identical = "CFR (ours), identical to CFR (OpenSpiel) to 1e-9" in legend["entries"]
    note = convergence.tie_note(convergence.tied_games([game]), data)
    assert "are not checked against each other on kuhn_poker(players=3) (tie at 0pp)" in note
    assert ("CFR (ours) drew the same curve as CFR (OpenSpiel) all the same (to 1e-9, so the "
            "figure's legend says \"identical to\")" in note) == identical
    assert ("CFR (ours) drew a different curve from CFR (OpenSpiel)" in note) == (not identical)
  assert convergence.identical_curves(frame[frame.game == game]) == {"our_cfr": "cfr"}


def test_a_perfect_information_game_is_refused_in_one_line():
  # tic_tac_toe: half a million histories, no information sets; refused before any work.
  with pytest.raises(ValueError) as raised:
    convergence.check_servable("tic_tac_toe")
  assert str(raised.value).startswith("--game tic_tac_toe: a perfect-information game; ")
  convergence.check_servable("leduc_poker")  # Imperfect information: served.
