"""Convergence: exploitability of the average policy against iterations and wall time.

For every (game, solver) pair the solver runs T iterations; at log-spaced iterations t the
exploitability of its average policy, (max_s0 u_0(s0, sbar_1) + max_s1 u_1(sbar_0, s1)) / 2, is
measured exactly on the game tree (``algorithms.TreeEvaluator``), and the solver's own time (the
measurement excluded) is recorded. Sampled solvers run with several seeds and are drawn as the
median with a min-max band. The plots are log-log with an O(1/sqrt(T)) guide line, the rate of
CFR's bound (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
information", NeurIPS 2007, Theorem 4).

Checks, at the final point of every run: the tree exploitability equals OpenSpiel's
``exploitability.exploitability``; the value of the average policy is within its NashConv
(2 exploitability) of the game value from the sequence-form LP (for any profile both lie between
player 0's best-response values against each side); and when both are run, OpenSpiel's C++ CFR
and this project's CFR and CFR+ agree with OpenSpiel's Python CFR and CFR+ (same algorithm, so
the same numbers up to rounding).
"""

import argparse
import math
import pathlib
from typing import List, Sequence, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from algorithms import sequence_form_lp
from experiments import cli
from experiments import plotting
from experiments import reference_check
from experiments import report
from experiments import solver_registry
from experiments import sweep
from experiments.report_section import Check, ReportSection

NAME = "convergence"
HELP = "Exploitability against iterations and wall time for every solver on every game."

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
DEFAULT_SOLVERS = ("cfr", "cfr_plus", "our_cfr", "cs_cfr", "cfr_avg_d1")
DEFAULT_SEEDS = 3
QUICK_SEEDS = 2
NUM_CHECKPOINTS = 20
LINE_STYLES = ("-", "--", "-.", ":")  # Solvers of the same algorithm overlap; styles tell them.
# Pairs (solver, reference solver) that implement the same algorithm, so must agree exactly.
SAME_ALGORITHM = (("cfr_cpp", "cfr"), ("our_cfr", "cfr"), ("our_cfr_plus", "cfr_plus"))
SAME_ALGORITHM_TOLERANCE = 1e-9  # Floating-point summation order only.


def log_checkpoints(iterations: int, count: int = NUM_CHECKPOINTS) -> List[int]:
  """About ``count`` log-spaced iterations from 1 to ``iterations`` inclusive."""
  marks = np.unique(np.round(np.logspace(0, math.log10(iterations), count)).astype(int))
  return [int(m) for m in marks]


def convergence_job(job: sweep.Job) -> sweep.JobResult:
  """Runs one (game, solver, seed) for ``job.budget`` iterations with log-spaced checkpoints."""
  return solver_registry.solve(job.game, job.solver, job.seed, job.budget,
                               checkpoints=log_checkpoints(job.budget), keep_policy=False)


def make_jobs(games: Sequence[Tuple[str, int]], solvers: Sequence[str], seed: int,
              num_seeds: int) -> List[sweep.Job]:
  """The sweep: every solver on every (game, iterations); sampled solvers with seeds
  seed, seed + 1, ..., seed + num_seeds - 1 and ``solver_registry.SAMPLED_BUDGET_FACTOR`` times
  the iterations, the others with ``seed`` only."""
  jobs = []
  for game, iterations in games:
    for solver in solvers:
      spec = solver_registry.get_solver(solver)
      budget = iterations * (solver_registry.SAMPLED_BUDGET_FACTOR if spec.sampled else 1)
      for s in range(seed, seed + (num_seeds if spec.sampled else 1)):
        jobs.append(sweep.Job(NAME, game, solver, s, budget))
  return jobs


def results_frame(results: Sequence[sweep.JobResult]) -> pd.DataFrame:
  """One row per (job, checkpoint): game, solver, seed, iteration, seconds, exploitability."""
  rows = []
  for r in results:
    for t, sec, e in zip(r["iterations"], r["timing"]["seconds"], r["exploitability"]):
      rows.append({"game": r["job"]["game"], "solver": r["job"]["solver"],
                   "seed": r["job"]["seed"], "iteration": t, "seconds": sec,
                   "exploitability": e})
  return pd.DataFrame(rows, columns=["game", "solver", "seed", "iteration", "seconds",
                                     "exploitability"])


def plot_game(frame: pd.DataFrame, game: str, path: pathlib.Path) -> pathlib.Path:
  """Log-log exploitability against iterations and against solver time for one game."""
  data = frame[frame.game == game]
  fig, (ax_it, ax_time) = plt.subplots(1, 2, figsize=(11, 4.2))
  anchor = None
  for index, (solver, runs) in enumerate(data.groupby("solver", sort=False)):
    label = solver_registry.SOLVERS[solver].label
    style = {"linestyle": LINE_STYLES[index % len(LINE_STYLES)]}
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
  for ax, xlabel in ((ax_it, "iterations T"), (ax_time, "solver time (s)")):
    plotting.log_log(ax, xlabel, "exploitability of the average policy")
  ax_it.legend(fontsize=8)
  fig.suptitle(f"{game}: exact exploitability of the average policy")
  return plotting.save_figure(fig, path)


def checks(results: Sequence[sweep.JobResult]) -> List[Check]:
  """Checks of the final points (see the module docstring)."""
  lp_values = {game: sequence_form_lp.solve_game(solver_registry.load_game(game)).value
               for game in {r["job"]["game"] for r in results}}
  found = []
  final = {}
  for r in results:
    job = r["job"]
    label = f"{job['game']} {job['solver']} seed {job['seed']} T={job['budget']}"
    expl = r["exploitability"][-1]
    final[(job["game"], job["solver"], job["seed"])] = expl
    found.append(Check(f"{label}: exact tree exploitability", expl,
                       r["openspiel_exploitability"], SAME_ALGORITHM_TOLERANCE,
                       "OpenSpiel exploitability.exploitability"))
    found.append(Check(f"{label}: value of the average policy", r["value"], lp_values[job["game"]],
                       2 * expl + reference_check.LP_TOLERANCE,
                       "sequence-form LP; tolerance NashConv"))
  for (game, solver, seed), expl in final.items():
    for other, reference in SAME_ALGORITHM:
      if solver == other and (game, reference, seed) in final:
        found.append(Check(
            f"{game} {solver} vs {reference}: final exploitability", expl,
            final[(game, reference, seed)], SAME_ALGORITHM_TOLERANCE,
            f"{solver_registry.SOLVERS[reference].label} (same algorithm)"))
  return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--game", action="append", type=cli.game_string, metavar="GAME_STRING",
                      help="OpenSpiel game string (repeatable); default: "
                      + ", ".join(g for g, _, _ in DEFAULT_GAMES))
  parser.add_argument("--solver", action="append", type=cli.solver_name, metavar="NAME",
                      help="solver (repeatable), one of "
                      + ", ".join(solver_registry.available_solvers())
                      + "; default: " + ", ".join(DEFAULT_SOLVERS))
  parser.add_argument("--iterations", type=cli.positive_int, metavar="T",
                      help="iterations for every game (default: per game, smaller for leduc)")
  parser.add_argument("--seeds", type=cli.positive_int, metavar="K",
                      help=f"seeds per sampled solver (default {DEFAULT_SEEDS}, "
                      f"{QUICK_SEEDS} with --quick)")


def game_budgets(args: argparse.Namespace) -> List[Tuple[str, int]]:
  """(game, iterations) pairs from the options: explicit games or the defaults."""
  defaults = {g: (full, quick) for g, full, quick in DEFAULT_GAMES}
  games = args.game or [g for g, _, _ in DEFAULT_GAMES]
  budgets = []
  for game in games:
    full, quick = defaults.get(game, DEFAULT_GAMES[0][1:])
    budgets.append((game, args.iterations or (quick if args.quick else full)))
  return budgets


def run(args: argparse.Namespace) -> ReportSection:
  games = game_budgets(args)
  solvers = args.solver or list(DEFAULT_SOLVERS)
  num_seeds = args.seeds or (QUICK_SEEDS if args.quick else DEFAULT_SEEDS)
  jobs = make_jobs(games, solvers, args.seed, num_seeds)
  with sweep.make_executor(args.workers, args.dask) as executor:
    results = sweep.run_jobs(jobs, convergence_job, args.out / "jobs", executor,
                             quiet=args.quiet, description=NAME)
  frame = results_frame(results)
  report.write_csv(frame, args.out / "convergence.csv")
  figures = [plot_game(frame, game, args.out / f"convergence_{plotting.slug(game)}.png").name
             for game, _ in games]
  final = frame.loc[frame.groupby(["game", "solver", "seed"]).iteration.idxmax()]
  summary = final.groupby(["game", "solver"]).agg(
      iterations=("iteration", "first"), seeds=("seed", "count"),
      exploitability_median=("exploitability", "median"),
      exploitability_max=("exploitability", "max"), seconds=("seconds", "median")).reset_index()
  markdown = (
      "Exploitability (OpenSpiel's, NashConv/2) of each solver's average policy, on log-log "
      "axes against iterations and against the solver's own time (measurements excluded). "
      f"Sampled solvers: median and min-max band over {num_seeds} seeds "
      f"({args.seed}..{args.seed + num_seeds - 1}). Dashed: O(1/sqrt(T)).\n\n"
      + report.markdown_table(summary, digits=3))
  return ReportSection(title="Convergence of CFR solvers", markdown=markdown, figures=figures,
                       tables=["convergence.csv"], checks=checks(results))
