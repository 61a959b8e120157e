"""Convergence: exploitability (or NashConv) of the average policy against iterations and the
solver's CPU time.

For every (game, solver) pair the solver runs T iterations; at log-spaced iterations t the
exploitability of its average policy, (max_s0 u_0(s0, sbar_1) + max_s1 u_1(sbar_0, s1)) / 2, is
measured exactly on the game tree (``algorithms.TreeEvaluator``), and the solver's own time (the
measurement excluded) is recorded. Sampled solvers run with several seeds and are drawn as the
median with a min-max band. The plots are log-log with an O(1/sqrt(T)) guide line, the rate of
CFR's bound (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
information", NeurIPS 2007, Theorem 4).

Games with more than two players (e.g. ``kuhn_poker(players=3)``) or not zero-sum have no
exploitability: there NashConv, sum_i (max_{s_i} u_i(s_i, sbar_-i) - u_i(sbar)), is measured
instead (``experiments.harness.measures``), and no game value exists. CFR's bound does not hold
there either; the guide line is drawn for comparison only.

Checks, at the final point of every run: the tree exploitability (or NashConv) equals OpenSpiel's
``exploitability.exploitability`` (or ``exploitability.nash_conv``); in two-player zero-sum games
the value of the average policy is within its NashConv (2 exploitability) of the game value
(closed form for three-card Kuhn games, else the sequence-form LP, skipped above
``game_loader.LP_MAX_HISTORIES``); and when both are run, OpenSpiel's C++ CFR and this project's CFR
and CFR+ agree with OpenSpiel's Python CFR and CFR+ (same algorithm, so the same numbers up to
rounding), except on games where two actions tie at the uniform first iterate
(``game_loader.uniform_profile_ties``, e.g. three- and four-player Kuhn poker), where rounding
decides what each implementation plays next and both runs are correct CFR.

Default solvers that cannot run on a game are left out of it (``jobs.skip_reason``: CFR-AVG with
a depth limit needs two players; OpenSpiel's full-traversal solvers are too slow on Python games
with more than two players); a solver named with ``--solver`` that refuses a game is an error.
"""

import argparse
from typing import Dict, List, Sequence, Tuple

import matplotlib.figure
import numpy as np
import pandas as pd
import pyspiel

from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import measures
from experiments.harness import plotting
from experiments.harness import references
from experiments.harness import solver_registry
from experiments.harness import solver_runs
from experiments.harness import tables
from experiments.harness import templates
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

NAME = "convergence"
REPORT_ORDER = 20  # Place in the report (and in ``run``).
HELP = ("Exploitability (NashConv with more than two players) against iterations and CPU time "
        "for every solver on every game.")

# (game string, iterations, iterations at --quick).
DEFAULT_GAMES: Tuple[Tuple[str, int, int], ...] = (
    ("kuhn_poker", 1000, 100),
    ("kuhn_poker_ante(ante=0.25)", 1000, 100),
    ("kuhn_poker_ante(ante=0.75)", 1000, 100),
    ("kuhn_poker_ante(ante=2.0)", 1000, 100),
    ("kuhn_poker_ante(ante=0.25,simplified=True)", 1000, 100),
    ("kuhn_poker_ante(ante=1.0,simplified=True)", 1000, 100),
    ("leduc_poker", 60, 8),
)
OTHER_GAMES = arguments.Budget(default=DEFAULT_GAMES[0][1], quick=DEFAULT_GAMES[0][2])
SEEDS = arguments.Budget(default=3, quick=2)
NUM_MEASURING_POINTS = 20
UNIT = "chips per hand"  # Of the exploitability: the games' payoffs are chips.
# The report's words (paragraphs, notes, the figures' caption), in ``convergence.md`` beside this
# file.
CAPTIONS = templates.load(__package__, "convergence.md")
# The report's summary table: column -> header.
SUMMARY_HEADERS = {
    "measure": "measure", "iterations": "iterations T", "seeds": "seeds",
    "final_median": f"final measure, median over seeds ({UNIT})",
    "final_max": f"final measure, largest over seeds ({UNIT})",
    "seconds": "solver time, median over seeds (s)"}
# Pairs (solver, reference solver) that implement the same algorithm, so must agree exactly.
SAME_ALGORITHM = (("cfr_cpp", "cfr"), ("our_cfr", "cfr"), ("our_cfr_plus", "cfr_plus"),
                  ("our_mccfr_external", "mccfr_external"),
                  ("our_mccfr_outcome", "mccfr_outcome"))


def make_jobs(game_budgets: Sequence[Tuple[str, int]], solvers: Sequence[str], seed: int,
              num_seeds: int, default_solvers: bool = False) -> List[jobs_lib.Job]:
  """The sweep: every solver on every (game, iterations); sampled solvers with seeds
  seed, seed + 1, ..., seed + num_seeds - 1 and ``solver_registry.SAMPLED_BUDGET_FACTOR`` times
  the iterations, the others with ``seed`` only; log-spaced measuring points.

  With ``default_solvers``, pairs that ``jobs.skip_reason`` names are left out; else a solver
  that refuses a game (``jobs.refusal``) is a ValueError (one line).
  """
  found = []
  for game, iterations in game_budgets:
    for solver in solvers:
      if not jobs_lib.runs_on(solver, game, default_solvers):
        continue
      spec = solver_registry.get_solver(solver)
      budget = iterations * (solver_registry.SAMPLED_BUDGET_FACTOR if spec.sampled else 1)
      points = jobs_lib.measuring_points(budget, NUM_MEASURING_POINTS)
      for s in range(seed, seed + (num_seeds if spec.sampled else 1)):
        found.append(jobs_lib.Job(NAME, game, solver, s, budget, measure_at=points))
  return found


def results_frame(results: Sequence[jobs_lib.JobResult]) -> pd.DataFrame:
  """One row per (job, measuring point): game, solver, seed, iteration, seconds, measure."""
  rows = []
  for r in results:
    for t, sec, e in zip(r.solved.iterations, r.solved.seconds, r.solved.curve):
      rows.append({"game": r.job.game, "solver": r.job.solver, "seed": r.job.seed,
                   "iteration": t, "seconds": sec, "measure": r.solved.measure,
                   "exploitability": e})
  return pd.DataFrame(rows, columns=["game", "solver", "seed", "iteration", "seconds", "measure",
                                     "exploitability"])


def identical_curves(frame: pd.DataFrame, tolerance: float = 1e-9) -> Dict[str, str]:
  """{solver: reference solver} for the ``SAME_ALGORITHM`` pairs in ``frame`` (one game) whose
  median curves against iterations agree within ``tolerance`` at every measuring point."""
  curves = {solver: runs.groupby("iteration").exploitability.median()
            for solver, runs in frame.groupby("solver")}
  return {solver: reference for solver, reference in SAME_ALGORITHM
          if solver in curves and reference in curves
          and curves[solver].index.equals(curves[reference].index)
          and plotting.same_curve(curves[solver], curves[reference], tolerance)}


def plot_game(frame: pd.DataFrame, game: str) -> matplotlib.figure.Figure:
  """Log-log exploitability against iterations and against solver time for one game.

  Each solver is drawn in its ``plotting.solver_style``; a solver whose curve equals that of
  another implementation of its algorithm (``identical_curves``) says so in its legend entry,
  since it lies exactly on it.
  """
  data = frame[frame.game == game]
  measure = data.measure.iloc[0] if len(data) else "exploitability"
  fig, axes = plotting.subplots(1, 2, figsize=(11, 5.2), sharey=True)
  ax_it, ax_time = axes[0]
  same = identical_curves(data)
  anchor = None
  for solver, runs in data.groupby("solver", sort=False):
    label = solver_registry.get_solver(solver).label
    if solver in same:
      label += f", identical to {solver_registry.get_solver(same[solver]).label} to 1e-9"
    style = plotting.solver_style(solver)
    pivot = runs.pivot(index="seed", columns="iteration", values="exploitability")
    iterations = pivot.columns.to_numpy(dtype=float)
    plotting.line_with_band(ax_it, iterations, pivot.to_numpy(), label, **style)
    times = runs.pivot(index="seed", columns="iteration", values="seconds")
    plotting.line_with_band(ax_time, np.median(times.to_numpy(), axis=0), pivot.to_numpy(),
                            label, **style)
    start = float(np.median(pivot.to_numpy()[:, 0]))
    anchor = start if anchor is None else max(anchor, start)
  all_iterations = np.sort(data.iteration.unique()).astype(float)
  if anchor is not None and anchor > 0:
    plotting.sqrt_guide(ax_it, all_iterations, all_iterations[0], anchor)
  plotting.log_log(ax_it, "iterations T", f"{measure} of the average policy", yunit=UNIT)
  plotting.log_log(ax_time, "solver time", f"{measure} of the average policy",
                   xunit=solver_runs.SOLVER_TIME_UNIT, yunit=UNIT)
  ax_time.set_ylabel("")  # Shared with the left panel.
  ax_it.set_title("against iterations")
  ax_time.set_title("against the solver's own time")
  plotting.legend_below(fig, ncol=2)
  fig.suptitle(f"{game}: exact {measure} of the average policy")
  return fig


def game_values(game_strings: Sequence[str]) -> Dict[str, Tuple[float, str]]:
  """The value and its source of each two-player zero-sum game small enough for the exact
  references."""
  found = {}
  for game in game_strings:
    loaded = game_loader.load_game(game, two_player_zero_sum=False)
    if (game_loader.is_two_player_zero_sum(loaded)
        and game_loader.histories(game) <= game_loader.LP_MAX_HISTORIES):
      found[game] = references.game_value(loaded)
  return found


def tied_games(game_strings: Sequence[str]) -> Dict[str, List[str]]:
  """The games with ties at the uniform profile (``game_loader.uniform_profile_ties``) -> the tied
  information states."""
  found = {}
  for game in game_strings:
    ties = game_loader.uniform_profile_ties(game_loader.load_game(game, two_player_zero_sum=False))
    if ties:
      found[game] = ties
  return found


def final_checks(results: Sequence[jobs_lib.JobResult]) -> List[Check]:
  """Checks of the final points (see the module docstring)."""
  values = game_values(sorted({r.job.game for r in results}))
  found = []
  final = {}
  measure = {}
  for r in results:
    job = r.job
    label = f"{job.game} {job.solver} seed {job.seed} T={job.iterations}"
    final[(job.game, job.solver, job.seed)] = r.final
    measure[job.game] = r.solved.measure
    if r.solved.openspiel is not None:  # None past OpenSpiel's walkable size (large decks)
      found.append(checks.same_number(f"{label}: exact tree {r.solved.measure}", r.final,
                                      r.solved.openspiel, f"OpenSpiel {r.solved.measure}"))
    if job.game in values:
      value, source = values[job.game]
      found.append(checks.within_nash_conv(f"{label}: value of the average policy", r.value,
                                           value, r.final_nash_conv, source))
  tied = tied_games(sorted(measure))
  for (game, solver, seed), measured in final.items():
    for other, reference in SAME_ALGORITHM:
      if solver == other and (game, reference, seed) in final and game not in tied:
        found.append(checks.same_number(
            f"{game} {solver} vs {reference}: final {measure[game]}", measured,
            final[(game, reference, seed)],
            f"{solver_registry.get_solver(reference).label} (same algorithm)"))
  return found


def tie_note(tied: Dict[str, List[str]], frame: pd.DataFrame) -> str:
  """The report's sentence on games where implementations of one algorithm are not checked
  against each other, with what the figures' legends say of them in this run."""
  if not tied:
    return ""
  text = " " + CAPTIONS.fill("tie_note", games=", ".join(
      f"{g} (tie at {', '.join(t)})" for g, t in tied.items()))
  for game in tied:
    same = identical_curves(frame[frame.game == game])
    pairs = [(solver, reference) for solver, reference in SAME_ALGORITHM
             if {solver, reference} <= set(frame.solver[frame.game == game])]
    if not pairs:
      continue
    label = {x: solver_registry.get_solver(x).label for pair in pairs for x in pair}
    agree = [(label[a], label[b]) for a, b in pairs if a in same]
    parts = [f"{label[a]} drew a different curve from {label[b]}"
             for a, b in pairs if a not in same]
    if agree:
      parts.insert(0, f"{agree[0][0]} drew the same curve as {agree[0][1]}" + "".join(
          f", and {a} as {b}" for a, b in agree[1:]) + " all the same (to 1e-9, so the "
          "figure's legend says \"identical to\")")
    text += f" In this run, on {game}: " + "; ".join(parts) + "."
  return text


def report_markdown(summary: pd.DataFrame, num_seeds: int, seed: int, n_player: Sequence[str],
                    ties: str, skipped: Sequence[str]) -> str:
  """The section's text: the opening (``num_seeds`` seeds from ``seed``; the games measured by
  NashConv, ``n_player``; the note on ties, ``tie_note``), the summary table, the games too
  large for an exact value (``skipped``) and the figures' caption."""
  return (
      CAPTIONS.fill("intro", num_seeds=num_seeds, first_seed=seed, last_seed=seed + num_seeds - 1)
      + (" " + CAPTIONS.fill("n_player_note", games=", ".join(n_player)) if n_player else "")
      + ties
      + "\n\n" + tables.markdown_table(summary, digits=3)
      + ("\n\n" + CAPTIONS.fill("no_game_value", limit=game_loader.LP_MAX_HISTORIES,
                                 games=", ".join(skipped)) if skipped else "")
      + "\n\n" + CAPTIONS["figures"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  arguments.add_game_and_solver_lists(
      parser, game_help="OpenSpiel game string (repeatable; any number of players: NashConv "
      "replaces exploitability beyond two-player zero-sum games); default: "
      + ", ".join(g for g, _, _ in DEFAULT_GAMES),
      solver_help="solver (repeatable), one of " + ", ".join(solver_registry.available_solvers())
      + "; default: " + ", ".join(solver_registry.report_solvers()))
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help="iterations for every game (default: per game, "
                      + ", ".join(f"{g} {full} ({quick} with --quick)"
                                  for g, full, quick in DEFAULT_GAMES)
                      + f"; other games {OTHER_GAMES.default} ({OTHER_GAMES.quick} with --quick))")
  parser.add_argument("--seeds", type=arguments.positive_int, metavar="K",
                      help=SEEDS.help("seeds per sampled solver"))


def game_budgets(args: argparse.Namespace, quick: bool) -> List[Tuple[str, int]]:
  """(game, iterations) pairs from the options: explicit games or the defaults."""
  defaults = {g: arguments.Budget(full, fast) for g, full, fast in DEFAULT_GAMES}
  selected = args.game or [g for g, _, _ in DEFAULT_GAMES]
  return [(game, defaults.get(game, OTHER_GAMES).resolve(args.iterations, quick))
          for game in selected]


def check_servable(game_string: str) -> None:
  """Refuses, in one line before any work, a game the command cannot serve: one of perfect
  information, where CFR's regrets are those of a game without information sets and minimax
  solves it exactly (e.g. tic_tac_toe: half a million histories, minutes per iteration in
  Python).

  Raises:
    ValueError: naming the game and what the command measures.
  """
  game = game_loader.load_game(game_string, two_player_zero_sum=False)
  if game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION:
    raise ValueError(f"--game {game_string}: a perfect-information game; convergence measures "
                     "CFR on imperfect-information games (e.g. kuhn_poker, leduc_poker, "
                     "kuhn_poker_ante(...)); solve a perfect-information game by minimax")


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  budgets = game_budgets(args, ctx.quick)
  for game, _ in budgets:
    check_servable(game)
  solvers = args.solver or solver_registry.report_solvers()
  num_seeds = SEEDS.resolve(args.seeds, ctx.quick)
  results = ctx.run_jobs(make_jobs(budgets, solvers, ctx.seed, num_seeds,
                                   default_solvers=args.solver is None))
  frame = results_frame(results)
  tables.write_csv(frame, ctx.out / "convergence.csv")
  figures = []
  for game, _ in budgets:
    if (frame.game == game).any():
      name = f"convergence_{plotting.slug(game)}.png"
      plotting.save_figure(plot_game(frame, game), ctx.out / name)
      figures.append(name)
  final = frame.loc[frame.groupby(["game", "solver", "seed"]).iteration.idxmax()]
  summary = final.groupby(["game", "solver"]).agg(
      measure=("measure", "first"), iterations=("iteration", "first"), seeds=("seed", "count"),
      final_median=("exploitability", "median"), final_max=("exploitability", "max"),
      seconds=("seconds", "median")).reset_index().rename(columns=SUMMARY_HEADERS)
  skipped = [g for g, _ in budgets if game_loader.histories(g) > game_loader.LP_MAX_HISTORIES]
  n_player = sorted(set(frame.game[frame.measure == measures.NASH_CONV]))
  markdown = report_markdown(summary, num_seeds, ctx.seed, n_player,
                             tie_note(tied_games(sorted(set(frame.game))), frame), skipped)
  return ReportSection(title="Convergence of CFR solvers", markdown=markdown, figures=figures,
                       tables=["convergence.csv"], checks=final_checks(results))
