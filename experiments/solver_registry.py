"""Solvers by name, a checked game loader, and the solve loop every experiment runs.

Every registered solver is built as ``spec.build(game, seed)`` and speaks OpenSpiel's CFR
interface: ``evaluate_and_update_policy()`` runs one iteration and ``average_policy()`` returns the
average policy, a ``open_spiel.python.policy.Policy``. A new solver is one ``SolverSpec`` entry in
``SOLVERS``.

``solve`` runs a solver for a number of iterations and measures the exploitability of its average
policy (NashConv / 2; Johanson et al., "Accelerating best response calculation in large
extensive games", IJCAI 2011) at given iterations, exactly on the game tree with the project's
``algorithms.TreeEvaluator`` and, at the last iteration, also with OpenSpiel's
``exploitability.exploitability``; and the value of the final average policy with OpenSpiel's
``expected_game_score.policy_value``.
"""

import dataclasses
import os
import tempfile
import threading
import time
from typing import Any, Callable, Collection, Dict, List, Optional, Sequence

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
from open_spiel.python.algorithms import external_sampling_mccfr
from open_spiel.python.algorithms import outcome_sampling_mccfr
import pyspiel
import tqdm

import algorithms
import spiel_games  # pylint: disable=unused-import  (registers the project's games)

# Sampled solvers touch one chance outcome per iteration instead of all; experiments give them
# this many times the iterations of full-traversal solvers.
SAMPLED_BUDGET_FACTOR = 10

# OpenSpiel's MCCFR draws from NumPy's global generator; each solver keeps its own generator state
# and swaps it in under this lock, so that concurrent solvers in one process stay reproducible.
_NUMPY_GLOBAL_RNG = threading.Lock()
# Guards the process-wide redirection of file descriptor 2 in ``load_game``.
_STDERR_REDIRECT = threading.Lock()


class _SeededMCCFR:
  """OpenSpiel's MCCFR (Lanctot et al., "Monte Carlo sampling for regret minimization in
  extensive games", NeurIPS 2009) behind the CFR interface, with its own random stream."""

  def __init__(self, solver_cls, game: pyspiel.Game, seed: int):
    self._solver = solver_cls(game)
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


class _CppCFR:
  """OpenSpiel's C++ CFR (``pyspiel.CFRSolver``) returning a Python ``TabularPolicy``."""

  def __init__(self, game: pyspiel.Game):
    self._game = game
    self._solver = pyspiel.CFRSolver(game)

  def evaluate_and_update_policy(self) -> None:
    self._solver.evaluate_and_update_policy()

  def average_policy(self) -> policy_lib.TabularPolicy:
    return policy_lib.pyspiel_policy_to_python_policy(self._game,
                                                      self._solver.tabular_average_policy())


def _ours(cls: type, seeded: bool = False, **options: Any) -> Callable[[pyspiel.Game, int], Any]:
  """Builder of the project's solver class ``cls`` (from ``algorithms``) with keyword ``options``;
  ``seeded`` passes the job's seed on."""

  def build(game: pyspiel.Game, seed: int):
    return cls(game, seed=seed, **options) if seeded else cls(game, **options)

  return build


@dataclasses.dataclass(frozen=True)
class SolverSpec:
  """A registered solver.

  Attributes:
    name: registry name (command-line value of ``--solver``).
    label: name in plots and tables.
    build: ``build(game, seed)`` returns a solver with ``evaluate_and_update_policy()`` and
      ``average_policy()``.
    sampled: True if the iterations are random, so results depend on the seed.
  """

  name: str
  label: str
  build: Callable[[pyspiel.Game, int], Any]
  sampled: bool = False


SOLVERS: Dict[str, SolverSpec] = {s.name: s for s in [
    SolverSpec("cfr", "CFR (OpenSpiel)", lambda game, seed: cfr.CFRSolver(game)),
    SolverSpec("cfr_plus", "CFR+ (OpenSpiel)", lambda game, seed: cfr.CFRPlusSolver(game)),
    SolverSpec("cfr_cpp", "CFR (OpenSpiel C++)", lambda game, seed: _CppCFR(game)),
    SolverSpec("mccfr_external", "external-sampling MCCFR (OpenSpiel)",
               lambda game, seed: _SeededMCCFR(external_sampling_mccfr.ExternalSamplingSolver,
                                               game, seed), sampled=True),
    SolverSpec("mccfr_outcome", "outcome-sampling MCCFR (OpenSpiel)",
               lambda game, seed: _SeededMCCFR(outcome_sampling_mccfr.OutcomeSamplingSolver,
                                               game, seed), sampled=True),
    SolverSpec("our_cfr", "CFR (ours)", _ours(algorithms.CFRSolver)),
    SolverSpec("our_cfr_plus", "CFR+ (ours)", _ours(algorithms.CFRPlusSolver)),
    SolverSpec("cs_cfr", "chance-sampling CFR (ours)",
               _ours(algorithms.ChanceSamplingCFRSolver, seeded=True), sampled=True),
    SolverSpec("our_lcfr", "linear CFR (ours)", _ours(algorithms.LCFRSolver)),
    SolverSpec("our_dcfr", "discounted CFR (ours)", _ours(algorithms.DCFRSolver)),
    SolverSpec("cfr_avg", "CFR-AVG, no depth limit (ours)", _ours(algorithms.CFRAvgSolver)),
    SolverSpec("cfr_avg_d1", "CFR-AVG, depth limit 1 (ours)",
               _ours(algorithms.CFRAvgSolver, depth_limit=1)),
]}


def available_solvers() -> List[str]:
  """Names of the registered solvers."""
  return list(SOLVERS)


def get_solver(name: str) -> SolverSpec:
  """The spec of solver ``name``; ValueError naming the available solvers if there is none."""
  spec = SOLVERS.get(name)
  if spec is None:
    raise ValueError(f"unknown solver {name!r}; available solvers: "
                     f"{', '.join(available_solvers())}")
  return spec


def load_game(game_string: str) -> pyspiel.Game:
  """Loads an OpenSpiel game string after checking that CFR applies to it.

  Args:
    game_string: e.g. "kuhn_poker" or "kuhn_poker_ante(ante=2.0,simplified=True)".

  Returns:
    The game.

  Raises:
    ValueError: one line naming the problem: unknown game, malformed string or parameters, or a
      game that is not a two-player zero-sum sequential game.
  """
  name = game_string.split("(", 1)[0].strip()
  if name not in pyspiel.registered_names():
    poker = sorted(n for n in pyspiel.registered_names() if "poker" in n)
    raise ValueError(f"unknown game {name!r} in {game_string!r}; e.g. {', '.join(poker)} "
                     "(all names: pyspiel.registered_names())")
  # pyspiel prints its own error to the C-level stderr before raising; keep it off the terminal.
  with _STDERR_REDIRECT, tempfile.TemporaryFile() as sink:
    saved = os.dup(2)
    os.dup2(sink.fileno(), 2)
    try:
      game = pyspiel.load_game(game_string)
    except (pyspiel.SpielError, ValueError) as e:  # C++ games raise the first, Python games both.
      message = str(e).splitlines()[0] if str(e) else type(e).__name__
      raise ValueError(f"bad game string {game_string!r}: {message}") from None
    finally:
      os.dup2(saved, 2)
      os.close(saved)
  game_type = game.get_type()
  if (game.num_players() != 2 or game_type.utility != pyspiel.GameType.Utility.ZERO_SUM
      or game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL):
    raise ValueError(f"game {game_string!r} is not a two-player zero-sum sequential game, "
                     "which CFR needs")
  return game


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
    The solver's own time (seconds, measurements excluded) up to each mark, in order.
  """
  seconds, elapsed = [], 0.0
  for t in tqdm.trange(1, iterations + 1, desc=description, disable=description is None,
                       leave=False):
    start = time.perf_counter()
    instance.evaluate_and_update_policy()
    elapsed += time.perf_counter() - start
    if t in marks:
      seconds.append(elapsed)
      if on_mark is not None:
        on_mark(t)
  return seconds


def solve(game_string: str, solver: str, seed: int, iterations: int,
          checkpoints: Sequence[int] = (), keep_policy: bool = True) -> Dict[str, Any]:
  """Runs a solver and measures its average policy.

  Exploitability along the run is the exact one of the project's tree evaluator
  (``algorithms.TreeEvaluator``, a sequence-form best response); at the final iteration
  OpenSpiel's ``exploitability.exploitability`` is computed too, as the independent reference.

  Args:
    game_string: the game.
    solver: a registered solver name.
    seed: seed of a sampled solver.
    iterations: number of iterations T (> 0).
    checkpoints: iterations (1..T) at which to measure exploitability; T is always included.
    keep_policy: include the final average policy's table.

  Returns:
    ``{"iterations": checkpoints, "exploitability": exact exploitability at each,
    "openspiel_exploitability": OpenSpiel's at T, "value": expected return of player 0 when both
    play the final average policy, "policy": {info state: probabilities} (if kept),
    "timing": {"seconds": solver time (measurement excluded) up to each checkpoint}}``.
  """
  if not isinstance(iterations, int) or iterations <= 0:
    raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
  bad = [c for c in checkpoints if not 1 <= c <= iterations]
  if bad:
    raise ValueError(f"checkpoints must lie in 1..{iterations}, got {bad}")
  game = load_game(game_string)
  instance = get_solver(solver).build(game, seed)
  evaluator = algorithms.TreeEvaluator(game)
  marks = set(checkpoints) | {iterations}
  result = {"iterations": sorted(marks), "exploitability": []}
  average = None

  def measure(_):
    nonlocal average
    average = tabular_average_policy(game, instance)
    result["exploitability"].append(float(evaluator.exploitability(average)))

  result["timing"] = {"seconds": run_iterations(instance, iterations, marks, measure)}
  result["openspiel_exploitability"] = float(exploitability.exploitability(game, average))
  result["value"] = float(expected_game_score.policy_value(
      game.new_initial_state(), [average, average])[0])
  if keep_policy:
    result["policy"] = policy_table(average)
  return result
