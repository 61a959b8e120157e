"""Benchmark of the range-vector CFR engine against the flat engine, and its large-deck targets.

  python -m experiments.scripts.benchmark_range           # parts 1-3 (about 8 minutes)
  python -m experiments.scripts.benchmark_range --quick   # small decks, short repeats
  python -m experiments.scripts.benchmark_range --part players   # part 4 (about 1 minute)
  python -m experiments.scripts.benchmark_range --part cost      # part 5 (about 3 minutes)

On two-player ``kuhn_poker_ante`` with N cards, three parts (``--part engines``, the default),
each printed as a table:

1. Agreement, first: vanilla CFR (``algorithms.CFRSolver``, alternating updates; Zinkevich,
   Johanson, Bowling, Piccione, NeurIPS 2007) for ``AGREEMENT_ITERATIONS`` iterations on each
   engine; the largest difference of the two average policies' ``TabularPolicy`` arrays (rows
   matched by information state) must be at most ``AGREEMENT_TOLERANCE``. Both engines run the
   same updates and sum the same terms in another order, so they agree up to rounding except
   where a regret ties exactly, where rounding decides regret matching's next policy
   (``solver_backends``' docstring): decks with such a tie at the uniform start
   (``game_loader.uniform_profile_ties``; 13 cards has them) are shown, not checked.
2. Speed: iterations per CPU second (``time.process_time``) of vanilla CFR's ``solve(n)``, one
   compiled call, on each engine, the median of ``--repeats`` repeats of ``--seconds``
   (``benchmarking.cpu_rate``), both engines in this process, for N = 3, 13, 50, 200, both rule
   sets and ``STAKES``; the ratio range / flat against the issue's targets
   (``SPEED_TARGETS``: >= 8 at 13 cards, >= 14 at 50, >= 50 at 200).
3. Large decks: discounted CFR (``algorithms.DCFRSolver``; Brown and Sandholm, AAAI 2019) on
   range vectors until the exact exploitability of its average policy (a range-vector best
   response, Johanson et al., IJCAI 2011) is at most ``TARGET_EXPLOITABILITY``, checked every
   ``CHECK_EVERY`` iterations: CPU seconds from loading the game to the target, checks included,
   the kernels loaded beforehand on a 13-card game; and memory as resident set sizes
   (``benchmarking.memory_bytes``; ``tracemalloc`` would miss the arrays the compiled kernels
   allocate), each deck in a fresh process whose peak is reset just before the run: the
   process's peak over the run (interpreter and libraries included), against the target, and its
   growth over the size before the run, the run's own. Targets (``LARGE_TARGETS``): 10,000 cards
   in < 60 CPU s, 100,000 cards in < 10 minutes within 2 GB.

On the range engine alone, two and three players (``kuhn_poker_ante(players=3)``):

4. ``--part players``: iterations per CPU second of ``solve(n)`` for CFR+ (Tammelin 2014) and
   DCFR (Brown and Sandholm 2019), two players at 1,000 and 100,000 cards, three at 50 and
   1,000 (``PLAYER_DECKS``), as in part 2.
5. ``--part cost``: the harness's cost model on range vectors
   (``range_cost.RANGE_COSTS``) against measured CPU seconds of the running thread
   (``solver_runs.SOLVER_CLOCK``) for ``our_cfr``: one iteration as the harness calls it
   (``evaluate_and_update_policy``), one measure of the average policy (``card_policy`` and the
   exact exploitability or NashConv), and a whole ``solver_runs.solve`` of
   ``range_cost.RANGE_COST_ITERATIONS`` iterations measured at the convergence
   experiment's points, against ``context.estimate_seconds`` of that job (``COST_DECKS``); the
   numbers ``range_cost.RANGE_COST_MEASUREMENTS`` records.

``main(argv)`` prints the tables and returns their rows (``Rows``, or a list of ``PlayerRate``
or ``Cost`` rows with ``--part``); run as a script, the exit status is 1 if the engines
disagree, else 0 (``exit_status``: a missed target is reported, not an error).
"""

import argparse
import dataclasses
import json
import math
import subprocess
import sys
import time
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import pyspiel

import algorithms
from experiments.harness import benchmarking
from experiments.harness import context
from experiments.harness import game_loader
from experiments.harness import jobs
from experiments.harness import measures
from experiments.harness import range_cost
from experiments.harness import script_runner
from experiments.harness import solver_registry
from experiments.harness import solver_runs

DECKS, QUICK_DECKS = (3, 13, 50, 200), (3, 13)
STAKES, QUICK_STAKES = ((1.0, 1.0), (2.0, 1.0), (1.0, 4.0)), ((1.0, 1.0),)
# Decks without exact ties at the uniform start (13 has them, see the module docstring).
AGREEMENT_DECKS, QUICK_AGREEMENT_DECKS = (12, 14, 50, 51, 200), (12, 14)
AGREEMENT_ITERATIONS = 100
AGREEMENT_TOLERANCE = 1e-12
# The targets for range / flat iterations per second, by cards.
SPEED_TARGETS = {13: 8.0, 50: 14.0, 200: 50.0}
LARGE_DECKS, QUICK_LARGE_DECKS = (10_000, 100_000), (2_000,)
# The large-deck targets, by cards: (CPU seconds, peak bytes or None).
LARGE_TARGETS = {10_000: (60.0, None), 100_000: (600.0, 2 * 10**9)}
TARGET_EXPLOITABILITY = 1e-6
CHECK_EVERY = 10
MAX_ITERATIONS = 100_000  # A large-deck run stops here if the target is not reached.
# Part 4: (players, cards) and the rules whose range-engine rates are measured.
PLAYER_DECKS, QUICK_PLAYER_DECKS = ((2, 1_000), (2, 100_000), (3, 50), (3, 1_000)), ((3, 50),)
PLAYER_SOLVERS = ("CFRPlusSolver", "DCFRSolver")
# Part 5: (players, cards) of the cost model's measurements.
COST_DECKS = ((2, 1_000), (2, 10_000), (2, 100_000), (2, 1_000_000), (3, 1_000), (3, 10_000),
              (3, 100_000), (3, 1_000_000))
QUICK_COST_DECKS = ((2, 1_000), (3, 1_000))
COST_SOLVER = "our_cfr"
# The large-deck run in a fresh process (the peak resident set size never goes down).
LARGE_RUN = ("import json, sys\n"
             "from experiments.scripts.benchmark_range import large_deck_run\n"
             "print(json.dumps(large_deck_run(int(sys.argv[1]), sys.argv[2] == 'True')))\n")


def game_string(cards: int, simplified: bool, ante: float = 1.0, bet: float = 1.0) -> str:
  return game_loader.kuhn_game_string(ante, bet, simplified, cards)


def rules_name(simplified: bool) -> str:
  return "simplified" if simplified else "standard"


@dataclasses.dataclass
class Agreement:
  """Part 1: the largest difference of the engines' average policies on one game.

  Attributes:
    game: the game string.
    ties: information states with a tie at the uniform start (not checked where any).
    difference: max |flat - range| over the ``TabularPolicy`` arrays.
  """

  game: str
  ties: int
  difference: float

  @property
  def agrees(self) -> Optional[bool]:
    """Within ``AGREEMENT_TOLERANCE``; None (not checked) where there are ties."""
    return None if self.ties else self.difference <= AGREEMENT_TOLERANCE


@dataclasses.dataclass
class Speed:
  """Part 2: vanilla CFR's iterations per CPU second on each engine, for one game."""

  cards: int
  simplified: bool
  ante: float
  bet: float
  flat: float
  range: float

  @property
  def ratio(self) -> float:
    """The ratio range / flat of the rates."""
    return self.range / self.flat if self.flat > 0 else math.nan

  @property
  def target(self) -> Optional[float]:
    return SPEED_TARGETS.get(self.cards)

  @property
  def met(self) -> Optional[bool]:
    return None if self.target is None else self.ratio >= self.target


@dataclasses.dataclass
class LargeDeck:
  """Part 3: discounted CFR to the target on one large deck, in a fresh process."""

  cards: int
  simplified: bool
  iterations: int
  cpu_seconds: float
  exploitability: float
  peak_bytes: int
  run_bytes: int

  @property
  def target(self) -> Optional[Tuple[float, Optional[int]]]:
    return LARGE_TARGETS.get(self.cards)

  @property
  def met(self) -> Optional[bool]:
    if self.target is None:
      return None
    seconds, peak = self.target
    return (self.exploitability <= TARGET_EXPLOITABILITY and self.cpu_seconds < seconds
            and (peak is None or self.peak_bytes <= peak))


@dataclasses.dataclass
class PlayerRate:
  """Part 4: iterations per CPU second of one rule on the range engine, for one game."""

  players: int
  cards: int
  solver: str
  rate: float


@dataclasses.dataclass
class Cost:
  """Part 5: measured CPU seconds on range vectors against the harness's estimate.

  Attributes:
    players, cards: the game, ``kuhn_poker_ante`` with standard rules.
    iteration: one ``evaluate_and_update_policy`` call.
    evaluation: one measure of the average policy.
    run: a whole ``solver_runs.solve`` (iterations, measures and its one-off costs).
    estimate: ``context.estimate_seconds`` of that run's job.
  """

  players: int
  cards: int
  iteration: float
  evaluation: float
  run: float
  estimate: float

  @property
  def ratio(self) -> float:
    """The ratio estimate / run."""
    return self.estimate / self.run


class Rows(NamedTuple):
  agreement: List[Agreement]
  speed: List[Speed]
  large: List[LargeDeck]


def agreement(cards: int, simplified: bool) -> Agreement:
  game = pyspiel.load_game(game_string(cards, simplified))
  ties = len(game_loader.uniform_profile_ties(game))
  flat, ranges = (algorithms.CFRSolver(game, engine=engine).solve(AGREEMENT_ITERATIONS)
                  .average_policy() for engine in ("flat", "range"))
  rows = [flat.state_lookup[key] for key in ranges.state_lookup]  # in the range policy's order
  difference = float(np.abs(flat.action_probability_array[rows]
                            - ranges.action_probability_array).max())
  return Agreement(str(game), ties, difference)


def speed(cards: int, simplified: bool, ante: float, bet: float, seconds: float,
          repeats: int) -> Speed:
  game = pyspiel.load_game(game_string(cards, simplified, ante, bet))
  rates = {}
  for engine in ("flat", "range"):
    solver = algorithms.CFRSolver(game, engine=engine)
    solver.solve(1)  # The compiled kernels loaded before timing.
    rates[engine] = benchmarking.cpu_rate(solver.solve, seconds, repeats)
  return Speed(cards, simplified, ante, bet, rates["flat"], rates["range"])


def range_game(players: int, cards: int) -> pyspiel.Game:
  """Standard ``kuhn_poker_ante`` (ante = bet = 1) of ``players`` players and ``cards`` cards."""
  return pyspiel.load_game(f"kuhn_poker_ante(players={players},deck_size={cards})")


def player_rate(players: int, cards: int, solver: str, seconds: float,
                repeats: int) -> PlayerRate:
  """Part 4's rate of ``algorithms.<solver>`` with ``engine="range"``."""
  instance = getattr(algorithms, solver)(range_game(players, cards), engine="range")
  instance.solve(1)  # The compiled kernels loaded before timing.
  return PlayerRate(players, cards, solver,
                    benchmarking.cpu_rate(instance.solve, seconds, repeats))


def _thread_seconds(step, count: int) -> float:
  """CPU seconds of the running thread per call of ``step()``, over ``count`` calls."""
  start = solver_runs.SOLVER_CLOCK()
  for _ in range(count):
    step()
  return (solver_runs.SOLVER_CLOCK() - start) / count


def cost(players: int, cards: int) -> Cost:
  """Part 5's row: ``COST_SOLVER``'s iteration, measure and whole run on one deck."""
  game = range_game(players, cards)
  spec = solver_registry.get_solver(COST_SOLVER)
  instance = spec.build(game)
  instance.evaluate_and_update_policy()  # The compiled kernels loaded before timing.
  iteration = _thread_seconds(instance.evaluate_and_update_policy, max(3, min(200, 10**7 // cards)))
  measure = measures.measure_for(game)
  evaluation = _thread_seconds(lambda: measure.ours(instance.card_policy()),
                               max(2, min(50, 10**7 // cards)))
  iterations = range_cost.RANGE_COST_ITERATIONS
  points = jobs.measuring_points(iterations, 20)  # the convergence experiment's points
  job = jobs.Job("benchmark", str(game), COST_SOLVER, 0, iterations, measure_at=points)
  start = solver_runs.SOLVER_CLOCK()
  solver_runs.solve(game, COST_SOLVER, 0, iterations, points)
  run = solver_runs.SOLVER_CLOCK() - start
  return Cost(players, cards, iteration, evaluation, run, context.estimate_seconds(job))


def large_deck_run(cards: int, simplified: bool) -> Dict[str, float]:
  """Part 3's run in this process (``LARGE_RUN`` calls it in a fresh one): iterations, CPU
  seconds, final exploitability, the process's peak resident set size over the run and its
  growth over the size before the run."""
  warm = algorithms.DCFRSolver(pyspiel.load_game(game_string(13, simplified)))
  warm.solve(CHECK_EVERY)
  warm.exploitability()  # Every kernel of the run loaded before the clock starts.
  benchmarking.reset_peak_memory()
  before, _ = benchmarking.memory_bytes()
  start = time.process_time()
  solver = algorithms.DCFRSolver(pyspiel.load_game(game_string(cards, simplified)))
  if solver.engine_name != "range":
    raise ValueError(f"{cards} cards run on the {solver.engine_name} engine, not on range vectors")
  exploitability = solver.exploitability()
  while exploitability > TARGET_EXPLOITABILITY and solver.iteration < MAX_ITERATIONS:
    solver.solve(CHECK_EVERY)
    exploitability = solver.exploitability()
  seconds = time.process_time() - start
  _, peak = benchmarking.memory_bytes()
  return {"iterations": solver.iteration, "cpu_seconds": seconds,
          "exploitability": exploitability, "peak_bytes": peak, "run_bytes": peak - before}


def large_deck(cards: int, simplified: bool) -> LargeDeck:
  out = subprocess.run([sys.executable, "-c", LARGE_RUN, str(cards), str(simplified)],
                       check=True, capture_output=True, text=True).stdout
  return LargeDeck(cards, simplified, **json.loads(out.strip().splitlines()[-1]))


def _met(met: Optional[bool]) -> str:
  return "-" if met is None else "met" if met else "missed"


def print_rows(rows: Rows) -> None:
  print(f"\n## 1. Same average policy after {AGREEMENT_ITERATIONS} iterations of vanilla CFR, "
        "flat and range engines\n")
  print("| game | ties at the uniform start | max abs difference | within "
        f"{AGREEMENT_TOLERANCE:g} |\n|---|---|---|---|")
  for a in rows.agreement:
    agrees = "not checked (ties)" if a.agrees is None else "yes" if a.agrees else "NO"
    print(f"| `{a.game}` | {a.ties} | {a.difference:.1e} | {agrees} |")
  print("\n## 2. Vanilla CFR iterations per CPU second, solve(n), flat and range engines\n")
  print("| cards | rules | ante | bet | flat it/s | range it/s | range / flat | target | met |\n"
        "|---|---|---|---|---|---|---|---|---|")
  for s in rows.speed:
    target = "-" if s.target is None else f">= {s.target:g}"
    print(f"| {s.cards} | {rules_name(s.simplified)} | {s.ante:g} | {s.bet:g} | {s.flat:,.0f} | "
          f"{s.range:,.0f} | {s.ratio:.1f} | {target} | {_met(s.met)} |")
  print(f"\n## 3. Discounted CFR to exploitability <= {TARGET_EXPLOITABILITY:g} on range "
        f"vectors (checked every {CHECK_EVERY} iterations), a fresh process per deck\n")
  print("| cards | rules | iterations | CPU s | exploitability | peak RSS (MB) | of which the run "
        "(MB) | target | met |\n|---|---|---|---|---|---|---|---|---|")
  for d in rows.large:
    target = "-"
    if d.target is not None:
      seconds, peak = d.target
      target = f"< {seconds:g} s" + ("" if peak is None else f", <= {peak / 1e9:g} GB")
    print(f"| {d.cards:,} | {rules_name(d.simplified)} | {d.iterations:,} | "
          f"{d.cpu_seconds:.2f} | {d.exploitability:.2e} | {d.peak_bytes / 1e6:,.0f} | "
          f"{d.run_bytes / 1e6:,.0f} | {target} | {_met(d.met)} |")


def print_player_rates(rows: Sequence[PlayerRate]) -> None:
  print("\n## 4. Range engine, iterations per CPU second, solve(n), two and three players\n")
  print("| players | cards | rule | it/s |\n|---|---|---|---|")
  for r in rows:
    print(f"| {r.players} | {r.cards:,} | {r.solver} | {r.rate:,.0f} |")


def print_costs(rows: Sequence[Cost]) -> None:
  print(f"\n## 5. Cost on range vectors ({COST_SOLVER}, CPU s of the running thread) against the "
        "harness's estimate\n")
  print(f"| players | cards | s / iteration | s / measure | run of "
        f"{range_cost.RANGE_COST_ITERATIONS} iterations (s) | estimate (s) | "
        "estimate / run |\n|---|---|---|---|---|---|---|")
  for r in rows:
    print(f"| {r.players} | {r.cards:,} | {r.iteration:.3g} | {r.evaluation:.3g} | "
          f"{r.run:.3g} | {r.estimate:.3g} | {r.ratio:.2f} |")


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.benchmark_range",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=5, help="repeats per rate (median)")
  parser.add_argument("--seconds", type=float, default=0.5, help="CPU seconds per repeat")
  parser.add_argument("--part", choices=("engines", "players", "cost"), default="engines",
                      help="parts 1-3 (flat against range engine; the default), part 4 (range "
                      "engine rates, two and three players) or part 5 (the cost model)")
  parser.add_argument("--quick", action="store_true",
                      help=f"decks {QUICK_AGREEMENT_DECKS} (agreement), {QUICK_DECKS} (speed, "
                      f"stakes {QUICK_STAKES}) and {QUICK_LARGE_DECKS} (large, no target); 3 "
                      "repeats of 0.1 s")
  args = parser.parse_args(argv)
  for name in ("repeats", "seconds"):
    if getattr(args, name) <= 0:
      parser.error(f"--{name} must be > 0, got {getattr(args, name)}")
  if args.quick:
    args.repeats, args.seconds = 3, 0.1
  return args


def main(argv: Optional[Sequence[str]] = None) -> Union[Rows, List[PlayerRate], List[Cost]]:
  """Runs the parts ``--part`` names (module docstring), prints their tables and returns their
  rows."""
  args = parse_args(argv)
  benchmarking.describe_machine()
  if args.part == "players":
    rates = [player_rate(p, n, solver, args.seconds, args.repeats)
             for p, n in (QUICK_PLAYER_DECKS if args.quick else PLAYER_DECKS)
             for solver in PLAYER_SOLVERS]
    print_player_rates(rates)
    return rates
  if args.part == "cost":
    costs = [cost(p, n) for p, n in (QUICK_COST_DECKS if args.quick else COST_DECKS)]
    print_costs(costs)
    return costs
  agreement_decks, decks, stakes, large_decks = (
      (QUICK_AGREEMENT_DECKS, QUICK_DECKS, QUICK_STAKES, QUICK_LARGE_DECKS) if args.quick
      else (AGREEMENT_DECKS, DECKS, STAKES, LARGE_DECKS))
  rules = (False, True)
  rows = Rows([agreement(n, s) for n in agreement_decks for s in rules],
              [speed(n, s, ante, bet, args.seconds, args.repeats)
               for n in decks for s in rules for ante, bet in stakes],
              [large_deck(n, False) for n in large_decks])
  print_rows(rows)
  return rows


def exit_status(rows: Union[Rows, List[PlayerRate], List[Cost]]) -> int:
  """1 if the engines disagree on a checked game, else 0."""
  if not isinstance(rows, Rows):
    return 0
  return 1 if any(a.agrees is False for a in rows.agreement) else 0


if __name__ == "__main__":
  script_runner.run(lambda: exit_status(main()))
