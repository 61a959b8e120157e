"""One N-card game solved by discounted CFR to an exploitability target, and what is read off it.

``solve`` runs ``algorithms.DCFRSolver`` (Brown and Sandholm, "Solving imperfect-information games
via discounted regret minimization", AAAI 2019) on the range-vector or the flat engine, measuring
the average policy's exact exploitability every ``plan.CHECK_EVERY`` iterations until it is at
most the target. ``read`` then takes off the solved policy what the experiment compares with the
continuous game:

* the best-response values BR_0, BR_1 against the average policy and player 0's value u_0 under
  it. For any profile of a two-player zero-sum game -BR_1 <= V_N <= BR_0, so the N-card game
  value V_N lies in that interval, of width NashConv = BR_0 + BR_1 = 2 exploitability, which
  also holds u_0;
* the thresholds of ``algorithms.exact.deck_thresholds.thresholds_from_policy`` (masses of the
  betting and calling hands, as fractions of the deck), field by field comparable with
  ``algorithms.exact.continuous_kuhn.thresholds``.

The range-vector engine gives both through its own API (``RangeEngine.values``,
``CardPolicy``); the flat engine, which the experiment times against it on small decks, through
OpenSpiel's ``TabularPolicy`` and a ``TreeEvaluator`` on its tree.
"""

import dataclasses
import time
from typing import Dict, Optional, Tuple

from open_spiel.python.algorithms import exploitability as openspiel_exploitability
import pyspiel

import algorithms
from algorithms.cfr import solver_backends
from algorithms.exact import deck_thresholds
from algorithms.tree import kuhn_tree
from experiments.commands.large_deck import plan
from spiel_games import kuhn_poker_ante

# A loose target for ``warm_up``: a few iterations, every kernel of a solve called once.
_WARM_UP_TARGET = 1e-3


@dataclasses.dataclass(frozen=True)
class Spec:
  """What to solve: the deck, r = ante / bet (bet ``plan.BET``), the rule set, the engine
  (``"range"`` or ``"flat"``) and the exploitability target (chips per hand)."""

  cards: int
  ratio: float
  simplified: bool
  engine: str
  target: float

  def game(self) -> pyspiel.Game:
    return kuhn_poker_ante.game_from_rules(plan.rules(self.cards, self.ratio, self.simplified))

  def estimate_bytes(self) -> float:
    """The engine's own estimate of the solve's memory: ``solver_backends.range_memory`` (eight
    float64 arrays of (D + 1) N 2) on the range engine, ``kuhn_tree.FLAT_BYTES_PER_HISTORY``
    times the histories on the flat one."""
    game = self.game()
    if self.engine == "range":
      return float(solver_backends.range_memory(solver_backends.card_tree_of(game)))
    return float(kuhn_tree.FLAT_BYTES_PER_HISTORY * game.num_histories())


@dataclasses.dataclass(frozen=True)
class DeckSolve:
  """A solved deck (see the module docstring; values in chips per hand).

  Attributes:
    spec: what was solved.
    iterations: DCFR iterations run.
    exploitability: the engine's exact exploitability of the average policy at the end.
    cpu_seconds: process CPU time of the solve (iterations and exploitability measurements).
    best_responses: (BR_0, BR_1) against the average policy.
    value: player 0's value u_0 under the average policy.
    thresholds: the policy's thresholds by field name (fractions of the deck).
    openspiel_exploitability: OpenSpiel's exploitability of the same average policy, if measured.
    peak_bytes: the growth of its fresh process's resident set over the solve, at its peak, if
      measured (``footprint``).
  """

  spec: Spec
  iterations: int
  exploitability: float
  cpu_seconds: float
  best_responses: Tuple[float, float]
  value: float
  thresholds: Dict[str, float]
  openspiel_exploitability: Optional[float] = None
  peak_bytes: Optional[float] = None

  @property
  def nash_conv(self) -> float:
    """BR_0 + BR_1, the width of the interval that holds V_N."""
    return self.best_responses[0] + self.best_responses[1]


@dataclasses.dataclass
class Solved:
  """A solver run to its target, not yet read (``read``)."""

  spec: Spec
  game: pyspiel.Game
  solver: algorithms.DCFRSolver
  exploitability: float
  cpu_seconds: float


def warm_up(simplified: bool, engine: str) -> None:
  """Solves and reads a 13-card game to a loose target, so that every compiled kernel a solve
  of this rule set and engine calls is loaded (compiled, or read from the disk cache) before
  the solves whose CPU time and memory are measured."""
  read(solve(Spec(plan.MIN_CARDS, plan.MAIN_RATIO, simplified, engine, _WARM_UP_TARGET)))


def solve(spec: Spec) -> Solved:
  """Runs DCFR on ``spec``'s game until the exploitability is at most ``spec.target`` (measured
  every ``plan.CHECK_EVERY`` iterations) or ``plan.MAX_ITERATIONS`` iterations have run.

  Raises:
    ValueError: from the engine, for a game it refuses (the flat engine above
      ``plan.FLAT_LARGEST_DECK`` cards).
  """
  game = spec.game()
  start = time.process_time()
  solver = algorithms.DCFRSolver(game, engine=spec.engine)
  while True:
    solver.solve(min(plan.CHECK_EVERY, plan.MAX_ITERATIONS - solver.iteration))
    exploitability = solver.exploitability()
    if exploitability <= spec.target or solver.iteration >= plan.MAX_ITERATIONS:
      return Solved(spec, game, solver, exploitability, time.process_time() - start)


def read(solved: Solved) -> DeckSolve:
  """The values and thresholds of a solved run (module docstring)."""
  solver, game = solved.solver, solved.game
  if solver.engine_name == "range":
    best, expected = solver.engine.values()
    probabilities = solver.card_policy().bet_probabilities()
  else:
    average = solver.average_policy()
    evaluator = algorithms.TreeEvaluator(solver.tree)
    best, expected = evaluator.best_response_values(average), evaluator.policy_values(average)
    probabilities = deck_thresholds.policy_arrays(game, average)
  thresholds = deck_thresholds.thresholds_from_policy(probabilities, solved.spec.simplified)
  return DeckSolve(spec=solved.spec, iterations=int(solver.iteration),
                   exploitability=float(solved.exploitability),
                   cpu_seconds=float(solved.cpu_seconds),
                   best_responses=(float(best[0]), float(best[1])), value=float(expected[0]),
                   thresholds={k: float(v) for k, v in thresholds.as_dict().items()})


def finish(solved: Solved, peak_bytes: Optional[float] = None) -> DeckSolve:
  """``read(solved)`` with ``peak_bytes`` and, for the range-vector engine on decks of at most
  ``plan.OPENSPIEL_MAX_CARDS`` cards at ``plan.MAIN_RATIO``, OpenSpiel's exploitability of the
  same average policy (a walk of every history, independent of the engine's best response)."""
  record = dataclasses.replace(read(solved), peak_bytes=peak_bytes)
  spec = solved.spec
  if (spec.engine == "range" and spec.cards <= plan.OPENSPIEL_MAX_CARDS
      and spec.ratio == plan.MAIN_RATIO):
    measured = openspiel_exploitability.exploitability(solved.game,
                                                       solved.solver.average_policy())
    record = dataclasses.replace(record, openspiel_exploitability=float(measured))
  return record
