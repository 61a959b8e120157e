"""ReBeL's CFR-AVG against CFR-D, modified CFR-AVG and full-game CFR on Kuhn poker variants.

Every algorithm is ``algorithms.CFRAvgSolver`` (``algorithms/rebel/cfr_avg.py``), one entry of the
solver registry per setting (``solver_registry.SOLVERS``; this experiment runs every registered
``CFRAvgSolver`` entry at the chosen depths): full-game CFR is ``depth_limit=None``; CFR-D (leaf
beliefs from the current policy), CFR-AVG (from the average policy; Brown et al., ReBeL, NeurIPS
2020, Theorem 5) and modified CFR-AVG (de-averaged leaf values, ReBeL's experiments) cut the game
after 1 or 2 betting actions and solve every leaf exactly with the sequence-form LP, with uniform
(w_t = 1) or linear (w_t = t) averaging.

For every (game, depth, algorithm, weighting) the exact exploitability of the average policy is
recorded at log-spaced iterations (engine's exact best response; the final point is confirmed by
OpenSpiel's ``exploitability.exploitability``). Outputs: ``rebel.csv`` (all points),
``rebel_table.csv`` (exploitability at T = 100, 1000, 3000 up to the budget, and iterations per
second), ``rebel.png`` (log-log, one panel per game and depth).

Checks: the engine's exploitability equals OpenSpiel's at the final point of every run; the value
of each converging run's average policy is within its NashConv of the game value from the
sequence-form LP; full-game CFR here is OpenSpiel's ``cfr.CFRSolver`` (the registry's ``cfr``,
run as a job of the same sweep: same final exploitability).
"""

import argparse
from typing import Any, Dict, List, Sequence, Tuple

import matplotlib.figure
import numpy as np
import pandas as pd

import algorithms
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import plotting
from experiments.harness import references
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.harness import templates
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

NAME = "rebel"
REPORT_ORDER = 90  # Place in the report (and in ``run``).
HELP = "CFR-AVG vs CFR-D vs modified CFR-AVG vs CFR on Kuhn variants at depth 1 and 2."

GAMES = ("kuhn_poker", "kuhn_poker_ante(ante=2.0)", "kuhn_poker_ante(ante=2.0,simplified=True)")
DEPTHS = (1, 2)
FULL_GAME = "CFR (full game)"  # The algorithm name of the registry's CFRAvgSolver without a cut.
OPENSPIEL_CFR = "cfr"  # The reference of the full-game uniform run.
ITERATIONS = arguments.Budget(default=1000, quick=100)
TABLE_ITERATIONS = (100, 1000, 3000)
NUM_MEASURING_POINTS = 16
# The report's words (paragraphs, the figure's caption and title), in ``rebel.md`` beside this
# file.
CAPTIONS = templates.load(__package__, "rebel.md")


def settings(depths: Sequence[int]) -> List[str]:
  """The registered ``CFRAvgSolver`` entries without a depth limit or at one of ``depths``."""
  return [name for name, spec in solver_registry.SOLVERS.items()
          if spec.cls is algorithms.CFRAvgSolver
          and spec.options.get("depth_limit") in (None, *depths)]


def depth_of(solver: str):
  """The depth limit of a registered CFR-AVG entry, "full" without one."""
  depth = solver_registry.get_solver(solver).options.get("depth_limit")
  return "full" if depth is None else depth


def make_jobs(game_strings: Sequence[str], depths: Sequence[int], iterations: int,
              seed: int) -> List[jobs_lib.Job]:
  """Every setting on every game, and OpenSpiel's CFR as the full game's reference."""
  points = jobs_lib.measuring_points(iterations, NUM_MEASURING_POINTS, TABLE_ITERATIONS)
  return [jobs_lib.Job(NAME, game, solver, seed, iterations, measure_at=points)
          for game in game_strings for solver in [*settings(depths), OPENSPIEL_CFR]]


def results_frame(results: Sequence[jobs_lib.JobResult]) -> pd.DataFrame:
  """One row per (CFR-AVG setting, measuring point)."""
  rows = []
  for r in results:
    spec = solver_registry.get_solver(r.job.solver)
    if spec.cls is not algorithms.CFRAvgSolver:
      continue
    for t, e, s in zip(r.solved.iterations, r.solved.curve, r.solved.seconds):
      rows.append({"game": r.job.game, "depth": depth_of(r.job.solver),
                   "algorithm": spec.algorithm, "weighting": spec.options["weighting"],
                   "iteration": t, "exploitability": e, "seconds": s})
  return pd.DataFrame(rows, columns=["game", "depth", "algorithm", "weighting", "iteration",
                                     "exploitability", "seconds"])


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


def report_headers(table: pd.DataFrame) -> pd.DataFrame:
  """``summary_table`` with the report's headers, in words with units."""
  return table.rename(columns=lambda c: (
      f"exploitability at {c} (chips per hand)" if c.startswith("T=")
      else {"depth": "depth limit", "it/s": "iterations per second"}.get(c, c)))


def _registry_names(depths: Sequence[int]) -> Dict[Tuple[str, str, Any], str]:
  """{(algorithm, weighting, depth or "full"): registry name} of the settings."""
  return {(spec.algorithm, spec.options["weighting"], depth_of(name)): name
          for name, spec in ((n, solver_registry.get_solver(n)) for n in settings(depths))}


def plot(frame: pd.DataFrame, game_strings: Sequence[str],
         depths: Sequence[int]) -> matplotlib.figure.Figure:
  """Log-log exploitability against iterations; one panel per (game, depth), each with the
  O(1/sqrt(T)) guide. Each setting is drawn in its ``plotting.solver_style`` (colour: algorithm;
  solid: uniform, dashed: linear averaging). In a panel whose cut has no leaf (``has_leaf``) every
  algorithm is full-game CFR: the panel says so, and draws only the full-game curves when the
  others equal them to 1e-9."""
  fig, axes = plotting.subplots(len(game_strings), len(depths),
                                figsize=(5.4 * len(depths), 3.5 * len(game_strings) + 1.3))
  names = _registry_names(depths)
  for gi, game in enumerate(game_strings):
    for di, depth in enumerate(depths):
      ax = axes[gi][di]
      data = frame[(frame.game == game) & ((frame.depth == depth) | (frame.depth == "full"))]
      curves = {(algorithm, weighting): run for (algorithm, weighting), run in data.groupby(
          ["algorithm", "weighting"], sort=False)}
      leafless = not has_leaf(game, depth)
      hidden = [key for key, run in curves.items() if leafless and key[0] != FULL_GAME
                and (FULL_GAME, key[1]) in curves and plotting.same_curve(
                    run.exploitability, curves[(FULL_GAME, key[1])].exploitability)]
      for (algorithm, weighting), run in curves.items():
        if (algorithm, weighting) not in hidden:
          key = (algorithm, weighting, "full" if algorithm == FULL_GAME else depth)
          ax.plot(run.iteration, run.exploitability, label=f"{algorithm}, {weighting}",
                  **plotting.solver_style(names[key]))
      if len(data):
        start = data[data.iteration == data.iteration.min()].exploitability.max()
        points = np.sort(data.iteration.unique()).astype(float)
        plotting.sqrt_guide(ax, points, points[0], start)
      plotting.log_log(ax, "iterations T", "exploitability", yunit="chips per hand")
      ax.set_title(f"{game}, depth {depth}")
      if leafless:
        plotting.note(ax, f"no leaf at depth {depth}: CFR-D, CFR-AVG and modified\n"
                      "CFR-AVG are full-game CFR here"
                      + ("\n(identical curves to 1e-9, not drawn)" if hidden else ""))
  order = [f"{a}, {w}" for a in (FULL_GAME, "CFR-D", "CFR-AVG", "modified CFR-AVG")
           for w in plotting.WEIGHTING_STYLES]
  plotting.legend_below(fig, ncol=5, order=order + [plotting.SQRT_GUIDE])
  fig.suptitle(CAPTIONS["figure_title"])
  return fig


def rebel_checks(results: Sequence[jobs_lib.JobResult]) -> List[Check]:
  """The experiment's checks (module docstring)."""
  values = {g: references.game_value(game_loader.load_game(g))
            for g in {r.job.game for r in results}}
  found = []
  for r in results:
    job = r.job
    label = f"{job.game} {job.solver} T={job.iterations}"
    found.append(checks.same_number(f"{label}: engine exploitability", r.final,
                                    r.solved.openspiel, "OpenSpiel exploitability.exploitability"))
    spec = solver_registry.get_solver(job.solver)
    if spec.cls is algorithms.CFRAvgSolver and spec.options.get("variant") != "modified":
      value, source = values[job.game]
      found.append(checks.within_nash_conv(f"{label}: value of the average policy", r.value,
                                           value, r.final_nash_conv, source))
  by_key = {(r.job.game, r.job.solver): r for r in results}
  for game in sorted({r.job.game for r in results}):
    ours, reference = by_key.get((game, "cfr_avg")), by_key.get((game, OPENSPIEL_CFR))
    if ours is not None and reference is not None:
      found.append(checks.same_number(f"{game} {FULL_GAME} uniform: final exploitability",
                                      ours.final, reference.final,
                                      "OpenSpiel cfr.CFRSolver, same iterations"))
  return found


def has_leaf(game: str, depth: int) -> bool:
  """Whether cutting ``game`` after ``depth`` betting actions leaves a non-terminal leaf."""
  solver = algorithms.CFRAvgSolver(game_loader.load_game(game), depth_limit=depth)
  return bool(solver.public_tree.leaves)


def leafless_cuts(game_strings: Sequence[str], depths: Sequence[int]) -> List[str]:
  """The (game, depth) cuts without a non-terminal leaf, where the algorithms reduce to CFR."""
  return [f"{game} at depth {depth}" for game in game_strings for depth in depths
          if not has_leaf(game, depth)]


def report_markdown(table: pd.DataFrame, leafless: Sequence[str]) -> str:
  """The section's text: the opening, ``summary_table``'s table, the cuts without a leaf
  (``leafless_cuts``) and the figure's caption."""
  return (
      CAPTIONS["intro"] + "\n\n"
      + tables.markdown_table(report_headers(table), digits=3,
                              missing="the run was too short for its clock to measure")
      + ("\n\n" + CAPTIONS.fill("leafless_note", cuts=", ".join(leafless)) if leafless else "")
      + "\n\n" + CAPTIONS["figure"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("iterations per run")[:-1] + "; the table reports "
                      f"T = {', '.join(map(str, TABLE_ITERATIONS))} up to T)")
  parser.add_argument("--game", action="append", choices=GAMES, metavar="GAME",
                      help=f"game (repeatable), one of {', '.join(GAMES)}; default: all")
  parser.add_argument("--depth", action="append", type=int, choices=DEPTHS, metavar="K",
                      help="depth limit (repeatable): 1 or 2; default: both")


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  iterations = ITERATIONS.resolve(args.iterations, ctx.quick)
  selected = args.game or list(GAMES)
  depths = sorted(set(args.depth or DEPTHS))
  results = ctx.run_jobs(make_jobs(selected, depths, iterations, ctx.seed))
  frame = results_frame(results)
  tables.write_csv(frame, ctx.out / "rebel.csv")
  table = summary_table(frame, iterations)
  tables.write_csv(table, ctx.out / "rebel_table.csv")
  plotting.save_figure(plot(frame, selected, depths), ctx.out / "rebel.png")
  return ReportSection(title="ReBeL: CFR-AVG, CFR-D and modified CFR-AVG",
                       markdown=report_markdown(table, leafless_cuts(selected, depths)),
                       figures=["rebel.png"], tables=["rebel.csv", "rebel_table.csv"],
                       checks=rebel_checks(results))
