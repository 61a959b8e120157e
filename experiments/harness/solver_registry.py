"""The solver registry: every solver the experiments, the CLI and the benchmark run, by name.

A solver is one ``SolverSpec`` entry in ``SOLVERS``: a name, a label for plots and tables, the
class, its constructor options as data, and flags. ``spec.build(game, seed)`` constructs it; every
built solver speaks OpenSpiel's CFR interface: ``evaluate_and_update_policy()`` runs one
iteration and ``average_policy()`` returns the average policy (an OpenSpiel ``Policy``). Adding a
solver is one entry; ``--solver NAME`` then works in every command, and ``in_report=True`` puts it
in the default report's solver comparisons (the reference check and the convergence plots).

Options are data: e.g. CFR-AVG's depth limit, leaf beliefs ("current" is CFR-D), variant
("modified" is ReBeL's modified CFR-AVG), weighting and leaf solver (a description of
``algorithms.rebel.leaves.specs`` such as ``{"name": "CFRLeafSolver", "iterations": 200, "rule":
{...}}``, or a learned value function by its model file, ``{"name": "ValueFunctionLeafSolver",
"value_function": {"name": "PBSValueFunction", "path": ..., "sha256": ...}, "continuation":
...}``) are keyword options of ``algorithms.CFRAvgSolver``, so each variant is one entry, and a
job may replace some of an entry's options (``jobs.Job.options``).

``solve`` runs a solver for a number of iterations and measures its average policy at given
iterations (``experiments.harness.measures``: exploitability in two-player zero-sum games, NashConv
otherwise); ``run_iterations`` is the timed iteration loop shared by every caller.

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
import threading
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
  Tuple,
  Union,
)

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import external_sampling_mccfr
from open_spiel.python.algorithms import outcome_sampling_mccfr
import pyspiel
import tqdm

import algorithms
from algorithms.cfr import engine_choice
from algorithms.rebel.leaves import specs
from algorithms.tree import game_shortcuts
from algorithms.tree.card_tree import CardTree
from algorithms.tree.card_tree3 import CardTree3
from experiments.harness import measures
from experiments.harness.range_cost import RANGE_COSTS
from experiments.harness.range_cost import RangeCost

# Sampled solvers touch one chance outcome per iteration instead of all; experiments give them
# this many times the iterations of full-traversal solvers.
SAMPLED_BUDGET_FACTOR = 10

# The clock of a solver's own time: the CPU time of the calling thread (see the module docstring),
# and the unit of an axis of that time.
SOLVER_CLOCK = time.thread_time
SOLVER_TIME_UNIT = "s, thread CPU time, measurements excluded"

# OpenSpiel's Python MCCFR draws from NumPy's global generator; each solver keeps its own generator
# state and swaps it in under this lock, so that concurrent solvers in one process stay
# reproducible.
_NUMPY_GLOBAL_RNG = threading.Lock()
_MCCFR_PY = {"external": external_sampling_mccfr.ExternalSamplingSolver,
             "outcome": outcome_sampling_mccfr.OutcomeSamplingSolver}
_MCCFR_CPP = {"external": pyspiel.ExternalSamplingMCCFRSolver,
              "outcome": pyspiel.OutcomeSamplingMCCFRSolver}


class SeededMCCFR:
  """OpenSpiel's Python MCCFR (Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for
  regret minimization in extensive games", NeurIPS 2009) behind the CFR interface, with its own
  random stream."""

  def __init__(self, game: pyspiel.Game, *, seed: int, sampler: str):
    self._solver = _MCCFR_PY[sampler](game)
    self._rng_state = np.random.RandomState(seed).get_state()

  def evaluate_and_update_policy(self) -> None:
    with _NUMPY_GLOBAL_RNG:
      saved = np.random.get_state()
      np.random.set_state(self._rng_state)
      try:
        self._solver.iteration()
      finally:
        self._rng_state = np.random.get_state()
        np.random.set_state(saved)

  def average_policy(self) -> policy_lib.Policy:
    return self._solver.average_policy()


class CppCFR:
  """OpenSpiel's C++ CFR (``pyspiel.CFRSolver``) returning a Python ``TabularPolicy``."""

  def __init__(self, game: pyspiel.Game):
    self._game = game
    self._solver = pyspiel.CFRSolver(game)

  def evaluate_and_update_policy(self) -> None:
    self._solver.evaluate_and_update_policy()

  def average_policy(self) -> policy_lib.TabularPolicy:
    return policy_lib.pyspiel_policy_to_python_policy(self._game,
                                                      self._solver.tabular_average_policy())


class CppMCCFR:
  """OpenSpiel's C++ MCCFR (``pyspiel.ExternalSamplingMCCFRSolver`` or
  ``OutcomeSamplingMCCFRSolver``, seeded) behind the CFR interface."""

  def __init__(self, game: pyspiel.Game, *, seed: int, sampler: str):
    self._game = game
    self._solver = _MCCFR_CPP[sampler](game, seed=seed)

  def evaluate_and_update_policy(self) -> None:
    self._solver.run_iteration()

  def average_policy(self) -> policy_lib.TabularPolicy:
    average = self._solver.average_policy()
    return policy_lib.tabular_policy_from_callable(
        self._game, lambda state: dict(average.action_probabilities(state)))


@dataclasses.dataclass(frozen=True)
class SolverSpec:
  """A registered solver.

  Attributes:
    name: registry name (command-line value of ``--solver``).
    label: name in plots and tables.
    cls: the solver class; ``cls(game, **options)`` builds it.
    options: constructor keyword options (JSON data); a ``leaf_solver`` option is a
      ``leaves.specs`` description.
    algorithm: the algorithm's short name, shared by the variants that plots group together
      (e.g. "CFR", "CFR-AVG", "CFR-D").
    seeded: pass the job's seed as ``seed=``.
    sampled: the iterations are random, so results depend on the seed; sampled solvers get
      ``SAMPLED_BUDGET_FACTOR`` times the iterations and looser tolerances.
    ours: one of the project's solvers (``algorithms``), which run on its engines: ``cls``
      accepts ``tree=``, so callers that already built the flat game tree can share its
      ``GameTree``; a class whose ``ENGINES`` include "range" runs on range vectors where
      ``card_tree`` says so; its compiled kernels are warmed up before a timed run.
    in_report: part of the default report's solver comparisons.
    cost: (a, b): one iteration on the flat tree (or outside the project's engine) takes about
      a + b H seconds on a game of H histories (measured on Kuhn and Leduc poker, 2 cores), for
      the estimate that refuses sweeps longer than ``--max-minutes``.
    range_cost: {players: ``RangeCost``}, the time of iterations and measures on range vectors
      (``range_cost.RANGE_COSTS``).
    batch: the class that solves several games of one tree shape at once with the same
      results (``algorithms.BatchedCFRSolver`` and the other batched classes), or None;
      ``solve_batch`` uses it.
    color: the solver's colour in every figure; None for its algorithm's
      (``plotting.ALGORITHM_COLORS``, dark grey for an algorithm not listed there).
    engine: the old name of ``ours`` (``engine=True`` sets ``ours``; read, it equals ``ours``).
  """

  name: str
  label: str
  cls: Callable[..., Any]
  options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  algorithm: str = ""
  seeded: bool = False
  sampled: bool = False
  ours: bool = False
  in_report: bool = False
  cost: Tuple[float, float] = (1e-3, 2e-5)
  range_cost: Mapping[int, RangeCost] = dataclasses.field(default_factory=lambda: RANGE_COSTS)
  batch: Optional[Callable[..., Any]] = None
  color: Optional[str] = None
  engine: Optional[bool] = None  # the old name of ``ours``, kept equal to it

  def __post_init__(self):
    ours = self.ours if self.engine is None else bool(self.engine)
    object.__setattr__(self, "ours", ours)
    object.__setattr__(self, "engine", ours)

  def seconds_per_iteration(self, histories: int) -> float:
    """The estimated time of one iteration on the flat tree of a game of ``histories``
    histories."""
    return self.cost[0] + self.cost[1] * histories

  def range_seconds(self, iterations: int, measurements: int,
                    card_tree: Union[CardTree, CardTree3]) -> float:
    """The estimated time of ``solve`` on range vectors over ``card_tree``: ``iterations``
    iterations, ``measurements`` measures of the average policy, and what ``solve`` adds once:
    building the solver and a throwaway one with its warm-up iteration (``warm_up``), and the
    final policy's returns (one more measure)."""
    players = card_tree.game.num_players()
    return self.range_cost[players].seconds(iterations + 2, measurements + 1,
                                            card_tree.num_cards)

  def card_tree(self, game: pyspiel.Game,
                options: Optional[Mapping[str, Any]] = None) -> Optional[CardTree]:
    """The game's ``CardTree`` if this solver (with ``options`` replacing some of the entry's)
    runs on range vectors there, else None: its class offers the engine and
    ``engine_choice.range_card_tree`` takes it for the game (``engine`` option, default
    "auto")."""
    if "range" not in getattr(self.cls, "ENGINES", ()):
      return None
    return engine_choice.range_card_tree(game, dict(self.options, **(options or {})).get(
        "engine", "auto"))

  def build(self, game: pyspiel.Game, seed: int = 0,
            tree: Optional[algorithms.GameTree] = None,
            options: Optional[Mapping[str, Any]] = None) -> Any:
    """The solver on ``game`` (seeded with ``seed`` if it is sampled), with ``options``
    replacing some of the entry's; ``tree``, the game's flat ``GameTree``, is shared where the
    solver runs on the flat engine and ignored where it runs on range vectors (``card_tree``),
    which a tree handed in would otherwise force off."""
    kwargs = dict(self.options, **(options or {}))
    if kwargs.get("leaf_solver") is not None:
      kwargs["leaf_solver"] = specs.from_spec(kwargs["leaf_solver"])
    if self.seeded:
      kwargs["seed"] = seed
    if self.ours and tree is not None and self.card_tree(game, options) is None:
      kwargs["tree"] = tree
    return self.cls(game, **kwargs)


def _cfr_avg(name: str, label: str, depth: Optional[int], beliefs: str = "average",
             variant: str = "standard", weighting: str = "uniform",
             in_report: bool = False) -> SolverSpec:
  """A CFR-AVG entry (``algorithms.CFRAvgSolver``; Brown et al., "Combining deep reinforcement
  learning and search for imperfect-information games" (ReBeL), NeurIPS 2020)."""
  algorithm = ("CFR (full game)" if depth is None else "CFR-D" if beliefs == "current"
               else "modified CFR-AVG" if variant == "modified" else "CFR-AVG")
  return SolverSpec(name, label, algorithms.CFRAvgSolver,
                    {"depth_limit": depth, "leaf_beliefs": beliefs, "variant": variant,
                     "weighting": weighting},
                    algorithm=algorithm, ours=True, in_report=in_report,
                    cost=(1e-4, 3e-8) if depth is None else (1e-2, 4e-5))


SOLVERS: Dict[str, SolverSpec] = {s.name: s for s in [
    # OpenSpiel's solvers.
    SolverSpec("cfr", "CFR (OpenSpiel)", cfr.CFRSolver, algorithm="CFR", in_report=True,
               cost=(0.0, 2e-5)),
    SolverSpec("cfr_plus", "CFR+ (OpenSpiel)", cfr.CFRPlusSolver, algorithm="CFR+",
               in_report=True, cost=(0.0, 2e-5)),
    SolverSpec("cfr_cpp", "CFR (OpenSpiel C++)", CppCFR, algorithm="CFR",
               cost=(5e-5, 1.5e-6)),
    SolverSpec("mccfr_external", "external-sampling MCCFR (OpenSpiel)", SeededMCCFR,
               {"sampler": "external"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(1e-3, 1e-8)),
    SolverSpec("mccfr_outcome", "outcome-sampling MCCFR (OpenSpiel)", SeededMCCFR,
               {"sampler": "outcome"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(6e-4, 1e-8)),
    SolverSpec("mccfr_external_cpp", "external-sampling MCCFR (OpenSpiel C++)", CppMCCFR,
               {"sampler": "external"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(5e-5, 1e-9)),
    SolverSpec("mccfr_outcome_cpp", "outcome-sampling MCCFR (OpenSpiel C++)", CppMCCFR,
               {"sampler": "outcome"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(2e-5, 1e-9)),
    # The project's engine (algorithms).
    SolverSpec("our_cfr", "CFR (ours)", algorithms.CFRSolver, algorithm="CFR", ours=True,
               in_report=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedCFRSolver),
    SolverSpec("our_cfr_plus", "CFR+ (ours)", algorithms.CFRPlusSolver, algorithm="CFR+",
               ours=True, in_report=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedCFRPlusSolver),
    SolverSpec("our_lcfr", "linear CFR (ours)", algorithms.LCFRSolver, algorithm="LCFR",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedLCFRSolver),
    SolverSpec("our_dcfr", "discounted CFR (ours)", algorithms.DCFRSolver, algorithm="DCFR",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedDCFRSolver),
    # The rules of Farina, Kroer and Sandholm (AAAI 2021), Meng et al. (AAAI 2026) and Xu et al.
    # (IJCAI 2024), at the papers' defaults; an iteration costs what CFR+'s does (measured on
    # kuhn_poker, leduc_poker, kuhn_poker(players=3) and liars_dice: within 10% of
    # our_cfr_plus).
    SolverSpec("our_pcfr_plus", "PCFR+ (ours)", algorithms.PCFRPlusSolver, algorithm="PCFR+",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedPCFRPlusSolver),
    # Meng et al. (AAAI 2026): PCFR+ with the prediction's step 1 / (1 + alpha), alpha = 2; its
    # colour is its rule's (plotting.RULE_COLORS), as APCFR+'s.
    SolverSpec("our_sapcfr_plus", "SAPCFR+ (ours)", algorithms.SAPCFRPlusSolver,
               algorithm="SAPCFR+", ours=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedSAPCFRPlusSolver),
    # The same paper's APCFR+: alpha adapted per information set, at most 5.
    SolverSpec("our_apcfr_plus", "APCFR+ (ours)", algorithms.APCFRPlusSolver,
               algorithm="APCFR+", ours=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedAPCFRPlusSolver),
    SolverSpec("our_dcfr_plus", "DCFR+ (ours)", algorithms.DCFRPlusSolver, algorithm="DCFR+",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedDCFRPlusSolver),
    SolverSpec("our_pdcfr_plus", "PDCFR+ (ours)", algorithms.PDCFRPlusSolver,
               algorithm="PDCFR+", ours=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedPDCFRPlusSolver),
    SolverSpec("cs_cfr", "chance-sampling CFR (ours)", algorithms.ChanceSamplingCFRSolver,
               algorithm="CS-CFR", seeded=True, sampled=True, ours=True, in_report=True,
               cost=(1.5e-4, 3e-8)),
    SolverSpec("cs_cfr_simultaneous", "chance-sampling CFR, simultaneous updates (ours)",
               algorithms.ChanceSamplingCFRSolver, {"alternating_updates": False},
               algorithm="CS-CFR", seeded=True, sampled=True, ours=True,
               cost=(1e-4, 2e-8)),
    # MCCFR with OpenSpiel's Python solvers' options and draws (algorithms.cfr.mccfr). An
    # iteration costs 77 to 100 us from kuhn_poker to liars_dice (295k histories), mostly the
    # exchange of the generator's state with the compiled call (measured, thread CPU time).
    SolverSpec("our_mccfr_external", "external-sampling MCCFR (ours)",
               algorithms.ExternalSamplingSolver, algorithm="MCCFR", seeded=True, sampled=True,
               ours=True, cost=(1.5e-4, 1e-10)),
    SolverSpec("our_mccfr_outcome", "outcome-sampling MCCFR (ours)",
               algorithms.OutcomeSamplingSolver, algorithm="MCCFR", seeded=True, sampled=True,
               ours=True, cost=(1.5e-4, 1e-10)),
    # CFR-AVG and its relatives (algorithms.CFRAvgSolver), full game and depth-limited.
    _cfr_avg("cfr_avg", "CFR-AVG, no depth limit (ours)", None),
    _cfr_avg("cfr_avg_linear", "CFR-AVG, no depth limit, linear (ours)", None,
             weighting="linear"),
    _cfr_avg("cfr_avg_d1", "CFR-AVG, depth limit 1 (ours)", 1, in_report=True),
    _cfr_avg("cfr_avg_d1_linear", "CFR-AVG, depth limit 1, linear (ours)", 1, weighting="linear"),
    _cfr_avg("cfr_avg_d2", "CFR-AVG, depth limit 2 (ours)", 2),
    _cfr_avg("cfr_avg_d2_linear", "CFR-AVG, depth limit 2, linear (ours)", 2, weighting="linear"),
    _cfr_avg("cfr_d_d1", "CFR-D, depth limit 1 (ours)", 1, beliefs="current"),
    _cfr_avg("cfr_d_d1_linear", "CFR-D, depth limit 1, linear (ours)", 1, beliefs="current",
             weighting="linear"),
    _cfr_avg("cfr_d_d2", "CFR-D, depth limit 2 (ours)", 2, beliefs="current"),
    _cfr_avg("cfr_d_d2_linear", "CFR-D, depth limit 2, linear (ours)", 2, beliefs="current",
             weighting="linear"),
    _cfr_avg("cfr_avg_mod_d1", "modified CFR-AVG, depth limit 1 (ours)", 1, variant="modified"),
    _cfr_avg("cfr_avg_mod_d1_linear", "modified CFR-AVG, depth limit 1, linear (ours)", 1,
             variant="modified", weighting="linear"),
    _cfr_avg("cfr_avg_mod_d2", "modified CFR-AVG, depth limit 2 (ours)", 2, variant="modified"),
    _cfr_avg("cfr_avg_mod_d2_linear", "modified CFR-AVG, depth limit 2, linear (ours)", 2,
             variant="modified", weighting="linear"),
]}


def available_solvers() -> List[str]:
  """Names of the registered solvers."""
  return list(SOLVERS)


def report_solvers() -> List[str]:
  """Names of the solvers of the default report (``in_report``), in registry order."""
  return [name for name, spec in SOLVERS.items() if spec.in_report]


def get_solver(name: str) -> SolverSpec:
  """The spec of solver ``name``; ValueError naming the available solvers if there is none."""
  spec = SOLVERS.get(name)
  if spec is None:
    raise ValueError(f"unknown solver {name!r}; available solvers: "
                     f"{', '.join(available_solvers())}")
  return spec


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


def warm_up(spec: SolverSpec, iterate: Callable[[], None],
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
    curve: the measure of the average policy at each point (the project's exact computation).
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

  The measure along the run is the project's exact one (``experiments.harness.measures``: on the
  game tree, or by range vectors on two-player Kuhn poker with a large deck); at the final
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
  spec = get_solver(solver)
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
    curve.append(measure.exact(average))

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
  spec = get_solver(solver)
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
      curves[i].append(measure.exact(average(i)))
  return [_solved(m, marks, curve, seconds, average(i),
                  functools.partial(batch.average_policy, i), keep_policy, engine)
          for i, (m, curve) in enumerate(zip(game_measures, curves))]
