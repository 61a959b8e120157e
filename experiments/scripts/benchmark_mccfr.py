"""Benchmark of our Monte Carlo CFR against OpenSpiel's C++ and Python MCCFR at equal CPU time.

  python -m experiments.scripts.benchmark_mccfr                 # leduc_poker and liars_dice
  python -m experiments.scripts.benchmark_mccfr --quick         # leduc_poker, 1 seed, 0.5 s runs
  python -m experiments.scripts.benchmark_mccfr --games leduc_poker --seconds 30 --seeds 5

Every solver runs external sampling (simple averaging) and outcome sampling (epsilon 0.6):
ours (``algorithms.ExternalSamplingSolver``, ``OutcomeSamplingSolver``: ``solve(n)``, n
iterations in one compiled call), OpenSpiel's C++ ``pyspiel.ExternalSamplingMCCFRSolver`` and
``OutcomeSamplingMCCFRSolver`` (``run_iteration()``) and OpenSpiel's Python
``external_sampling_mccfr`` and ``outcome_sampling_mccfr`` (``iteration()``, each run with its
own seeded numpy generator: ``solver_registry``'s ``mccfr_external`` and ``mccfr_outcome``).
Each run of a solver and seed takes whole calls until ``--seconds`` of CPU time
(``time.process_time``, the calls only) have passed, in calls that double in size while they
take under 2% of the budget; then the exact exploitability of its average policy is computed on
the game tree (``TreeEvaluator``, not timed). The table gives, per game and solver, the medians
over ``--seeds`` seeds of iterations per CPU second and of the exploitability at that CPU time,
and ours against each OpenSpiel solver of the same sampling scheme: speed ratio (ours / theirs)
and exploitability ratio (theirs / ours, above 1 where ours is lower). Our one-off setup (the
tree walk and the solver's arrays) is printed apart, outside the budget; OpenSpiel's solvers
have none. ``main`` returns the rows of every run.
"""

import argparse
import dataclasses
import math
import statistics
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import pyspiel

import algorithms
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.tree.game_tree import GameTree
from experiments.harness import game_loader
from experiments.harness import provenance
from experiments.harness import script_runner
from experiments.harness import solver_registry

GAMES = ("leduc_poker", "liars_dice")
SCHEMES = ("external", "outcome")
IMPLEMENTATIONS = ("ours", "C++", "Python")
OUTCOME_EPSILON = 0.6  # OpenSpiel's Python value, fixed there; given to ours and to C++.


@dataclasses.dataclass(frozen=True)
class Row:
  """One run: a solver on a game with one seed for the CPU-time budget."""

  game: str
  implementation: str  # "ours", "C++" or "Python"
  scheme: str  # "external" or "outcome"
  seed: int
  iterations: int
  seconds: float  # CPU seconds of the solver's calls
  exploitability: float  # of the average policy after those iterations

  @property
  def rate(self) -> float:
    return self.iterations / self.seconds


@dataclasses.dataclass
class Peer:
  """A solver under test: ``step(n)`` runs n iterations; ``average()`` has
  ``action_probabilities(state)``."""

  step: Callable[[int], None]
  average: Callable[[], object]


def repeat(call: Callable[[], None]) -> Callable[[int], None]:
  """``step(n)``: n calls of ``call``."""
  def step(n: int) -> None:
    for _ in range(n):
      call()
  return step


def make_peer(implementation: str, scheme: str, game: pyspiel.Game, tree: GameTree,
              seed: int) -> Peer:
  """A fresh solver of ``implementation`` and ``scheme`` with ``seed``."""
  if implementation == "ours":
    ours = (algorithms.ExternalSamplingSolver(game, seed=seed, tree=tree) if scheme == "external"
            else algorithms.OutcomeSamplingSolver(game, epsilon=OUTCOME_EPSILON, seed=seed,
                                                  tree=tree))
    return Peer(ours.solve, ours.average_policy)
  if implementation == "C++":
    cpp = (pyspiel.ExternalSamplingMCCFRSolver(game, seed) if scheme == "external"
           else pyspiel.OutcomeSamplingMCCFRSolver(game, OUTCOME_EPSILON, seed))
    return Peer(repeat(cpp.run_iteration), cpp.average_policy)
  python = solver_registry.get_solver(f"mccfr_{scheme}").build(game, seed=seed)
  return Peer(repeat(python.evaluate_and_update_policy), python.average_policy)


def timed_run(step: Callable[[int], None], seconds: float) -> Tuple[int, float]:
  """Runs ``step`` until ``seconds`` of CPU time have passed; returns (iterations, seconds)."""
  done, spent, chunk = 0, 0.0, 1
  while spent < seconds:
    start = time.process_time()
    step(chunk)
    elapsed = time.process_time() - start
    spent += elapsed
    done += chunk
    if elapsed < seconds / 50:  # Calls of up to 2% of the budget (then at most 4% over it).
      chunk *= 2
  return done, spent


class Evaluator:
  """Exact exploitability of any policy with ``action_probabilities(state)`` on the tree: the
  policy is read at one state per information set into the game's ``TabularPolicy``."""

  def __init__(self, tree: GameTree):
    self._evaluator = TreeEvaluator(tree)
    self._table = tree.tabular_policy()

  def __call__(self, policy) -> float:
    probabilities = self._table.action_probability_array
    for row, state in enumerate(self._table.states):
      for action, p in policy.action_probabilities(state).items():
        probabilities[row, action] = p
    return self._evaluator.exploitability(self._table)


def run_game(game_string: str, args) -> List[Row]:
  """Every solver and seed on one game; prints each run and returns its rows."""
  game = game_loader.load_game(game_string)
  start = time.process_time()
  tree = GameTree.from_game(game)
  walked = time.process_time() - start
  start = time.process_time()
  for scheme in SCHEMES:  # Our solvers' setup, and their kernels compiled or loaded.
    make_peer("ours", scheme, game, tree, 0).step(1)
  setup = time.process_time() - start
  evaluate = Evaluator(tree)
  print(f"\n{game}: {tree.num_nodes:,} histories; our setup outside the budget: tree "
        f"{walked:.2f} CPU s, solvers and kernels {setup:.2f} s", flush=True)
  rows = []
  for scheme in SCHEMES:
    for implementation in IMPLEMENTATIONS:
      for seed in range(args.seeds):
        peer = make_peer(implementation, scheme, game, tree, seed)
        iterations, seconds = timed_run(peer.step, args.seconds)
        row = Row(game_string, implementation, scheme, seed, iterations, seconds,
                  evaluate(peer.average()))
        rows.append(row)
        print(f"  {implementation:6s} {scheme:8s} seed {seed}: {iterations:>11,} iterations in "
              f"{seconds:.2f} CPU s ({row.rate:>11,.0f} it/s), exploitability "
              f"{row.exploitability:.4e}", flush=True)
  return rows


def ratio(a: float, b: float) -> float:
  return a / b if b > 0 else math.nan


def summary(rows: List[Row]) -> List[str]:
  """The table's lines: per game and solver the medians, and ours against each peer."""
  groups: Dict[tuple, List[Row]] = {}
  for r in rows:
    groups.setdefault((r.game, r.scheme, r.implementation), []).append(r)
  medians = {key: (statistics.median(r.rate for r in group),
                   statistics.median(r.exploitability for r in group))
             for key, group in groups.items()}
  lines = ["| game | sampling | solver | it/s (median) | exploitability (median) | "
           "speed: ours / this | exploitability: this / ours |",
           "|---|---|---|---|---|---|---|"]
  for (game, scheme, implementation), (rate, value) in medians.items():
    our_rate, our_value = medians[(game, scheme, "ours")]
    lines.append(f"| {game} | {scheme} | {implementation} | {rate:,.0f} | {value:.3e} | "
                 f"{ratio(our_rate, rate):.1f}x | {ratio(value, our_value):.2f}x |")
  lines.append("")
  for game in dict.fromkeys(r.game for r in rows):
    ours, cpp = medians[(game, "external", "ours")][1], medians[(game, "external", "C++")][1]
    lines.append(f"Target on {game}: our external sampling below OpenSpiel C++'s at equal CPU "
                 f"time: {ours:.3e} vs {cpp:.3e}, {'met' if ours < cpp else 'NOT met'}")
  return lines


def main(argv: Optional[Sequence[str]] = None) -> List[Row]:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.benchmark_mccfr",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--games", nargs="+", default=list(GAMES),
                      help=f"game strings (default: {' '.join(GAMES)})")
  parser.add_argument("--seconds", type=float, default=10.0,
                      help="CPU seconds of each run (default 10)")
  parser.add_argument("--seeds", type=int, default=3, help="runs per solver (median; default 3)")
  parser.add_argument("--quick", action="store_true",
                      help="leduc_poker only, 1 seed, runs of 0.5 CPU s")
  args = parser.parse_args(argv)
  if args.quick:
    args.games, args.seeds, args.seconds = ["leduc_poker"], 1, 0.5
  if not args.seconds > 0 or args.seeds < 1:
    parser.error(f"--seconds must be > 0 and --seeds >= 1, got {args.seconds} and {args.seeds}")
  versions = provenance.package_versions(("open_spiel", "numpy", "numba"))
  print(f"Machine: {provenance.machine()}; " + ", ".join(f"{k} {v}" for k, v in versions.items()))
  print(f"Runs of {args.seconds:g} CPU s, {args.seeds} seed(s) per solver.")
  rows = [row for game in args.games for row in run_game(game, args)]
  print("\n## Exploitability at equal CPU time\n")
  print("\n".join(summary(rows)))
  return rows


if __name__ == "__main__":
  script_runner.run(lambda: 0 if main(sys.argv[1:]) else 1)
