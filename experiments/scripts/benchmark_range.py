"""Benchmark of the range-vector CFR engine against the flat engine, and its large-deck targets.

  python -m experiments.scripts.benchmark_range           # every part (about 8 minutes)
  python -m experiments.scripts.benchmark_range --quick   # small decks, short repeats

On two-player ``kuhn_poker_ante`` with N cards, three parts, each printed as a table:

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

``main(argv)`` prints the tables and returns their rows (``Rows``); run as a script, the exit
status is 1 if the engines disagree, else 0 (``exit_status``: a missed target is reported, not an
error).
"""

import argparse
import dataclasses
import json
import math
import subprocess
import sys
import time
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import pyspiel

import algorithms
from experiments.harness import benchmarking
from experiments.harness import game_loader
from experiments.harness import script_runner

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


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.benchmark_range",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=5, help="repeats per rate (median)")
  parser.add_argument("--seconds", type=float, default=0.5, help="CPU seconds per repeat")
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


def main(argv: Optional[Sequence[str]] = None) -> Rows:
  """Runs the three parts (module docstring), prints their tables and returns their rows."""
  args = parse_args(argv)
  benchmarking.describe_machine()
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


def exit_status(rows: Rows) -> int:
  """1 if the engines disagree on a checked game, else 0."""
  return 1 if any(a.agrees is False for a in rows.agreement) else 0


if __name__ == "__main__":
  script_runner.run(lambda: exit_status(main()))
