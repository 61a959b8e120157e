"""Running a registered solver: the timed iteration loop, and a run measured at given iterations.

``solve`` runs a solver of the registry (``solver_registry``) for a number of iterations and
measures its average policy at given iterations (``experiments.harness.measures``:
exploitability in two-player zero-sum games, NashConv otherwise); ``solve_batch`` does the same
for several games of one tree shape in one batched run; ``run_iterations`` is the timed
iteration loop shared by every caller.

The project's solvers run on the engine ``algorithms.cfr.engine_choice.range_card_tree(game,
"auto")`` picks: range vectors on two-player Kuhn poker with at least ``AUTO_RANGE_MIN_CARDS``
cards (work and memory O(cards)), the flat game tree elsewhere (O(histories), N (N - 1) deals of
a deck of N cards). ``SolverSpec.card_tree`` says which a solver takes on a game, before it is
built; only flat runs build or share a ``GameTree``, and a range run is measured on its compact
``CardPolicy``, without a ``TabularPolicy`` (whose information-state tensors take O(N^2) memory),
which is built once at the end only where a kept policy or OpenSpiel's check needs it.

The solver's own time (``Solved.seconds``) is the steady cost of its iterations: the CPU time of
the thread that runs them (``SOLVER_CLOCK``), so that the time other processes hold a shared core
is not counted (a wall clock gave our solvers, about 10 us an iteration on Kuhn poker, one jump of
4-9 ms per run wherever the run was preempted), with two one-off costs kept out of it: the
measurements at the measuring points, and the first call of the engine's compiled kernels in a
process (``warm_up``: numba loads their machine code from its cache, or compiles it, on a
process's first call: 10-50 ms of CPU time, more than a whole run of CFR on Kuhn poker).
"""

import dataclasses
import functools
import json
import time
from typing import (
  Any,
  Callable,
  Collection,
  Dict,
  Hashable,
  List,
  Mapping,
  Optional,
  Sequence,
  Set,
)

from open_spiel.python import policy as policy_lib
import pyspiel
import tqdm

from algorithms.tree import game_shortcuts
from experiments.harness import measures
from experiments.harness import solver_registry

# The clock of a solver's own time: the CPU time of the calling thread (see the module docstring),
# and the unit of an axis of that time.
SOLVER_CLOCK = time.thread_time
SOLVER_TIME_UNIT = "s, thread CPU time, measurements excluded"


def tabular_average_policy(game: pyspiel.Game, solver: Any) -> policy_lib.TabularPolicy:
  """The solver's average policy as a ``TabularPolicy`` (converted if it is not one)."""
  average = solver.average_policy()
  if isinstance(average, policy_lib.TabularPolicy):
    return average
  return policy_lib.tabular_policy_from_callable(game, average)


def policy_table(tabular: policy_lib.TabularPolicy) -> Dict[str, List[float]]:
  """{information state string: action probabilities} of a tabular policy (JSON-friendly)."""
  return {state: [float(p) for p in tabular.action_probability_array[index]]
          for state, index in tabular.state_lookup.items()}


# What ``warm_up`` has run in this process: (solver, options, batched, engine) keys.
_WARMED: Set[str] = set()


def warm_up(spec: solver_registry.SolverSpec, iterate: Callable[[], None],
            options: Optional[Mapping[str, Any]] = None, batched: bool = False,
            engine: Optional[str] = None) -> None:
  """Runs ``iterate`` (one iteration of a throwaway solver) the first time this process runs the
  project's solver ``spec`` with ``options`` (in its batched form if ``batched``) on ``engine``
  ("flat" or "range", whose kernels differ), before the solver that is measured starts its
  clock.

  The engine's solvers call numba-compiled kernels, whose machine code numba loads from its disk
  cache (or compiles) on the first call in a process: 10-50 ms of CPU time once per process and
  kernel, which would otherwise land in the first measuring point of the first run. The
  throwaway solver has its own state (and random stream), so the measured run's numbers are
  unchanged. OpenSpiel's solvers have no such cost and are not warmed up. What stays in the
  first point is the measured solver's own first iteration, a few times a later one (its new
  arrays are not in the caches yet): 20-250 us against 7-12 us on Kuhn poker.
  """
  key = json.dumps([spec.name, options or {}, batched, engine], sort_keys=True, default=repr)
  if spec.ours and key not in _WARMED:
    _WARMED.add(key)
    iterate()


def run_iterations(instance, iterations: int, marks: Collection[int] = (),
                   on_mark: Optional[Callable[[int], None]] = None,
                   description: Optional[str] = None) -> List[float]:
  """Runs ``iterations`` iterations of a solver with OpenSpiel's CFR interface.

  Args:
    instance: the solver (``evaluate_and_update_policy()``).
    iterations: how many iterations.
    marks: iterations after which ``on_mark(t)`` is called; its time is not counted.
    on_mark: the measurement at a mark.
    description: a tqdm progress bar with this label; None for no bar.

  Returns:
    The solver's own time up to each mark, in order: seconds of ``SOLVER_CLOCK``, the
    measurements excluded.
  """
  seconds, elapsed = [], 0.0
  for t in tqdm.trange(1, iterations + 1, desc=description, disable=description is None,
                       leave=False):
    start = SOLVER_CLOCK()
    instance.evaluate_and_update_policy()
    elapsed += SOLVER_CLOCK() - start
    if t in marks:
      seconds.append(elapsed)
      if on_mark is not None:
        on_mark(t)
  return seconds


@dataclasses.dataclass
class Solved:
  """What ``solve`` measured.

  Attributes:
    measure: the measure's name ("exploitability" or "NashConv", ``experiments.harness.measures``).
    iterations: the measuring points, increasing, ending at T.
    curve: the measure of the average policy at each point (the project's computation,
      ``measures.Measure.ours``).
    seconds: the solver's own time up to each point: seconds of ``SOLVER_CLOCK``, measurements
      and the first call of compiled kernels in the process excluded (``warm_up``).
    openspiel: OpenSpiel's computation of the measure at T (the independent reference), or None
      where the game is too large for its walk (``measures.Measure.openspiel``).
    returns: every player's expected return when all play the final average policy.
    policy: the final average policy {information state: probabilities}, if kept.
    engine: the engine the solver ran on, "flat" or "range" (``solver_backends``); None for a
      solver outside the project's engine.
  """

  measure: str
  iterations: List[int]
  curve: List[float]
  seconds: List[float]
  openspiel: Optional[float]
  returns: List[float]
  policy: Optional[Dict[str, List[float]]] = None
  engine: Optional[str] = None


def solve(game: pyspiel.Game, solver: str, seed: int, iterations: int,
          measure_at: Sequence[int] = (), keep_policy: bool = False,
          options: Optional[Mapping[str, Any]] = None) -> Solved:
  """Runs a registered solver and measures its average policy.

  The measure along the run is the project's computation (``measures.Measure.ours``: on the game
  tree, or by range vectors on two-player Kuhn poker with a large deck); at the final
  iteration OpenSpiel's computation of it is recorded too, as the independent reference (where
  the game is small enough for it), and the expected returns of the final average policy.

  Args:
    game: the game.
    solver: a registered solver name.
    seed: seed of a sampled solver.
    iterations: number of iterations T (> 0).
    measure_at: iterations (1..T) at which to measure; T is always included.
    keep_policy: include the final average policy's table.
    options: constructor options replacing some of the registry entry's.

  Raises:
    ValueError: for a bad T or measuring point, or an unknown solver.
  """
  _check_points(iterations, measure_at)
  spec = solver_registry.get_solver(solver)
  instance = spec.build(game, seed, options=options)
  engine = getattr(instance, "engine_name", None)
  tree = instance.tree if engine == "flat" else None  # shared with the throwaway and the measure
  warm_up(spec, lambda: spec.build(game, seed, tree, options).evaluate_and_update_policy(),
          options, engine=engine)
  measure = measures.measure_for(game, tree)
  marks = set(measure_at) | {iterations}
  curve: List[float] = []
  average = None

  def on_mark(_):
    nonlocal average
    average = instance.card_policy() if engine == "range" else tabular_average_policy(game,
                                                                                      instance)
    curve.append(measure.ours(average))

  seconds = run_iterations(instance, iterations, marks, on_mark)
  return _solved(measure, sorted(marks), curve, seconds, average,
                 lambda: tabular_average_policy(game, instance), keep_policy, engine)


def _check_points(iterations: int, measure_at: Sequence[int]) -> None:
  """ValueError unless T is a positive integer and every measuring point lies in 1..T."""
  if not isinstance(iterations, int) or iterations <= 0:
    raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
  bad = [t for t in measure_at if not 1 <= t <= iterations]
  if bad:
    raise ValueError(f"measuring points must lie in 1..{iterations}, got {bad}")


def _solved(measure: measures.Measure, marks: List[int], curve: List[float],
            seconds: List[float], average: measures.MeasuredPolicy,
            tabular: Callable[[], policy_lib.TabularPolicy], keep_policy: bool,
            engine: Optional[str]) -> Solved:
  """``Solved`` from a run's measurements and its final average policy (as measured, and as a
  ``TabularPolicy`` from ``tabular``, called only where OpenSpiel's measure or the kept table
  needs one): OpenSpiel's measure and the expected returns of that policy are computed here."""
  table = tabular() if keep_policy or measure.openspiel is not None else None
  return Solved(measure.name, marks, curve, seconds,
                None if measure.openspiel is None else measure.openspiel(table),
                measure.returns(average), policy_table(table) if keep_policy else None, engine)


def batch_key(game: pyspiel.Game) -> Optional[Hashable]:
  """What games of one batch share: the shape of their tree as the game's registered shortcuts
  give it (``algorithms.tree.game_shortcuts``; for Kuhn poker (players, deck, simplified), which
  also fixes the engine, so a batch of large decks runs on range vectors), or None for a game
  without one, which is not batched."""
  shortcuts = game_shortcuts.for_game(game)
  return shortcuts.shape(game) if shortcuts else None


def solve_batch(game_list: Sequence[pyspiel.Game], solver: str, iterations: int,
                measure_at: Sequence[int] = (), keep_policy: bool = False) -> List[Solved]:
  """``solve`` for several games of one shape (``batch_key``) at once, with the solver's
  ``batch`` class (on the engine ``solve`` would take for each game): every game's iterations
  run in one compiled call per measuring point, and each game's result is the one ``solve``
  gives for it (the same policies, so the same measures), except ``seconds``, the batch's time
  shared equally among its games.

  Raises:
    ValueError: for a bad T or measuring point, a solver without a batch class, or games of
      different shapes.
  """
  spec = solver_registry.get_solver(solver)
  if spec.batch is None:
    raise ValueError(f"solver {solver!r} has no batched form")
  _check_points(iterations, measure_at)
  batch = spec.batch(list(game_list))
  engine = batch.engine_name
  warm_up(spec, lambda: spec.batch(list(game_list[:1])).solve(1), batched=True, engine=engine)
  marks = sorted(set(measure_at) | {iterations})
  game_measures = [measures.measure_for(g) for g in game_list]  # Each on its own payoffs.

  def average(i: int) -> measures.MeasuredPolicy:
    return batch.card_policy(i) if engine == "range" else batch.average_policy(i)

  curves: List[List[float]] = [[] for _ in game_list]
  seconds: List[float] = []
  elapsed, done = 0.0, 0
  for mark in marks:
    start = SOLVER_CLOCK()
    batch.solve(mark - done)
    elapsed += SOLVER_CLOCK() - start
    done = mark
    seconds.append(elapsed / len(game_list))
    for i, measure in enumerate(game_measures):
      curves[i].append(measure.ours(average(i)))
  return [_solved(m, marks, curve, seconds, average(i),
                  functools.partial(batch.average_policy, i), keep_policy, engine)
          for i, (m, curve) in enumerate(zip(game_measures, curves))]
