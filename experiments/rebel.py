"""ReBeL's CFR-AVG against CFR-D, modified CFR-AVG and full-game CFR on Kuhn poker variants.

Every algorithm is ``algorithms.CFRAvgSolver`` (``algorithms/cfr_avg.py``): full-game CFR is
``depth_limit=None``; CFR-D (leaf beliefs from the current policy), CFR-AVG (from the average
policy; Brown et al., ReBeL, NeurIPS 2020, Theorem 5) and modified CFR-AVG (de-averaged leaf
values, ReBeL's experiments) cut the game after 1 or 2 betting actions and solve every leaf
exactly with the sequence-form LP, with uniform (w_t = 1) or linear (w_t = t) averaging.

For every (game, depth, algorithm, weighting) the exact exploitability of the average policy is
recorded at log-spaced iterations (engine's exact best response; the final point is confirmed by
OpenSpiel's ``exploitability.exploitability``). Outputs: ``rebel.csv`` (all points),
``rebel_table.csv`` (exploitability at T = 100, 1000, 3000 up to the budget, and iterations per
second), ``rebel.png`` (log-log, one panel per game and depth).

Checks: the engine's exploitability equals OpenSpiel's at the final point of every run; the value
of each converging run's average policy is within its NashConv of the game value from the
sequence-form LP; full-game CFR here is OpenSpiel's ``cfr._CFRSolver`` (same final
exploitability).
"""

import argparse
import math
from typing import Dict, List, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pyspiel
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability

import spiel_games  # pylint: disable=unused-import  (registers the games)
from algorithms import sequence_form_lp
from algorithms.cfr_avg import CFRAvgSolver
from algorithms.tree_exploitability import TreeEvaluator
from experiments import cli
from experiments import plotting
from experiments import report
from experiments import solver_registry
from experiments import sweep
from experiments.report_section import Check, ReportSection

NAME = "rebel"
HELP = "CFR-AVG vs CFR-D vs modified CFR-AVG vs CFR on Kuhn variants at depth 1 and 2."

GAMES = ("kuhn_poker", "kuhn_poker_ante(ante=2.0)", "kuhn_poker_ante(ante=2.0,simplified=true)")
DEPTHS = (1, 2)
# Algorithm name -> (leaf_beliefs, variant).
ALGORITHMS: Dict[str, Tuple[str, str]] = {
    "CFR-D": ("current", "standard"),
    "CFR-AVG": ("average", "standard"),
    "modified CFR-AVG": ("average", "modified"),
}
FULL_GAME = "CFR (full game)"
WEIGHTINGS = ("uniform", "linear")
DEFAULT_ITERATIONS = 1000
QUICK_ITERATIONS = 100
TABLE_ITERATIONS = (100, 1000, 3000)
NUM_CHECKPOINTS = 16
SAME_NUMBER = 1e-9  # Two exact computations of one number: rounding only.


def setting_name(algorithm: str, depth: Optional[int], weighting: str) -> str:
  """The job's solver field: ``algorithm|depth|weighting`` (depth "-" for the full game)."""
  return f"{algorithm}|{'-' if depth is None else depth}|{weighting}"


def parse_setting(name: str) -> Tuple[str, Optional[int], str]:
  algorithm, depth, weighting = name.split("|")
  return algorithm, None if depth == "-" else int(depth), weighting


def checkpoints(iterations: int) -> List[int]:
  """Log-spaced iterations 1..T plus the table's iterations up to T."""
  marks = np.round(np.logspace(0, math.log10(iterations), NUM_CHECKPOINTS)).astype(int)
  return sorted({int(m) for m in marks} | {t for t in TABLE_ITERATIONS if t <= iterations}
                | {iterations})


def build_solver(game: pyspiel.Game, algorithm: str, depth: Optional[int],
                 weighting: str) -> CFRAvgSolver:
  """The ``CFRAvgSolver`` of one setting."""
  if algorithm == FULL_GAME:
    return CFRAvgSolver(game, weighting=weighting)
  if algorithm not in ALGORITHMS:
    raise ValueError(f"unknown algorithm {algorithm!r}; allowed: {FULL_GAME}, "
                     f"{', '.join(ALGORITHMS)}")
  beliefs, variant = ALGORITHMS[algorithm]
  return CFRAvgSolver(game, depth_limit=depth, leaf_beliefs=beliefs, variant=variant,
                      weighting=weighting)


def run_setting(job: sweep.Job) -> sweep.JobResult:
  """Runs one setting for ``job.budget`` iterations; exploitability at ``checkpoints``."""
  game = pyspiel.load_game(job.game)
  algorithm, depth, weighting = parse_setting(job.solver)
  solver = build_solver(game, algorithm, depth, weighting)
  marks = checkpoints(job.budget)
  out = {"iterations": marks, "exploitability": []}
  out["seconds"] = solver_registry.run_iterations(
      solver, job.budget, marks, lambda _: out["exploitability"].append(solver.exploitability()))
  average = solver.average_policy()
  out["openspiel_exploitability"] = float(exploitability.exploitability(game, average))
  out["value"] = float(TreeEvaluator(solver.tree).policy_values(average)[0])
  out["num_leaves"] = 0 if solver.public_tree is None else len(solver.public_tree.leaves)
  return out


def make_jobs(games: Sequence[str], depths: Sequence[int], iterations: int,
              seed: int) -> List[sweep.Job]:
  """Full-game CFR once per game and weighting; the three cut algorithms per depth."""
  jobs = []
  for game in games:
    for weighting in WEIGHTINGS:
      jobs.append(sweep.Job(NAME, game, setting_name(FULL_GAME, None, weighting), seed,
                            iterations))
      for depth in depths:
        for algorithm in ALGORITHMS:
          jobs.append(sweep.Job(NAME, game, setting_name(algorithm, depth, weighting), seed,
                                iterations))
  return jobs


def results_frame(results: Sequence[sweep.JobResult]) -> pd.DataFrame:
  """One row per (setting, checkpoint)."""
  rows = []
  for r in results:
    algorithm, depth, weighting = parse_setting(r["job"]["solver"])
    for t, e, s in zip(r["iterations"], r["exploitability"], r["seconds"]):
      rows.append({"game": r["job"]["game"], "depth": "full" if depth is None else depth,
                   "algorithm": algorithm, "weighting": weighting, "iteration": t,
                   "exploitability": e, "seconds": s})
  return pd.DataFrame(rows)


def summary_table(frame: pd.DataFrame, iterations: int) -> pd.DataFrame:
  """Exploitability at the table's iterations (<= T) and iterations per second per setting."""
  marks = [t for t in TABLE_ITERATIONS if t <= iterations] or [iterations]
  rows = []
  for (game, depth, algorithm, weighting), runs in frame.groupby(
      ["game", "depth", "algorithm", "weighting"], sort=False):
    by_t = runs.set_index("iteration")
    row = {"game": game, "depth": depth, "algorithm": algorithm, "weighting": weighting}
    for t in marks:
      row[f"T={t}"] = float(by_t.exploitability[t])
    last = runs.iteration.max()
    row["it/s"] = float(last / by_t.seconds[last]) if by_t.seconds[last] > 0 else float("nan")
    rows.append(row)
  return pd.DataFrame(rows)


def plot(frame: pd.DataFrame, games: Sequence[str], depths: Sequence[int], path) -> None:
  """Log-log exploitability against iterations; one panel per (game, depth)."""
  fig, axes = plt.subplots(len(games), len(depths), figsize=(5.2 * len(depths), 3.6 * len(games)),
                           squeeze=False, layout="constrained")
  styles = {FULL_GAME: "black", "CFR-D": "tab:blue", "CFR-AVG": "tab:green",
            "modified CFR-AVG": "tab:red"}
  for gi, game in enumerate(games):
    for di, depth in enumerate(depths):
      ax = axes[gi][di]
      data = frame[(frame.game == game) & ((frame.depth == depth) | (frame.depth == "full"))]
      for (algorithm, weighting), run in data.groupby(["algorithm", "weighting"], sort=False):
        ax.plot(run.iteration, run.exploitability, color=styles[algorithm],
                linestyle="-" if weighting == "uniform" else "--",
                label=f"{algorithm}, {weighting}")
      plotting.log_log(ax, "iterations T", "exploitability")
      ax.set_title(f"{game}, depth {depth}", fontsize=9)
  axes[0][0].legend(fontsize=7)
  plotting.save_figure(fig, path)


def checks(results: Sequence[sweep.JobResult], openspiel_cfr: Dict[str, float]) -> List[Check]:
  """The experiment's checks (module docstring)."""
  values = {g: sequence_form_lp.solve_game(pyspiel.load_game(g)).value
            for g in {r["job"]["game"] for r in results}}
  found = []
  for r in results:
    job = r["job"]
    label = f"{job['game']} {job['solver']} T={job['budget']}"
    final = r["exploitability"][-1]
    found.append(Check(f"{label}: engine exploitability", final, r["openspiel_exploitability"],
                       SAME_NUMBER, "OpenSpiel exploitability.exploitability"))
    algorithm = parse_setting(job["solver"])[0]
    if algorithm != "modified CFR-AVG":
      found.append(Check(f"{label}: value of the average policy", r["value"], values[job["game"]],
                         2 * final + 1e-9, "sequence-form LP; tolerance NashConv"))
  for game, reference in openspiel_cfr.items():
    ours = next(r for r in results if r["job"]["game"] == game and
                r["job"]["solver"] == setting_name(FULL_GAME, None, "uniform"))
    found.append(Check(f"{game} {FULL_GAME} uniform: final exploitability",
                       ours["exploitability"][-1], reference, SAME_NUMBER,
                       "OpenSpiel cfr.CFRSolver, same iterations"))
  return found


def openspiel_cfr_exploitability(game_string: str, iterations: int) -> float:
  """Exploitability of OpenSpiel's own CFR (Python) after ``iterations``."""
  game = pyspiel.load_game(game_string)
  solver = cfr.CFRSolver(game)
  for _ in range(iterations):
    solver.evaluate_and_update_policy()
  return float(exploitability.exploitability(game, solver.average_policy()))


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--iterations", type=cli.positive_int, metavar="T",
                      help=f"iterations per run (default {DEFAULT_ITERATIONS}, "
                      f"{QUICK_ITERATIONS} with --quick); the table reports T = "
                      f"{', '.join(map(str, TABLE_ITERATIONS))} up to T")
  parser.add_argument("--game", action="append", choices=GAMES, metavar="GAME",
                      help=f"game (repeatable), one of {', '.join(GAMES)}; default: all")
  parser.add_argument("--depth", action="append", type=int, choices=DEPTHS, metavar="K",
                      help="depth limit (repeatable): 1 or 2; default: both")


def run(args: argparse.Namespace) -> ReportSection:
  iterations = args.iterations or (QUICK_ITERATIONS if args.quick else DEFAULT_ITERATIONS)
  games = args.game or list(GAMES)
  depths = sorted(set(args.depth or DEPTHS))
  jobs = make_jobs(games, depths, iterations, args.seed)
  with sweep.make_executor(args.workers, args.dask) as executor:
    results = sweep.run_jobs(jobs, run_setting, args.out / "jobs", executor, quiet=args.quiet,
                             description=NAME)
  frame = results_frame(results)
  report.write_csv(frame, args.out / "rebel.csv")
  table = summary_table(frame, iterations)
  report.write_csv(table, args.out / "rebel_table.csv")
  plot(frame, games, depths, args.out / "rebel.png")
  reference = {g: openspiel_cfr_exploitability(g, iterations) for g in games}
  leafless = sorted({(r["job"]["game"], parse_setting(r["job"]["solver"])[1]) for r in results
                     if r["num_leaves"] == 0 and parse_setting(r["job"]["solver"])[1]})
  markdown = (
      "Exact exploitability of the average policy (full-game policy: trunk average plus the "
      "reach-weighted leaf continuations), exact sequence-form LP at every leaf. Depth k = the "
      "trunk holds the first k betting actions. Solid: uniform averaging, dashed: linear.\n\n"
      + report.markdown_table(table, digits=3)
      + ("\n\nCuts without a non-terminal leaf (the algorithms reduce to CFR there): "
         + ", ".join(f"{g} at depth {d}" for g, d in leafless) if leafless else ""))
  return ReportSection(title="ReBeL: CFR-AVG, CFR-D and modified CFR-AVG", markdown=markdown,
                       figures=["rebel.png"], tables=["rebel.csv", "rebel_table.csv"],
                       checks=checks(results, reference))
