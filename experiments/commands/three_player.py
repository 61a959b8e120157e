"""Three-player Kuhn poker: how CFR-family solvers converge, and to which equilibrium.

Games: OpenSpiel's ``kuhn_poker(players=3)`` and the project's ``kuhn_poker_ante(players=3)`` (the
same game: four cards, ante and bet 1), which have the Szafron-Gibson-Sturtevant family of exact
equilibria (D. Szafron, R. Gibson, N. Sturtevant, "A parameterized family of equilibrium profiles
for three-player Kuhn poker", AAMAS 2013; ``algorithms.exact.kuhn3_equilibria``), and one game off
the family, ``kuhn_poker_ante(players=3,ante=2.0)``, with no published closed form.

Every solver runs T iterations (``solver_registry.SAMPLED_BUDGET_FACTOR`` T for sampled solvers,
over several seeds); OpenSpiel's own solvers run ``PYTHON_GAME_ITERATIONS`` on games implemented
in Python, where each of their state steps crosses into Python (C++ CFR: about 25 iterations per
second on ``kuhn_poker_ante(players=3)`` against 2,000 on ``kuhn_poker(players=3)``). Each run is
measured three ways:

* NashConv of the average policy, sum_i (max_{s_i} u_i(s_i, sbar_-i) - u_i(sbar)), at log-spaced
  iterations, exactly on the game tree (``experiments.harness.measures``); exploitability is not
  used with three players (``measures``). CFR's regret bound gives no n-player equilibrium
  guarantee: whether NashConv goes to 0 is measured, not assumed.
* The players' values u_i(sbar) at T / 10 and T (separate runs of the same seed).
* On the family's games, the member nearest the average policy (``kuhn3_equilibria.nearest_member``:
  least squares over the 48 information states) and its values, which lie on the family's
  segment {(-1/48 - beta/24, -1/48, 1/24 + beta/24): beta in [0, 1/4]}.

Checks (tolerances of ``experiments.harness.references``, measured constants: no n-player theorem):
NashConv on the tree equals OpenSpiel's ``exploitability.nash_conv``; NashConv at T at most
``references.nash_conv_tolerance``; on the family's games every player's value within
``references.family_value_tolerance`` of the nearest member's; each engine solver gives the same
numbers on ``kuhn_poker(players=3)`` and ``kuhn_poker_ante(players=3)`` (one game, one tree);
and OpenSpiel's C++ CFR equals the engine's CFR at the same iteration on every game. (The uniform
profile of three-player Kuhn poker ties at "0pp", player 2's state, but with alternating updates
players 0 and 1 leave the uniform profile before player 2's regrets are computed, so no tie is
rounded and the two implementations agree.)
"""

import argparse
import pathlib
from typing import Dict, List, Sequence, Tuple

import matplotlib.figure
import numpy as np
import pandas as pd
import pyspiel

from algorithms.exact import kuhn3_equilibria
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import plotting
from experiments.harness import references
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

NAME = "three-player"
REPORT_ORDER = 30  # Place in the report (and in ``run``).
HELP = ("Three-player Kuhn poker: NashConv against iterations and time, and which member of the "
        "Szafron-Gibson-Sturtevant equilibrium family each solver approaches.")

FAMILY_GAMES = ("kuhn_poker(players=3)", "kuhn_poker_ante(players=3)")
NON_UNIT_GAME = "kuhn_poker_ante(players=3,ante=2.0)"
DEFAULT_GAMES = (*FAMILY_GAMES, NON_UNIT_GAME)
DEFAULT_SOLVERS = ("our_cfr", "our_cfr_plus", "our_lcfr", "our_dcfr", "cs_cfr", "cfr_cpp",
                   "mccfr_external_cpp")
ITERATIONS = arguments.Budget(default=3000, quick=200)
PYTHON_GAME_ITERATIONS = arguments.Budget(default=50, quick=10)
SEEDS = arguments.Budget(default=3, quick=2)
TRAJECTORY_DIVISORS = (10,)  # Values are also measured at T / 10.
NUM_MEASURING_POINTS = 20
CFR = "our_cfr"  # The engine's CFR, the reference of OpenSpiel's C++ CFR.
CPP_CFR = "cfr_cpp"
NASH_CONV_UNIT = "chips per hand"  # The sum of the players' best-response gains, in chips.
MARKERS = ("o", "s", "^", "D", "v", "P")
PLAYER_NAMES = ("player 0 (P1)", "player 1 (P2)", "player 2 (P3)")  # The paper's numbering.


def solver_budget(game: pyspiel.Game, solver: str, iterations: int,
                  python_iterations: int) -> int:
  """The iterations of ``solver`` on ``game``: T, or ``python_iterations`` for OpenSpiel's solvers
  on a Python game (``game_loader.is_python_game``); times ``SAMPLED_BUDGET_FACTOR`` if sampled."""
  spec = solver_registry.get_solver(solver)
  budget = (min(iterations, python_iterations)
            if not spec.engine and game_loader.is_python_game(game) else iterations)
  return budget * (solver_registry.SAMPLED_BUDGET_FACTOR if spec.sampled else 1)


def trajectory(iterations: int) -> List[int]:
  """T / d for d in ``TRAJECTORY_DIVISORS``, and T (those >= 1, distinct, increasing)."""
  return sorted({iterations // d for d in TRAJECTORY_DIVISORS if iterations // d >= 1}
                | {iterations})


def make_jobs(game_strings: Sequence[str], solvers: Sequence[str], seed: int, num_seeds: int,
              iterations: int, python_iterations: int) -> List[jobs_lib.Job]:
  """The sweep: every solver on every game at every point of its ``trajectory`` (keeping the
  average policy); sampled solvers with seeds seed .. seed + num_seeds - 1. The run to T is
  measured at log-spaced points, including ``python_iterations`` (where OpenSpiel's C++ CFR on a
  Python game is compared with the engine's CFR).

  Raises:
    ValueError: if a solver refuses a game (``jobs.refusal``, through ``jobs.runs_on``).
  """
  found = []
  for game_string in game_strings:
    game = game_loader.load_game(game_string, two_player_zero_sum=False)
    for solver in solvers:
      jobs_lib.runs_on(solver, game_string, default_solvers=False)  # Raises if refused.
      spec = solver_registry.get_solver(solver)
      budget = solver_budget(game, solver, iterations, python_iterations)
      points = jobs_lib.measuring_points(budget, NUM_MEASURING_POINTS, (python_iterations,))
      for s in range(seed, seed + (num_seeds if spec.sampled else 1)):
        for t in trajectory(budget):
          found.append(jobs_lib.Job(NAME, game_string, solver, s, t,
                                    measure_at=points if t == budget else (), keep_policy=True))
  return found


def final_runs(results: Sequence[jobs_lib.JobResult]) -> List[jobs_lib.JobResult]:
  """The runs to each (game, solver, seed)'s full budget (those with measuring points)."""
  longest: Dict[Tuple[str, str, int], jobs_lib.JobResult] = {}
  for r in results:
    key = (r.job.game, r.job.solver, r.job.seed)
    if key not in longest or r.job.iterations > longest[key].job.iterations:
      longest[key] = r
  return list(longest.values())


def curve_frame(results: Sequence[jobs_lib.JobResult]) -> pd.DataFrame:
  """One row per (final run, measuring point): game, solver, seed, iteration, seconds,
  NashConv."""
  rows = [{"game": r.job.game, "solver": r.job.solver, "seed": r.job.seed, "iteration": t,
           "seconds": sec, "nash_conv": e}
          for r in final_runs(results)
          for t, sec, e in zip(r.solved.iterations, r.solved.seconds, r.solved.curve)]
  return pd.DataFrame(rows, columns=["game", "solver", "seed", "iteration", "seconds",
                                     "nash_conv"])


Nearest = Dict[jobs_lib.Job, kuhn3_equilibria.NearestMember]


def nearest_members(results: Sequence[jobs_lib.JobResult]) -> Nearest:
  """The family member nearest each final run on a game of the family."""
  return {r.job: references.nearest_kuhn3_member(r) for r in final_runs(results)
          if references.has_kuhn3_family(
              game_loader.load_game(r.job.game, two_player_zero_sum=False))}


def runs_frame(results: Sequence[jobs_lib.JobResult], nearest: Nearest) -> pd.DataFrame:
  """One row per run (every trajectory point): NashConv, every player's value and, for the runs
  in ``nearest``, the nearest member (sub-family, beta, free parameters, distance) and its
  values."""
  rows = []
  for r in results:
    row = {"game": r.job.game, "solver": r.job.solver, "seed": r.job.seed,
           "T": r.job.iterations, "nash_conv": r.final_nash_conv,
           **{f"value_{i}": v for i, v in enumerate(r.values)}}
    if r.job in nearest:
      member = nearest[r.job].member
      row.update({"sub_family": member.sub_family, "beta": float(member.beta),
                  **{name: float(v) for name, v in member.parameters().items()},
                  "distance": nearest[r.job].distance,
                  "max_deviation": nearest[r.job].max_deviation,
                  **{f"member_value_{i}": float(v) for i, v in enumerate(member.values)}})
    rows.append(row)
  return pd.DataFrame(rows)


def run_checks(results: Sequence[jobs_lib.JobResult], nearest: Nearest) -> List[Check]:
  """The checks of the module docstring (``nearest``: ``nearest_members(results)``)."""
  found = []
  final = final_runs(results)
  for r in final:
    reference = {"players": len(r.values), "family": {} if r.job in nearest else None}
    found += references.n_player_run_checks(r, reference, nearest.get(r.job))
  by_key = {(r.job.game, r.job.solver, r.job.seed, r.job.iterations): r for r in results}
  openspiel_game, our_game = FAMILY_GAMES
  for (game, solver, seed, t), r in by_key.items():
    twin = by_key.get((our_game, solver, seed, t))
    if game == openspiel_game and twin is not None and solver_registry.get_solver(solver).engine:
      for label, a, b in [("NashConv", r.final_nash_conv, twin.final_nash_conv),
                          *[(f"value of player {i}", x, y)
                            for i, (x, y) in enumerate(zip(r.values, twin.values))]]:
        found.append(checks.same_number(
            f"{solver} seed {seed} T={t}: {label} on {our_game} = on {openspiel_game}", b, a,
            f"{openspiel_game} (one game, one tree)"))
  for r in final:
    if r.job.solver != CPP_CFR:
      continue
    engine = next((c for c in final if (c.job.game, c.job.solver) == (r.job.game, CFR)), None)
    if engine is not None and r.job.iterations in engine.solved.iterations:
      at = engine.solved.iterations.index(r.job.iterations)
      found.append(checks.same_number(
          f"{r.job.game} {CPP_CFR} vs {CFR}: NashConv at T={r.job.iterations}", r.final,
          engine.solved.curve[at], f"{solver_registry.get_solver(CFR).label} (same algorithm)"))
  return found


def log_slope(curve: pd.DataFrame) -> float:
  """The least-squares slope of log NashConv against log T over the last decade of iterations
  (NashConv ~ T^slope; -1/2 is CFR's two-player bound rate)."""
  last = curve[curve.iteration >= curve.iteration.max() / 10]
  if len(last) < 2 or (last.nash_conv <= 0).any():
    return float("nan")
  return float(np.polyfit(np.log(last.iteration), np.log(last.nash_conv), 1)[0])


def plot_nash_conv(curves: pd.DataFrame, game_strings: Sequence[str],
                   solvers: Sequence[str]) -> matplotlib.figure.Figure:
  """NashConv against iterations (top row) and solver time (bottom row), one column per game,
  log-log; sampled solvers as the median and min-max band over seeds; the O(1/sqrt(T)) guide
  from the highest first point."""
  fig, axes = plotting.subplots(2, len(game_strings), figsize=(4.6 * len(game_strings), 8.4),
                                sharey="row")
  for column, game in enumerate(game_strings):
    ax_it, ax_time = axes[0, column], axes[1, column]
    data = curves[curves.game == game]
    anchor = None
    for solver in solvers:
      runs = data[data.solver == solver]
      if runs.empty:
        continue
      label = solver_registry.get_solver(solver).label
      values = runs.pivot(index="seed", columns="iteration", values="nash_conv")
      x = values.columns.to_numpy(dtype=float)
      style = plotting.solver_style(solver)
      plotting.line_with_band(ax_it, x, values.to_numpy(), label, **style)
      times = runs.pivot(index="seed", columns="iteration", values="seconds").to_numpy()
      plotting.line_with_band(ax_time, np.median(times, axis=0), values.to_numpy(), label,
                              **style)
      first = float(np.median(values.to_numpy()[:, 0]))
      anchor = first if anchor is None else max(anchor, first)
    if anchor is not None and anchor > 0:
      x = np.sort(data.iteration.unique()).astype(float)
      plotting.sqrt_guide(ax_it, x, x[0], anchor)
    ax_it.set_title(game)
    plotting.log_log(ax_it, "iterations T", "NashConv", yunit=NASH_CONV_UNIT)
    plotting.log_log(ax_time, "solver time", "NashConv",
                     xunit="s, wall clock, measurements excluded", yunit=NASH_CONV_UNIT)
  for ax in axes[:, 1:].flat:
    ax.set_ylabel("")  # Shared with the left column.
  plotting.legend_below(fig, ncol=4, title="solver (sampled: median and min-max band over seeds)")
  fig.suptitle("Three-player Kuhn poker: NashConv of the average policy against iterations "
               "(top) and time (bottom); no n-player convergence guarantee")
  return fig


def _value_runs(runs: pd.DataFrame, game_strings: Sequence[str]) -> pd.DataFrame:
  """The runs on ``game_strings`` whose values are plotted: per (solver, seed), those of the game
  where it ran the most iterations (the engine's runs on the two family games are identical),
  leaving out the short runs of OpenSpiel's solvers on Python games (``PYTHON_GAME_ITERATIONS``)."""
  selected = runs[runs.game.isin(game_strings)]
  keep = []
  for (_, solver), group in selected.groupby(["seed", "solver"], sort=False):
    best = group.loc[group["T"].idxmax(), "game"]
    spec = solver_registry.get_solver(solver)
    if spec.engine or not game_loader.is_python_game(
        game_loader.load_game(best, two_player_zero_sum=False)):
      keep.append(group[group.game == best])
  return pd.concat(keep) if keep else selected.iloc[0:0]


def plot_family(runs: pd.DataFrame, solvers: Sequence[str]) -> matplotlib.figure.Figure:
  """Left: player 0's value against player 2's for every run (T/10, then T, large), the
  family's segment of values with beta marked, and a dotted line from each final point to its
  nearest member's values. Right: player 1's value against T with the family's constant -1/48."""
  data = _value_runs(runs, FAMILY_GAMES)
  fig, axes = plotting.subplots(1, 2, figsize=(12.5, 6.0), gridspec_kw={"width_ratios": [1.25, 1]})
  ax, ax_p1 = axes[0]
  betas = np.linspace(0, 0.25, 2)
  ax.plot(1 / 24 + betas / 24, -1 / 48 - betas / 24, color="black", linewidth=4, alpha=0.25,
          solid_capstyle="round",
          label="family: (1/24 + beta/24, -1/48 - beta/24), beta in [0, 1/4]")
  for beta in (0.0, 0.125, 0.25):
    ax.annotate(f"beta = {beta:g}", (1 / 24 + beta / 24, -1 / 48 - beta / 24), fontsize=7,
                textcoords="offset points", xytext=(6, 4), color="dimgrey")
  seen = set()
  for (solver, seed), group in data.groupby(["solver", "seed"], sort=False):
    group = group.sort_values("T")
    style = {"color": plotting.solver_style(solver)["color"],
             "marker": MARKERS[(seed - data.seed.min()) % len(MARKERS)]}
    label = solver_registry.get_solver(solver).label
    ax.plot(group.value_2, group.value_0, linewidth=0.8, markersize=3, alpha=0.7, **style)
    last = group.iloc[-1]
    # OpenSpiel's solvers: hollow and larger, so that an engine run at the same point shows.
    hollow = ({} if solver_registry.get_solver(solver).engine
              else {"markerfacecolor": "none", "markeredgewidth": 1.5})
    ax.plot([last.value_2], [last.value_0], markersize=11 if hollow else 8,
            markeredgecolor=style["color"] if hollow else "black", linestyle="none",
            label=None if solver in seen else label, **style, **hollow)
    ax.plot([last.value_2, last.member_value_2], [last.value_0, last.member_value_0],
            linestyle=":", color=style["color"], linewidth=0.8)
    ax_p1.plot(group["T"], group.value_1, linewidth=1, markersize=4,
               label=None if solver in seen else label, **style)
    seen.add(solver)
  ax.set_xlabel("value of player 2, the paper's P3 (chips per hand)")
  ax.set_ylabel("value of player 0, the paper's P1 (chips per hand)")
  ax.set_title("Players 0 and 2: runs (small: T/10; large: T) and the family")
  ax.grid(True, alpha=0.3)
  ax_p1.axhline(-1 / 48, color=plotting.REFERENCE_COLOR, linestyle="--", linewidth=1,
                label="family: player 1's value -1/48 for every member")
  ax_p1.set_xscale("log")
  ax_p1.set_xlabel(plotting.axis_label("iterations T", log=True))
  ax_p1.set_ylabel("value of player 1, the paper's P2 (chips per hand)")
  ax_p1.set_title("Player 1 against the family's constant value")
  ax_p1.grid(True, which="both", alpha=0.3)
  plotting.legend_below(fig, ncol=3, title="solver (marker: seed)")
  fig.suptitle("Three-player Kuhn poker: values of the average policies against the "
               "Szafron-Gibson-Sturtevant family")
  return fig


def plot_values(runs: pd.DataFrame, game: str,
                solvers: Sequence[str]) -> matplotlib.figure.Figure:
  """Every player's value of the average policy against T, one panel per player, for a game
  without a known equilibrium (no reference line)."""
  data = _value_runs(runs, [game])
  players = sum(c.startswith("value_") for c in data.columns if data[c].notna().any())
  fig, axes = plotting.subplots(1, players, figsize=(4.3 * players, 4.8))
  seen = set()
  for (solver, seed), group in data.groupby(["solver", "seed"], sort=False):
    group = group.sort_values("T")
    style = {"color": plotting.solver_style(solver)["color"],
             "marker": MARKERS[(seed - data.seed.min()) % len(MARKERS)]}
    for p, ax in enumerate(axes[0]):
      ax.plot(group["T"], group[f"value_{p}"], linewidth=1, markersize=4,
              label=None if solver in seen else solver_registry.get_solver(solver).label,
              **style)
    seen.add(solver)
  for p, ax in enumerate(axes[0]):
    ax.set_xscale("log")
    ax.set_xlabel(plotting.axis_label("iterations T", log=True))
    ax.set_ylabel(f"value of player {p} (chips per hand)")
    ax.set_title(f"player {p}")
    ax.grid(True, which="both", alpha=0.3)
  plotting.legend_below(fig, ncol=4, title="solver (marker: seed)")
  fig.suptitle(f"{game}: players' values of the average policy (no published equilibrium)")
  return fig


def add_arguments(parser: argparse.ArgumentParser) -> None:
  arguments.add_game_and_solver_lists(
      parser, game_help="game (repeatable; default: " + ", ".join(DEFAULT_GAMES)
      + "); the family analysis applies to three-player Kuhn poker at ante = bet = 1",
      solver_help="solver (repeatable; default: " + ", ".join(DEFAULT_SOLVERS) + ")")
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("iterations of full-traversal solvers ("
                                           f"{solver_registry.SAMPLED_BUDGET_FACTOR}x for "
                                           "sampled ones)"))
  parser.add_argument("--python-game-iterations", type=arguments.positive_int, metavar="T",
                      help=PYTHON_GAME_ITERATIONS.help("iterations of OpenSpiel's solvers on "
                                                       "games implemented in Python"))
  parser.add_argument("--seeds", type=arguments.positive_int, metavar="K",
                      help=SEEDS.help("seeds per sampled solver"))


def _span(values: pd.Series, digits: int = 3) -> str:
  """"x" for one distinct value, else "min to max"."""
  low, high = float(values.min()), float(values.max())
  return f"{low:.{digits}g}" if low == high else f"{low:.{digits}g} to {high:.{digits}g}"


def summary_frame(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
  """Per final run: NashConv, its fitted slope (``log_slope``), the values and, on the family's
  games, the nearest member. The engine's runs on ``kuhn_poker_ante(players=3)`` are left out:
  they equal those on ``kuhn_poker(players=3)`` (checked)."""
  final = runs.loc[runs.groupby(["game", "solver", "seed"])["T"].idxmax()]
  rows = []
  for _, r in final.iterrows():
    if r.game == FAMILY_GAMES[1] and solver_registry.get_solver(r.solver).engine:
      continue
    curve = curves[(curves.game == r.game) & (curves.solver == r.solver)
                   & (curves.seed == r.seed)]
    row = {"game": r.game, "solver": r.solver, "seed": r.seed, "T": r["T"],
           "NashConv": r.nash_conv, "slope": log_slope(curve),
           "values": ", ".join(f"{r[f'value_{i}']:+.5f}" for i in range(3)),
           "nearest member": "-", "distance": "-"}
    if isinstance(r.get("sub_family"), str):
      names = kuhn3_equilibria.free_parameters(r.sub_family)
      row.update({"nearest member": f"{r.sub_family}: beta = {r.beta:.4f}; "
                  + ", ".join(f"{n} = {r[n]:.3f}" for n in names),
                  "distance": f"{r.distance:.3g}"})
    rows.append(row)
  return pd.DataFrame(rows, columns=["game", "solver", "seed", "T", "NashConv", "slope", "values",
                                     "nearest member", "distance"])


def member_frame(runs: pd.DataFrame) -> pd.DataFrame:
  """Per solver, over its seeds: the family member its average policy approaches on the family's
  games (sub-families, beta, distance) at its final T, with NashConv there."""
  data = _value_runs(runs, FAMILY_GAMES)
  if data.empty or "sub_family" not in data:
    return pd.DataFrame()
  final = data.loc[data.groupby(["solver", "seed"])["T"].idxmax()]
  rows = []
  for solver, group in final.groupby("solver", sort=False):
    rows.append({"solver": solver_registry.get_solver(solver).label, "T": int(group["T"].max()),
                 "seeds": len(group), "NashConv": _span(group.nash_conv),
                 "sub-family": ", ".join(sorted(set(group.sub_family))),
                 "beta": _span(group.beta), "P0 value": _span(group.value_0, 4),
                 "P2 value": _span(group.value_2, 4), "distance": _span(group.distance, 2)})
  return pd.DataFrame(rows)


def save_figures(curves: pd.DataFrame, runs: pd.DataFrame, game_strings: Sequence[str],
                 solvers: Sequence[str], out: pathlib.Path) -> Tuple[List[str], List[str]]:
  """Draws and saves the figures in ``out``: NashConv of the games played, the family's values if
  a family game was run, every player's values on each game without a known equilibrium.

  Returns:
    The figures' file names and their captions, in the same order.
  """
  figures, captions = [], []
  played = [g for g in game_strings if (curves.game == g).any()]
  if played:
    plotting.save_figure(plot_nash_conv(curves, played, solvers),
                         out / "three_player_nash_conv.png")
    figures.append("three_player_nash_conv.png")
    captions.append(NASH_CONV_CAPTION)
  if not _value_runs(runs, FAMILY_GAMES).empty:
    plotting.save_figure(plot_family(runs, solvers), out / "three_player_family.png")
    figures.append("three_player_family.png")
    captions.append(FAMILY_CAPTION)
  for game in played:
    if game not in FAMILY_GAMES and not references.has_kuhn3_family(
        game_loader.load_game(game, two_player_zero_sum=False)):
      name = f"three_player_values_{plotting.slug(game)}.png"
      plotting.save_figure(plot_values(runs, game, solvers), out / name)
      figures.append(name)
      captions.append(values_caption(name, game))
  return figures, captions


# The report's text ------------------------------------------------------------------------------


TITLE = "Three-player Kuhn poker: convergence and the equilibrium family"
NASH_CONV_CAPTION = (
    "`three_player_nash_conv.png`: NashConv (chips) of each solver's average policy against "
    "iterations (top) and solver time (bottom), one column per game, log-log; bands: min-max "
    "over seeds; dashed: O(1/sqrt(T)).")
FAMILY_CAPTION = (
    "`three_player_family.png`: left, player 0's value against player 2's for every run (T/10, "
    "large marker T) beside the family's segment of values (grey; dotted: to the nearest "
    "member's values); right, player 1's value against T beside the family's constant -1/48.")
FAMILY_PARAGRAPH = (
    "**Which equilibrium.** On `kuhn_poker(players=3)` (= `kuhn_poker_ante(players=3)`, one "
    "game: each engine solver gives identical numbers on both, checked) the reference is the "
    "Szafron-Gibson-Sturtevant family (AAMAS 2013): values (-1/48 - beta/24, -1/48, "
    "1/24 + beta/24) for players 0, 1, 2 (the paper's P1, P2, P3), beta = max(b11, b21) in "
    "[0, 1/4]. The member nearest each average policy (least squares over the 48 information "
    "states; distance: Euclidean, over the 48 probabilities of betting or calling):")
NO_FAMILY_GAME = "(no family game run)"
SUMMARY_PARAGRAPH = (
    f"**Every run**, and `{NON_UNIT_GAME}`, which has no published closed form: NashConv at T, "
    "its slope (least-squares slope of log NashConv against log T over the last decade of "
    "iterations; -1/2 would be the two-player bound's rate), the values the runs reach and, on "
    "the family's game, the nearest member with its free parameters.")


def values_caption(name: str, game: str) -> str:
  """The caption of figure ``name``, ``plot_values`` on ``game``."""
  return (f"`{name}`: every player's value of the average policy against T on {game}, one panel "
          "per player; no published equilibrium to compare with.")


def intro_paragraph(iterations: int, num_seeds: int, seed: int, python_iterations: int) -> str:
  """The section's opening: NashConv instead of exploitability, and the budgets of the run."""
  return (
      "Three-player Kuhn poker. With three players exploitability is replaced by **NashConv** "
      "(the sum of the players' best-response gains, exact on the game tree and checked against "
      "OpenSpiel's `exploitability.nash_conv`); CFR has no n-player convergence guarantee, so "
      "whether NashConv goes to 0 is measured here. Full-traversal solvers run "
      f"T = {iterations} iterations, sampled ones {solver_registry.SAMPLED_BUDGET_FACTOR}x "
      f"with {num_seeds} seeds ({seed}..{seed + num_seeds - 1}); OpenSpiel's solvers run "
      f"{python_iterations} (sampled: {solver_registry.SAMPLED_BUDGET_FACTOR}x) on games "
      "written in Python, where each of their state steps crosses into Python, only to check "
      "them against the engine there.")


def report_markdown(intro: str, members: pd.DataFrame, summary: pd.DataFrame,
                    captions: Sequence[str]) -> str:
  """The section's text: ``intro``, the family members with their table, every run's summary
  table, and the figures' captions."""
  return "\n".join([
      intro,
      "",
      FAMILY_PARAGRAPH,
      "",
      tables.markdown_table(members, digits=4) if not members.empty else NO_FAMILY_GAME,
      "",
      SUMMARY_PARAGRAPH,
      "",
      tables.markdown_table(summary, digits=4),
      "",
      "Figures: " + " ".join(captions)])


# The experiment ---------------------------------------------------------------------------------


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  game_strings = args.game or list(DEFAULT_GAMES)
  solvers = args.solver or list(DEFAULT_SOLVERS)
  iterations = ITERATIONS.resolve(args.iterations, ctx.quick)
  python_iterations = PYTHON_GAME_ITERATIONS.resolve(args.python_game_iterations, ctx.quick)
  num_seeds = SEEDS.resolve(args.seeds, ctx.quick)
  results = ctx.run_jobs(make_jobs(game_strings, solvers, ctx.seed, num_seeds, iterations,
                                   python_iterations))
  nearest = nearest_members(results)
  curves, runs = curve_frame(results), runs_frame(results, nearest)
  tables.write_csv(curves, ctx.out / "three_player_curves.csv")
  tables.write_csv(runs, ctx.out / "three_player_runs.csv")
  summary = summary_frame(runs, curves)
  tables.write_csv(summary, ctx.out / "three_player_summary.csv")
  figures, captions = save_figures(curves, runs, game_strings, solvers, ctx.out)
  markdown = report_markdown(intro_paragraph(iterations, num_seeds, ctx.seed, python_iterations),
                             member_frame(runs), summary, captions)
  return ReportSection(title=TITLE, markdown=markdown, figures=figures,
                       tables=["three_player_summary.csv", "three_player_runs.csv",
                               "three_player_curves.csv"],
                       checks=run_checks(results, nearest))
