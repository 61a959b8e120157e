"""Convergence: exploitability of the average policy against iterations and wall time.

For every (game, solver) pair the solver runs T iterations; at log-spaced iterations t the
exploitability of its average policy, (max_s0 u_0(s0, sbar_1) + max_s1 u_1(sbar_0, s1)) / 2, is
measured with OpenSpiel's ``exploitability.exploitability``, and the solver's own time (the
measurement excluded) is recorded. Sampled solvers run with several seeds and are drawn as the
median with a min-max band. The plots are log-log with an O(1/sqrt(T)) guide line, the rate of
CFR's bound (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
information", NeurIPS 2007, Theorem 4).

Checks: for full-traversal CFR variants, the final exploitability is within Theorem 4's bound
Delta |I| sqrt(|A|) / sqrt(T) (Delta the utility range, |I| the larger player's number of
information sets, |A| the most actions at one); when both are run, OpenSpiel's Python and C++ CFR
and this project's CFR and CFR+ agree with OpenSpiel's at the final point (same algorithm, so
the same numbers up to rounding).
"""

import argparse
import math
import pathlib
from typing import Dict, List, Sequence, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from open_spiel.python import policy as policy_lib

from experiments import cli
from experiments import plotting
from experiments import report
from experiments import solver_registry
from experiments import sweep
from experiments.report_section import Check, ReportSection

NAME = "convergence"
HELP = "Exploitability against iterations and wall time for every solver on every game."

# (game string, iterations, iterations at --quick).
DEFAULT_GAMES: Tuple[Tuple[str, int, int], ...] = (
    ("kuhn_poker", 1000, 100),
    ("kuhn_poker_ante(ante=0.5)", 1000, 100),
    ("kuhn_poker_ante(ante=2.0)", 1000, 100),
    ("kuhn_poker_ante(ante=0.25,simplified=True)", 1000, 100),
    ("kuhn_poker_ante(ante=1.0,simplified=True)", 1000, 100),
    ("kuhn_poker_ante(ante=2.0,simplified=True)", 1000, 100),
    ("leduc_poker", 60, 8),
)
DEFAULT_SOLVERS = ("cfr", "cfr_plus", "cs_cfr", "cfr_avg")
DEFAULT_SEEDS = 3
QUICK_SEEDS = 2
NUM_CHECKPOINTS = 20
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
  seed, seed + 1, ..., seed + num_seeds - 1, the others with ``seed`` only."""
  jobs = []
  for game, iterations in games:
    for solver in solvers:
      spec = solver_registry.get_solver(solver)
      for s in range(seed, seed + (num_seeds if spec.sampled else 1)):
        jobs.append(sweep.Job(NAME, game, solver, s, iterations))
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
  for solver, runs in data.groupby("solver", sort=False):
    label = solver_registry.SOLVERS[solver].label
    pivot = runs.pivot(index="seed", columns="iteration", values="exploitability")
    iterations = pivot.columns.to_numpy(dtype=float)
    plotting.line_with_band(ax_it, iterations, pivot.to_numpy(), label)
    times = runs.pivot(index="seed", columns="iteration", values="seconds")
    plotting.line_with_band(ax_time, np.median(times.to_numpy(), axis=0), pivot.to_numpy(),
                            label)
    start = float(np.median(pivot.to_numpy()[:, 0]))
    anchor = start if anchor is None else max(anchor, start)
  all_iterations = np.sort(data.iteration.unique()).astype(float)
  if anchor is not None and anchor > 0:
    plotting.sqrt_guide(ax_it, all_iterations, all_iterations[0], anchor)
  for ax, xlabel in ((ax_it, "iterations T"), (ax_time, "solver time (s)")):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("exploitability of the average policy")
    ax.grid(True, which="both", alpha=0.3)
  ax_it.legend(fontsize=8)
  fig.suptitle(f"{game}: exploitability (OpenSpiel)")
  return plotting.save_figure(fig, path)


def regret_bound(game_string: str, iterations: int) -> float:
  """Zinkevich et al. 2007, Theorem 4: exploitability <= Delta |I| sqrt(|A|) / sqrt(T)."""
  game = solver_registry.load_game(game_string)
  tabular = policy_lib.TabularPolicy(game)
  delta = game.max_utility() - game.min_utility()
  infosets = max(len(states) for states in tabular.states_per_player)
  return delta * infosets * math.sqrt(game.num_distinct_actions()) / math.sqrt(iterations)


def checks(frame: pd.DataFrame) -> List[Check]:
  """The regret-bound checks and the same-algorithm agreement checks (see module docstring)."""
  found = []
  final = frame.loc[frame.groupby(["game", "solver", "seed"]).iteration.idxmax()]
  for row in final.itertuples():
    if solver_registry.SOLVERS[row.solver].cfr_bound:
      found.append(Check(
          name=f"final exploitability {row.game} {row.solver} T={row.iteration}",
          value=row.exploitability, reference=0.0,
          tolerance=regret_bound(row.game, row.iteration),
          source="CFR regret bound, Zinkevich et al. 2007 Thm 4"))
  by_key = {(r.game, r.solver): r.exploitability for r in final.itertuples()}
  for game in final.game.unique():
    for solver, reference in SAME_ALGORITHM:
      if (game, solver) in by_key and (game, reference) in by_key:
        found.append(Check(
            name=f"{solver} vs {reference} final exploitability {game}",
            value=by_key[(game, solver)], reference=by_key[(game, reference)],
            tolerance=SAME_ALGORITHM_TOLERANCE,
            source=f"{solver_registry.SOLVERS[reference].label} (same algorithm)"))
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
  solvers = args.solver or [s for s in DEFAULT_SOLVERS if s in solver_registry.available_solvers()]
  num_seeds = args.seeds or (QUICK_SEEDS if args.quick else DEFAULT_SEEDS)
  jobs = make_jobs(games, solvers, args.seed, num_seeds)
  with sweep.make_executor(args.workers, args.dask) as executor:
    results = sweep.run_jobs(jobs, convergence_job, args.out / "jobs", executor,
                             quiet=args.quiet, description=NAME)
  frame = results_frame(results)
  sweep.atomic_write(args.out / "convergence.csv", lambda tmp: frame.to_csv(tmp, index=False))
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
                       tables=["convergence.csv"], checks=checks(frame))
