"""Benchmark of the compiled CFR engine against its peers, row by row of the speed targets.

  python -m experiments.scripts.benchmark_cfr                  # every row (about 10 minutes)
  python -m experiments.scripts.benchmark_cfr --quick          # shorter repeats and runs, no tree
  walk python -m experiments.scripts.benchmark_cfr --rows leduc sampling
  python -m experiments.scripts.benchmark_cfr --scaling        # tree build time and memory by deck
  size

Rows (each prints its measurements, then all of them are summed up in one table with the
targets):

* ``kuhn``, ``leduc``, ``ante``: iterations per second of vanilla CFR (alternating updates, the
  default of every peer that has the option) on ``kuhn_poker``, ``leduc_poker``,
  ``kuhn_poker_ante()`` and ``kuhn_poker_ante(deck_size=13)``, and (``liars``) OpenSpiel's
  ``liars_dice`` (1 die of 6 faces each, 294,883 histories; target <= 1 ms per iteration, with
  the tree build's CPU time and peak resident memory growth): ours (``our_cfr``: ``solve(n)``,
  one compiled call for n iterations; also one ``evaluate_and_update_policy()`` call per
  iteration), OpenSpiel's C++ ``pyspiel.CFRSolver`` (``cfr_cpp``) and Python ``cfr.CFRSolver``
  (``cfr``, left out above ``PYTHON_CFR_MAX_NODES`` histories: seconds per iteration), and
  LiteEFG 1.0's CFR baseline in its own recommended loop
  (``harness.liteefg_solvers``). Ours and C++ CFR run the same algorithm: their
  exploitabilities after 100 iterations are printed side by side.
* ``sampling``: on ``leduc_poker`` and ``kuhn_poker_ante(deck_size=100)`` (flat engine), the
  rate of our chance-sampled iterations (``cs_cfr``) against our full iterations, the two timed
  in alternation (``paired_rates``); on ``leduc_poker`` the exploitability every sampler
  reaches in the same CPU time (``--sampling-seconds``, median over ``--seeds`` seeds): ours
  against C++ ``pyspiel.ExternalSamplingMCCFRSolver`` (``mccfr_external_cpp``).
* ``build``: ``GameTree.from_game(kuhn_poker_ante(deck_size=200))``, generated from the rules,
  against the walk through the game's states that every other game takes: CPU time (median of
  three) and peak traced memory (``tracemalloc``).
* ``batched``: 1,000 (ante, bet) variants of three-card Kuhn solved by
  ``BatchedCFRPlusSolver(...).solve_until(1e-4)`` (build, iterations, the exact exploitability
  checks every 50 iterations and a final exact check, all counted), against the same games
  solved one at a time by ``CFRPlusSolver`` (measured on a sample, scaled to 1,000).
* ``compile``: the kernel's first-call compile time in a fresh process with an empty numba
  cache, and the same calls when the cache is warm.

Measurements: CPU time (``time.process_time``) of the solver calls only (evaluation excluded),
each rate the median over ``--repeats`` repeats of about ``--seconds`` each, all peers in this one
process. LiteEFG is optional (``pip install -e .[bench]``); without it its columns are empty.
The machine, its load average before and after, and the versions are printed first.
"""

import argparse
import dataclasses
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import pyspiel

import algorithms
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.tree import game_tree
from algorithms.tree.game_tree import GameTree
from experiments.harness import game_loader
from experiments.harness import script_runner
from experiments.harness import solver_registry
from experiments.harness import solver_runs
from experiments.harness.benchmarking import cpu_rate
from experiments.harness.benchmarking import describe_machine
from experiments.harness.liteefg_solvers import LiteEFGSolver
from experiments.harness.liteefg_solvers import liteefg_available
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

ROWS = ("kuhn", "leduc", "ante", "liars", "sampling", "build", "batched", "compile")
RATE_GAMES = {"kuhn": ("kuhn_poker",), "leduc": ("leduc_poker",),
              "ante": ("kuhn_poker_ante()", "kuhn_poker_ante(deck_size=13)"),
              "liars": ("liars_dice",)}
# OpenSpiel's Python CFR walks the game's states in Python: it is timed on games up to this size.
PYTHON_CFR_MAX_NODES = 100_000
# liars_dice: at most this many milliseconds per vanilla CFR iteration of ours (issue 35).
LIARS_MS_TARGET = 1.0
BUILD_GAME = "kuhn_poker_ante(deck_size=200)"
BATCH_TARGET = 1e-4
BATCH_CHECK_EVERY = 50
# 40 x 25 (ante, bet) pairs, both from 0.2 to 5 (r = ante / bet from 0.04 to 25).
BATCH_ANTES = np.geomspace(0.2, 5.0, 40)
BATCH_BETS = np.geomspace(0.2, 5.0, 25)


# Timing -----------------------------------------------------------------------------------


def loop(solver) -> Callable[[int], None]:
  """``step(n)`` of a solver with OpenSpiel's interface: n calls of
  ``evaluate_and_update_policy()``."""
  def step(n: int) -> None:
    for _ in range(n):
      solver.evaluate_and_update_policy()
  return step


# Rows -------------------------------------------------------------------------------------


@dataclasses.dataclass
class Result:
  """One row of the summary: what, the target, what was measured, and whether it is met."""

  what: str
  target: str
  measured: str
  met: Optional[bool]


def ratio(a: float, b: float) -> float:
  return a / b if b > 0 else math.nan


def rate_rows(game_string: str, args, summary: List[Result]) -> Dict[str, float]:
  """Iterations per second of every CFR peer on one game; returns them by solver."""
  game = game_loader.load_game(game_string, two_player_zero_sum=False)
  rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  start = time.process_time()
  tree = GameTree.from_game(game)
  build_seconds = time.process_time() - start
  # Peak resident set growth (kB on Linux): zero if an earlier row's peak was higher.
  build_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
  ours = solver_registry.get_solver("our_cfr").build(game, tree=tree)
  ours.solve(1)  # Compiled (or loaded from the cache) before timing.
  rates = {"ours, solve(n)": cpu_rate(ours.solve, args.seconds, args.repeats)}
  per_call = solver_registry.get_solver("our_cfr").build(game, tree=tree)
  rates["ours, one call per iteration"] = cpu_rate(loop(per_call), args.seconds, args.repeats)
  cpp = solver_registry.get_solver("cfr_cpp").build(game)
  rates["C++ pyspiel.CFRSolver"] = cpu_rate(loop(cpp), args.seconds, args.repeats)
  if tree.num_nodes <= PYTHON_CFR_MAX_NODES:
    python = solver_registry.get_solver("cfr").build(game)
    rates["Python cfr.CFRSolver"] = cpu_rate(loop(python), args.seconds, min(args.repeats, 3))
  liteefg = None
  if liteefg_available():
    liteefg = LiteEFGSolver(game, "cfr")
    rates["LiteEFG CFR"] = cpu_rate(loop(liteefg), args.seconds, args.repeats)
  print(f"\n{game}: {tree.num_nodes:,} histories; our tree built in {build_seconds:.2f} s CPU, "
        f"peak resident memory +{build_mib:,.0f} MiB")
  for name, value in rates.items():
    print(f"  {name:32s} {value:>12,.0f} it/s  {1000 / value:>10.4f} ms/it")
  # Same algorithm: exploitability after 100 iterations, ours and C++ (fresh solvers).
  evaluator = TreeEvaluator(tree)
  ours100 = algorithms.CFRSolver(game, tree=tree).solve(100)
  cpp100 = solver_registry.get_solver("cfr_cpp").build(game)
  loop(cpp100)(100)
  print(f"  exploitability after 100 iterations: ours {ours100.exploitability():.12e}, "
        f"C++ {evaluator.exploitability(cpp100.average_policy()):.12e}")
  if liteefg is not None:
    print(f"  LiteEFG: game loaded in {liteefg.load_seconds:.2f} s; its own NashConv of its "
          f"average after the iterations timed above: {liteefg.average_nash_conv():.3e}")
  fast = rates["ours, solve(n)"]
  targets = {"kuhn_poker": (3.0, 1.5), "leduc_poker": (200.0, 80.0)}
  cpp_target, lite_target = targets.get(game.get_type().short_name, (None, 1.5))
  cpp_ratio = ratio(fast, rates["C++ pyspiel.CFRSolver"])
  line = f"{fast:,.0f} it/s; {cpp_ratio:.1f}x C++"
  met = True
  if cpp_target is not None:
    met = cpp_ratio >= cpp_target
  target = (f">= {cpp_target:g}x C++, " if cpp_target else "") + f">= {lite_target:g}x LiteEFG"
  if game.get_type().short_name == "liars_dice":
    line = f"{1000 / fast:.3f} ms/it (build {build_seconds:.1f} s, +{build_mib:,.0f} MiB); " + line
    met = 1000 / fast <= LIARS_MS_TARGET
    target = f"<= {LIARS_MS_TARGET:g} ms/it, " + target
  if "LiteEFG CFR" in rates:
    lite_ratio = ratio(fast, rates["LiteEFG CFR"])
    line += f", {lite_ratio:.1f}x LiteEFG"
    met = met and lite_ratio >= lite_target
  else:
    met = None
  summary.append(Result(f"{game_string}, vanilla CFR it/s", target, line, met))
  return rates


def sampled_run(step: Callable[[int], None], chunk: int, seconds: float) -> float:
  """Runs ``step(chunk)`` until ``seconds`` of CPU time; returns the time spent."""
  spent = 0.0
  while spent < seconds:
    start = time.process_time()
    step(chunk)
    spent += time.process_time() - start
  return spent


SAMPLED_RATE_GAMES = ("leduc_poker", "kuhn_poker_ante(deck_size=100)")


def paired_rates(full: Callable[[int], None], sampled: Callable[[int], None], args
                 ) -> Tuple[float, float, float]:
  """Rates of two solvers' ``solve`` timed in alternation (full, sampled, full, ...), so that a
  change of the machine's load hits both: (median full rate, median sampled rate, median of
  the per-repeat ratios sampled / full)."""
  fulls, sampleds = [], []
  for _ in range(args.repeats):
    fulls.append(cpu_rate(full, args.seconds, 1))
    sampleds.append(cpu_rate(sampled, args.seconds, 1))
  ratios = [b / a for a, b in zip(fulls, sampleds)]
  return statistics.median(fulls), statistics.median(sampleds), statistics.median(ratios)


def sampled_rate_rows(args, summary: List[Result]) -> None:
  """A chance-sampled iteration's rate against a full one's, same engine and process (the
  flat engine: ``kuhn_poker_ante(deck_size=100)`` would take the range-vector one by default)."""
  for game_string in SAMPLED_RATE_GAMES:
    game = game_loader.load_game(game_string)
    tree = GameTree.from_game(game)
    full = algorithms.CFRSolver(game, tree=tree, engine="flat")
    sampler = solver_registry.get_solver("cs_cfr").build(game, seed=0, tree=tree)
    full.solve(1)
    sampler.solve(1)  # Compiled (or loaded from the cache) before timing.
    full_rate, sampled, ratio_ = paired_rates(full.solve, sampler.solve, args)
    print(f"\n{game_string}: chance-sampled iterations {sampled:,.0f} it/s, full iterations "
          f"{full_rate:,.0f} it/s (timed in alternation): {ratio_:.1f}x")
    leduc = game_string == "leduc_poker"
    summary.append(Result(f"{game_string}, a sampled iteration's rate / a full one's",
                          ">= 12x" if leduc else "reported",
                          f"{ratio_:.1f}x ({sampled:,.0f} / {full_rate:,.0f} it/s)",
                          ratio_ >= 12 if leduc else None))


def sampling_row(args, summary: List[Result]) -> None:
  sampled_rate_rows(args, summary)
  game = game_loader.load_game("leduc_poker")
  tree = GameTree.from_game(game)
  evaluator = TreeEvaluator(tree)
  seconds = args.sampling_seconds
  results: Dict[str, List[float]] = {}
  for name in ("cs_cfr", "cs_cfr_simultaneous", "mccfr_external_cpp"):
    for seed in range(args.seeds):
      solver = solver_registry.get_solver(name).build(game, seed=seed, tree=tree)
      step = solver.solve if hasattr(solver, "solve") else loop(solver)
      chunk = 20_000 if hasattr(solver, "solve") else 2_000
      sampled_run(step, chunk, seconds)
      value = evaluator.exploitability(solver_runs.tabular_average_policy(game, solver))
      results.setdefault(name, []).append(value)
      print(f"  {name} seed {seed}: exploitability {value:.4e} after {seconds:g} CPU s",
            flush=True)
  medians = {name: statistics.median(v) for name, v in results.items()}
  ours, cpp = medians["cs_cfr"], medians["mccfr_external_cpp"]
  summary.append(Result(
      f"leduc_poker, exploitability after {seconds:g} CPU s (median of {args.seeds} seeds)",
      "below C++ external sampling's",
      f"ours {ours:.2e} (simultaneous {medians['cs_cfr_simultaneous']:.2e}), C++ ES {cpp:.2e}: "
      f"{ours / cpp:.2f}x", ours < cpp))


def build_row(args, summary: List[Result]) -> None:
  game = game_loader.load_game(BUILD_GAME)
  times = []
  for _ in range(3):
    start = time.process_time()
    tree = GameTree.from_game(game)
    times.append(time.process_time() - start)
  del tree
  tracemalloc.start()
  tree = GameTree.from_game(game)
  peak = tracemalloc.get_traced_memory()[1] / 1e6
  tracemalloc.stop()
  size = sum(v.nbytes for v in vars(tree).values() if isinstance(v, np.ndarray)) / 1e6
  generated = statistics.median(times)
  print(f"\n{BUILD_GAME}: {tree.num_nodes:,} histories, {size:.1f} MB of node and terminal "
        f"arrays; generated from the rules in {generated:.3f} CPU s, peak {peak:.1f} MB")
  measured = f"{generated:.2f} s, {peak:.0f} MB peak"
  if not args.quick:
    del tree
    start = time.process_time()
    walked = game_tree._index(game, game_tree._walk(game, game_tree.DEFAULT_MAX_NODES))  # noqa: SLF001
    walk = time.process_time() - start
    del walked
    tracemalloc.start()
    walked = game_tree._index(game, game_tree._walk(game, game_tree.DEFAULT_MAX_NODES))  # noqa: SLF001
    walk_peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    del walked
    print(f"  the walk through the game's states: {walk:.1f} CPU s, peak {walk_peak:.0f} MB "
          f"(generated: {walk / generated:.0f}x faster)")
    measured += f" (walk: {walk:.1f} s, {walk_peak:.0f} MB)"
  summary.append(Result(f"build {BUILD_GAME}", "<= 0.5 s and <= 100 MB peak", measured,
                        generated <= 0.5 and peak <= 100))


def batched_row(args, summary: List[Result]) -> None:
  rules = [KuhnRules(ante=float(a), bet=float(b)) for a in BATCH_ANTES for b in BATCH_BETS]
  start = time.process_time()
  batch = algorithms.BatchedCFRPlusSolver([kuhn_poker_ante.game_from_rules(r) for r in rules])
  built = time.process_time() - start
  batch.solve_until(BATCH_TARGET, check_every=BATCH_CHECK_EVERY)
  worst = float(batch.exploitabilities().max())
  total = time.process_time() - start
  iterations = batch.iterations
  print(f"\n{len(rules)} (ante, bet) variants of kuhn_poker_ante, CFR+ to exploitability <= "
        f"{BATCH_TARGET:g}: {total:.2f} CPU s (build {built:.2f} s); iterations per game: "
        f"min {iterations.min()}, median {int(np.median(iterations))}, max {iterations.max()}; "
        f"largest final exploitability {worst:.3e}")
  sample = rules[::len(rules) // (10 if args.quick else 40)]
  start = time.process_time()
  for r in sample:
    solver = algorithms.CFRPlusSolver(batch.game(rules.index(r)))
    while solver.exploitability() > BATCH_TARGET:
      solver.solve(BATCH_CHECK_EVERY)
  one_by_one = (time.process_time() - start) * len(rules) / len(sample)
  print(f"  one at a time with CFRPlusSolver (same checks; {len(sample)} games, scaled to "
        f"{len(rules)}): {one_by_one:.1f} CPU s, {one_by_one / total:.1f}x the batch")
  summary.append(Result(f"batched: {len(rules)} (ante, bet) variants of 3-card Kuhn to "
                        f"exploitability <= {BATCH_TARGET:g}", "< 10 s",
                        f"{total:.2f} s (one at a time: {one_by_one:.0f} s), max "
                        f"{worst:.1e}", total < 10 and worst <= BATCH_TARGET))


COMPILE_SNIPPET = """
import time
start = time.process_time()
import pyspiel, algorithms
from spiel_games.kuhn_poker_ante import game_from_rules
from spiel_games.kuhn_rules import KuhnRules
game = pyspiel.load_game("kuhn_poker")
imported = time.process_time()
algorithms.CFRSolver(game).solve(2).exploitability()
algorithms.CFRPlusSolver(game).solve(2)
algorithms.DCFRSolver(game).solve(2)
algorithms.ChanceSamplingCFRSolver(game, seed=0).solve(2)
algorithms.CFRAvgSolver(game, depth_limit=1).solve(1)
algorithms.BatchedCFRPlusSolver([game_from_rules(KuhnRules()),
                                 game_from_rules(KuhnRules(ante=2.0))]).solve(2).exploitabilities()
print(imported - start, time.process_time() - imported)
"""


def compile_row(summary: List[Result]) -> None:
  with tempfile.TemporaryDirectory() as cache:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    seconds = []
    for _ in ("cold", "warm"):
      out = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], env=env, check=True,
                           capture_output=True, text=True).stdout.split()
      seconds.append((float(out[0]), float(out[1])))
  (imp, cold), (_, warm) = seconds
  print(f"\nkernel compile: every solver's first calls take {cold:.1f} CPU s with an empty "
        f"numba cache, {warm:.2f} s with the cache written by that run (import {imp:.1f} s)")
  summary.append(Result("first-call compile time (empty numba cache)", "reported",
                        f"{cold:.1f} s cold, {warm:.2f} s cached", None))


# Scaling ----------------------------------------------------------------------------------


def part_scaling(budget: float, deck_sizes: List[int]) -> None:
  print(f"\n## Scaling: kuhn_poker_ante(deck_size=N), tree generated from the rules, the "
        f"solver's setup (TreeArrays, TabularPolicy, engine) and CFR iterations (CPU time; stop "
        f"before a build predicted over {budget:g} s)\n")
  print("N | histories | build s | build peak MB (tracemalloc) | solver setup s | "
        "ms per iteration")
  last = None
  for n in deck_sizes:
    if last is not None and last[1] * (n / last[0])**2 > budget:  # Tree size ~ N^2.
      print(f"N = {n}: predicted build {last[1] * (n / last[0])**2:.0f} s > {budget:g} s; stop")
      break
    game = pyspiel.load_game(f"kuhn_poker_ante(deck_size={n})")
    tracemalloc.start()
    start = time.process_time()
    tree = GameTree.from_game(game, max_nodes=10**9)
    build = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    start = time.process_time()
    solver = algorithms.CFRSolver(game, tree=tree)
    arrays = time.process_time() - start
    solver.solve(1)
    per_iteration = 1e3 / cpu_rate(solver.solve, 0.5, 1)
    print(f"{n} | {tree.num_nodes:,} | {build:.3f} | {peak:.0f} | {arrays:.3f} | "
          f"{per_iteration:.3f}", flush=True)
    last = (n, build)
    del solver, tree


# Main -------------------------------------------------------------------------------------


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.benchmark_cfr",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS),
                      help="rows to run (default: all)")
  parser.add_argument("--repeats", type=int, default=5, help="repeats per rate (median)")
  parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per repeat")
  parser.add_argument("--sampling-seconds", type=float, default=20.0,
                      help="CPU seconds of each sampler run")
  parser.add_argument("--seeds", type=int, default=3, help="sampler runs per sampler (median)")
  parser.add_argument("--quick", action="store_true",
                      help="3 repeats of 0.3 s, 3 s sampler runs, 1 seed, no tree walk")
  parser.add_argument("--scaling", action="store_true", help="run the scaling table instead")
  parser.add_argument("--scaling-budget", type=float, default=60.0)
  args = parser.parse_args(argv)
  for name in ("repeats", "seconds", "sampling_seconds", "seeds", "scaling_budget"):
    if getattr(args, name) <= 0:
      print(f"error: --{name.replace('_', '-')} must be > 0, got {getattr(args, name)}",
            file=sys.stderr)
      return 2
  if args.scaling:
    part_scaling(args.scaling_budget, [13, 50, 100, 200, 400, 800, 1200, 1600])
    return 0
  if args.quick:
    args.repeats, args.seconds, args.sampling_seconds, args.seeds = 3, 0.3, 3.0, 1
  describe_machine()
  if not liteefg_available():
    print("LiteEFG is not installed (pip install -e .[bench]): its columns stay empty.")
  summary: List[Result] = []
  for row in ("kuhn", "leduc", "ante", "liars"):
    if row in args.rows:
      for game_string in RATE_GAMES[row]:
        rate_rows(game_string, args, summary)
  if "sampling" in args.rows:
    sampling_row(args, summary)
  if "build" in args.rows:
    build_row(args, summary)
  if "batched" in args.rows:
    batched_row(args, summary)
  if "compile" in args.rows:
    compile_row(summary)
  print("\nLoad average (1, 5, 15 min) at the end: "
        + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
  print("\n## Targets\n")
  print("| what | target | measured | met |\n|---|---|---|---|")
  for r in summary:
    met = "n/a" if r.met is None else "yes" if r.met else "NO"
    print(f"| {r.what} | {r.target} | {r.measured} | {met} |")
  return 0


if __name__ == "__main__":
  script_runner.run(main)
