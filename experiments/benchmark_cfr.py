"""Benchmark of the flat-array CFR engine against OpenSpiel's solvers (a script, not a test).

  python -m experiments.benchmark_cfr                  # full comparison (long: see --cap)
  python -m experiments.benchmark_cfr --quick          # small caps, for a smoke run
  python -m experiments.benchmark_cfr --games leduc_poker --part sampling --sampling-cap 900
  python -m experiments.benchmark_cfr --scaling        # tree build / iteration time vs deck size

Every solver is an entry of the solver registry (``experiments.solver_registry``), named as on
the command line of the experiments. Part "cfr": iterations per second and solver wall time to
exploitability 1e-3 of our ``CFRSolver`` (``our_cfr``), OpenSpiel's Python ``cfr.CFRSolver``
(``cfr``) and C++ ``pyspiel.CFRSolver`` (``cfr_cpp``). Part "sampling": wall time to
exploitability 1e-2 of our ``ChanceSamplingCFRSolver`` (``cs_cfr``, ``cs_cfr_simultaneous``) and
OpenSpiel's external- and outcome-sampling MCCFR, Python and C++ (``mccfr_*``).
Exploitability is measured at geometrically spaced iterations on the exact tree evaluator
(``TreeEvaluator``, equal to OpenSpiel's ``exploitability.exploitability``, see
tests/test_solvers.py); evaluation time is not counted. A solver still above the target when its
wall-time cap runs out is reported as "> cap". All numbers come from one run on one machine.
"""

import argparse
import dataclasses
import math
import resource
import sys
import time
from typing import List, Optional

import numpy as np
from open_spiel.python import games as _openspiel_python_games  # noqa: F401  (registers them)
import pyspiel

from algorithms.cfr_engine import CFREngine
from algorithms.cfr_engine import TreeArrays
from algorithms.cfr_engine import UpdateRule
from algorithms.game_tree import GameTree
from algorithms.tree_exploitability import TreeEvaluator
from experiments import games
from experiments import solver_registry

DEFAULT_GAMES = ("kuhn_poker", "kuhn_poker_ante()", "kuhn_poker_ante(deck_size=13)",
                 "leduc_poker")
# Registered solvers of each part (experiments.solver_registry).
CFR_SOLVERS = ("our_cfr", "cfr", "cfr_cpp")
SAMPLING_SOLVERS = ("cs_cfr", "cs_cfr_simultaneous", "mccfr_external", "mccfr_outcome",
                    "mccfr_external_cpp", "mccfr_outcome_cpp")


@dataclasses.dataclass
class Run:
  """Result of one solver on one game."""
  solver: str
  game: str
  iterations: int = 0
  seconds: float = 0.0  # Solver time only.
  exploitability: float = math.inf
  reached: Optional[float] = None  # Solver seconds to the target, None if not reached.
  reached_iterations: Optional[int] = None
  curve: List = dataclasses.field(default_factory=list)  # (iterations, exploitability).

  @property
  def rate(self) -> float:
    return self.iterations / self.seconds if self.seconds > 0 else math.nan


def run_to_target(name: str, game: pyspiel.Game, tree: GameTree, evaluator: TreeEvaluator,
                  target: float, cap: float, seed: int) -> Run:
  """Runs the registered solver ``name`` until exploitability <= target or ``cap`` solver
  seconds, evaluating at iterations 1, 2, 3, ... growing by 10% (evaluation time excluded)."""
  solver = solver_registry.get_solver(name).build(game, seed, tree)
  run = Run(name, str(game))
  while run.seconds < cap:
    todo = max(1, int(run.iterations * 0.1))
    start = time.perf_counter()
    for _ in range(todo):
      solver.evaluate_and_update_policy()
    run.seconds += time.perf_counter() - start
    run.iterations += todo
    run.exploitability = evaluator.exploitability(
        solver_registry.tabular_average_policy(game, solver))
    run.curve.append((run.iterations, run.exploitability))
    if run.exploitability <= target:
      run.reached, run.reached_iterations = run.seconds, run.iterations
      break
  return run


def _fmt_time(run: Run, cap: float) -> str:
  if run.reached is None:
    return f"> {cap:.0f} s (expl {run.exploitability:.2e} at {run.iterations} it)"
  return f"{run.reached:.2f} s ({run.reached_iterations} it)"


def _table(rows: List[List[str]], header: List[str]) -> str:
  widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

  def line(r):
    return " | ".join(str(c).ljust(w) for c, w in zip(r, widths))

  return "\n".join([line(header), "-+-".join("-" * w for w in widths)] + [line(r) for r in rows])


def _exploitability_at(run: Run, iterations: int) -> float:
  for it, value in run.curve:
    if it == iterations:
      return value
  return math.nan


def _run_solvers(game_string, solvers, target, cap, seed, rows):
  """Runs every solver on one game (one tree walk); appends and prints a row per solver."""
  game = pyspiel.load_game(game_string)
  tree = GameTree.from_game(game)
  evaluator = TreeEvaluator(tree)
  runs = {}
  for name in solvers:
    run = runs[name] = run_to_target(name, game, tree, evaluator, target, cap, seed)
    rows.append([str(game), name, f"{run.rate:,.0f}", _fmt_time(run, cap)])
    print(" | ".join(rows[-1]), flush=True)
  return game, runs


def part_cfr(games, solvers, cap, target, seed):
  print(f"\n## CFR: iterations/s and solver time to exploitability {target:g} (cap {cap:.0f} s)\n")
  rows, ratios = [], []
  for game_string in games:
    game, runs = _run_solvers(game_string, solvers, target, cap, seed, rows)
    if "our_cfr" in runs and "cfr_cpp" in runs:
      ours, cpp = runs["our_cfr"], runs["cfr_cpp"]
      common = [it for it, _ in cpp.curve if it <= ours.iterations]
      early = max((it for it in common if it <= 100), default=0)
      last = max(common, default=0)
      ratios.append([str(game), f"{ours.rate / cpp.rate:.1f}x"] + [
          f"{it}: {_exploitability_at(ours, it):.10e} / {_exploitability_at(cpp, it):.10e}"
          for it in (early, last)])
  print()
  print(_table(rows, ["game", "solver", "it/s", f"time to {target:g}"]))
  if ratios:
    print("\nRatio of iterations/s, ours / C++ pyspiel.CFRSolver (target >= 10x), and both "
          "exploitabilities (ours / C++) after the same number of iterations (the last common "
          "checkpoint <= 100, and the last one; long runs drift apart by rounding, see README):\n")
    print(_table(ratios, ["game", "ours / C++", "expl at <= 100 it", "expl at last common it"]))


def part_sampling(games, solvers, cap, target, seed):
  print(f"\n## Sampling: solver time to exploitability {target:g} (cap {cap:.0f} s)\n")
  rows = []
  for game_string in games:
    game, runs = _run_solvers(game_string, solvers, target, cap, seed, rows)
    if "mccfr_external" in runs:
      for ours in ("cs_cfr", "cs_cfr_simultaneous"):
        if ours in runs and runs[ours].reached is not None:
          es = runs["mccfr_external"]
          bound = es.reached if es.reached is not None else es.seconds
          # Python ES still above the target at its cap took longer than es.seconds, so the
          # ratio is then at most ours / es.seconds.
          sign = "=" if es.reached is not None else "<"
          print(f"  {game}: {ours} time / mccfr_external time {sign} "
                f"{runs[ours].reached / bound:.3f} (target < 1)")
  print()
  print(_table(rows, ["game", "solver", "it/s", f"time to {target:g}"]))


def _megabytes(*objects) -> float:
  total = 0
  for obj in objects:
    for value in vars(obj).values():
      if isinstance(value, np.ndarray):
        total += value.nbytes
  return total / 2**20


def part_scaling(budget: float, deck_sizes: List[int]):
  print(f"\n## Scaling: kuhn_poker_ante(deck_size=N), tree build and one CFR iteration "
        f"(stop when a build would exceed {budget:.0f} s)\n")
  rows, last = [], None
  for n in deck_sizes:
    if last is not None and last[1] * (n / last[0])**2 > budget:  # Tree size ~ N^2.
      print(f"N={n}: predicted build {last[1] * (n / last[0])**2:.0f} s > {budget:.0f} s; stop")
      break
    game = pyspiel.load_game(f"kuhn_poker_ante(deck_size={n})")
    start = time.perf_counter()
    tree = GameTree.from_game(game, max_nodes=50_000_000)
    arrays = TreeArrays(tree)
    build = time.perf_counter() - start
    engine = CFREngine(arrays, UpdateRule())
    iterations, start = 0, time.perf_counter()
    while time.perf_counter() - start < 1.0 or iterations < 3:
      engine.iterate()
      iterations += 1
    per_iteration = (time.perf_counter() - start) / iterations
    mb = _megabytes(tree, *tree.players, arrays, engine)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append([n, tree.num_nodes, tree.num_terminals, arrays.num_sequences,
                 f"{build:.2f}", f"{per_iteration * 1e3:.3f}", f"{mb:.1f}", f"{rss:.0f}"])
    print(" | ".join(map(str, rows[-1])), flush=True)
    last = (n, build)
  print()
  print(_table(rows, ["N", "nodes", "terminals", "sequences", "build s", "ms / iteration",
                      "array MB", "max RSS MB"]))


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.benchmark_cfr",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--games", nargs="+", default=list(DEFAULT_GAMES),
                      help="game strings (default: %(default)s)")
  parser.add_argument("--part", choices=("cfr", "sampling", "both"), default="both")
  parser.add_argument("--solvers", nargs="+", default=None,
                      help="registered solvers (experiments.solver_registry; full-traversal ones "
                      f"in the cfr part, sampled ones in the sampling part; default: "
                      f"{', '.join(CFR_SOLVERS)} and {', '.join(SAMPLING_SOLVERS)})")
  parser.add_argument("--cap", type=float, default=60.0, help="seconds per CFR solver and game")
  parser.add_argument("--sampling-cap", type=float, default=600.0,
                      help="seconds per sampling solver and game")
  parser.add_argument("--quick", action="store_true", help="caps of 5 s, Kuhn games only")
  parser.add_argument("--scaling", action="store_true", help="run the scaling table instead")
  parser.add_argument("--scaling-budget", type=float, default=60.0)
  parser.add_argument("--seed", type=int, default=0)
  args = parser.parse_args(argv)
  for value, name in ((args.cap, "--cap"), (args.sampling_cap, "--sampling-cap"),
                      (args.scaling_budget, "--scaling-budget")):
    if value <= 0:
      print(f"error: {name} must be > 0, got {value}", file=sys.stderr)
      return 2
  if args.solvers:
    unknown = set(args.solvers) - set(solver_registry.available_solvers())
    if unknown:
      print(f"error: unknown solvers {sorted(unknown)}; allowed: "
            f"{', '.join(solver_registry.available_solvers())}", file=sys.stderr)
      return 2
  for game_string in args.games:
    try:
      games.load_game(game_string)
    except ValueError as e:
      print(f"error: {e}", file=sys.stderr)
      return 2
  if args.scaling:
    part_scaling(args.scaling_budget, [3, 5, 8, 13, 20, 30, 50, 75, 100, 150, 200, 300, 400, 500])
    return 0
  if args.quick:
    args.cap = args.sampling_cap = 5.0
    args.games = [g for g in args.games if not g.startswith("leduc")]
  print(f"Machine: one run, {time.strftime('%Y-%m-%d %H:%M')}; solver time excludes evaluation.")
  if args.part in ("cfr", "both"):
    solvers = [s for s in (args.solvers or CFR_SOLVERS)
               if not solver_registry.get_solver(s).sampled]
    part_cfr(args.games, solvers, args.cap, 1e-3, args.seed)
  if args.part in ("sampling", "both"):
    solvers = [s for s in (args.solvers or SAMPLING_SOLVERS)
               if solver_registry.get_solver(s).sampled]
    part_sampling(args.games, solvers, args.sampling_cap, 1e-2, args.seed)
  return 0


if __name__ == "__main__":
  try:
    sys.exit(main())
  except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(130)
