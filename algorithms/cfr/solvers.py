"""OpenSpiel-compatible CFR solvers running on the flat-array engine.

Drop-in replacements for ``open_spiel.python.algorithms.cfr`` and ``discounted_cfr``: same class
names, same public API (``evaluate_and_update_policy()``, ``current_policy()``,
``average_policy()`` returning ``policy.TabularPolicy``), and subclasses of OpenSpiel's
``cfr._CFRSolver`` (hence of ``cfr._CFRSolverBase``) so that ``isinstance`` checks keep working::

  from algorithms import CFRSolver          # instead of: from open_spiel.python.algorithms.cfr
  solver = CFRSolver(game)
  for _ in range(1000):
    solver.evaluate_and_update_policy()
  solver.average_policy()

Differences from OpenSpiel, all documented on the methods:

* ``__init__`` does not call ``_CFRSolverBase.__init__``, which walks the game twice
  (``TabularPolicy(game)`` and ``_initialize_info_state_nodes``); the game is walked once into a
  ``GameTree`` and both policies are built from it.
* ``current_policy()`` and ``average_policy()`` return the same ``TabularPolicy`` objects on
  every call (as OpenSpiel does), refreshed from the engine's arrays when called.
* ``_info_state_nodes`` is a read-only snapshot built on access; its ``cumulative_policy`` holds
  the sequence-form numerators sum_t w_t x_i(I, a), which are OpenSpiel's divided by the number
  of histories in I (the normalised average policy is identical).

Extras: ``solve(iterations, progress=...)``, ``nash_conv()``, ``exploitability()`` (zero- and
constant-sum games only), ``save(path)`` and ``load(path)`` (exact resume,
``file_formats.solver_checkpoint``). Beyond OpenSpiel's algorithms, the same kind of class runs
predictive CFR+ (``PCFRPlusSolver``), DCFR+ and PDCFR+ (``DCFRPlusSolver``, ``PDCFRPlusSolver``).

The classes of the update rules (``CFRSolver``, ``CFRPlusSolver``, ``DCFRSolver``, ``LCFRSolver``,
``PCFRPlusSolver``, ``DCFRPlusSolver``, ``PDCFRPlusSolver``) are made from the named rules of
``update_rules.RULES``, one class per rule; ``ChanceSamplingCFRSolver`` (another kind of pass)
is written out here.

The games are those of ``cfr._CFRSolver`` with two or more players, any utility type, sequential,
explicit or no chance, perfect recall (``game_tree``). CFR's average policy converges to a Nash
equilibrium in two-player zero-sum games only; elsewhere the solvers run the same updates
without that guarantee (``cfr_engine``), and ``nash_conv()`` measures the result.
"""

import functools
from typing import Callable, Dict, Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
import pyspiel
import tqdm

from algorithms.cfr import engine_choice
from algorithms.cfr import solver_backends
from algorithms.cfr import update_rules
from algorithms.cfr.chance_sampling import ChanceSampler
from algorithms.cfr.range_engine import CardPolicy
from algorithms.cfr.update_rules import UpdateRule
from algorithms.file_formats import solver_checkpoint
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.game_tree import GameTree

# Iterations per compiled call of ``solve`` (bounds the progress bar's update interval and the
# random numbers drawn at once).
SOLVE_CHUNK = 10_000


class EngineSolver(cfr._CFRSolver):  # pylint: disable=protected-access
  """Common part of the solvers: OpenSpiel's interface on the engine's backend.

  ``engine`` picks the backend (``solver_backends``): ``"auto"`` (range vectors on games with a
  card tree, such as two-player Kuhn poker with any deck and three-player standard Kuhn poker;
  the flat tree elsewhere), ``"flat"`` or ``"range"``. Both give the same policies up to
  rounding.

  Attributes:
    rule: the ``UpdateRule``.
  """

  # The engines a solver class can run on (those that override the flat engine's passes, such
  # as chance sampling or CFR-AVG, run on the flat tree only).
  ENGINES = engine_choice.ENGINES

  def __init__(self, game: pyspiel.Game, rule: UpdateRule, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES, engine: Optional[str] = None):
    # Deliberately not calling _CFRSolverBase.__init__: it walks the game twice. The same
    # attributes are set from one walk (or none, on the range-vector engine).
    engine = self.ENGINES[0] if engine is None else engine  # the class's default
    if engine not in self.ENGINES:
      raise ValueError(f"{type(self).__name__}: engine must be one of "
                       f"{', '.join(self.ENGINES)}; got {engine!r}")
    self._backend = solver_backends.make_backend(game, rule, engine, tree, max_nodes)
    self.rule = rule
    self._game = game
    self._num_players = game.num_players()
    self._root_node = game.new_initial_state()
    self._policies = {}  # False (current), True (average) -> TabularPolicy, built on request
    self._linear_averaging = rule.averaging_gamma > 0
    self._alternating_updates = rule.alternating_updates
    self._regret_matching_plus = rule.regret_matching_plus
    if self._backend.name == "flat":  # the flat engine's parts, which subclasses extend
      self._tree = self._backend.tree
      self._arrays = self._backend.arrays
      self._engine = self._backend  # a CFREngine

  # OpenSpiel's interface ---------------------------------------------------------------------

  @property
  def iteration(self) -> int:
    """The number of iterations run (the range engine counts per game: its one game's)."""
    return int(np.ravel(self._backend.iteration)[0])

  _iteration = iteration  # OpenSpiel's name

  def _table(self, average: bool) -> policy_lib.TabularPolicy:
    """The ``TabularPolicy`` object of the average (or current) policy, built on first use."""
    if average not in self._policies:
      self._policies[average] = self._backend.tabular_policy()
    return self._policies[average]

  _current_policy = property(functools.partial(_table, average=False))
  _average_policy = property(functools.partial(_table, average=True))

  def evaluate_and_update_policy(self) -> None:
    """One iteration: regrets and average numerators updated, current policy refreshed."""
    self._run(1)

  def _run(self, iterations: int) -> None:
    """``iterations`` iterations in one compiled call: exact full-width CFR by default."""
    self._backend.solve(iterations)

  def _refreshed(self, average: bool) -> policy_lib.TabularPolicy:
    table = self._table(average)
    self._backend.to_tabular(self._backend.flat_policy(average), table.action_probability_array)
    return table

  def current_policy(self) -> policy_lib.TabularPolicy:
    """The current policy (regret matching of the cumulative regrets), as a TabularPolicy.

    The same object is returned on every call and refreshed in place, as in OpenSpiel.
    """
    return self._refreshed(False)

  def average_policy(self) -> policy_lib.TabularPolicy:
    """The average policy sum_t w_t x_i^t(I, a) / sum_t w_t x_i^t(I), uniform where unreached.

    The same object is returned on every call and refreshed in place, as in OpenSpiel.
    """
    return self._refreshed(True)

  @property
  def _info_state_nodes(self) -> Dict[str, cfr._InfoStateNode]:  # pylint: disable=protected-access
    """Read-only snapshot in OpenSpiel's form (see the module docstring)."""
    return self._backend.info_state_nodes()

  # The engine ---------------------------------------------------------------------------------

  @property
  def engine_name(self) -> str:
    """The engine the solver runs on: ``"flat"`` or ``"range"``."""
    return self._backend.name

  @property
  def engine(self):
    """The engine's state and update: a ``CFREngine`` (flat) or a ``RangeEngine`` (range
    vectors), the backend itself."""
    return self._backend

  @property
  def tree(self) -> GameTree:
    """The flat engine's ``GameTree``.

    Raises:
      ValueError: on the range-vector engine, which has no game tree (``engine="flat"`` builds
        one).
    """
    if self._backend.name != "flat":
      raise ValueError(f"{type(self).__name__} on {self._game} runs on the range-vector engine, "
                       "which has no GameTree; construct it with engine='flat' for one")
    return self._backend.tree

  def card_policy(self, average: bool = True) -> CardPolicy:
    """The average (or current) policy as a compact ``CardPolicy`` (range-vector engine only).

    Raises:
      ValueError: on the flat engine.
    """
    if self._backend.name != "range":
      raise ValueError(f"card_policy needs the range-vector engine; {type(self).__name__} on "
                       f"{self._game} runs on the {self._backend.name} engine")
    return self._backend.policy(0, average)

  # Iterations and evaluation -----------------------------------------------------------------

  def solve(self, iterations: int, progress: bool = False,
            callback: Optional[Callable[["EngineSolver"], None]] = None) -> "EngineSolver":
    """Runs ``iterations`` more iterations, with a tqdm progress bar if ``progress``.

    Without a callback the iterations run in compiled calls of up to ``SOLVE_CHUNK``
    iterations each; the result is the same as calling ``evaluate_and_update_policy`` that
    many times.

    Args:
      iterations: number of iterations (>= 0).
      progress: show a progress bar.
      callback: called with the solver after every iteration.
    """
    if iterations < 0:
      raise ValueError(f"iterations must be >= 0, got {iterations}")
    with tqdm.tqdm(total=iterations, disable=not progress, desc=type(self).__name__,
                   leave=False) as bar:
      done = 0
      while done < iterations:
        step = 1 if callback is not None else min(iterations - done, SOLVE_CHUNK)
        self._run(step)
        done += step
        bar.update(step)
        if callback is not None:
          callback(self)
    return self

  def nash_conv(self, average: bool = True) -> float:
    """Exact NashConv sum_i (BR_i - v_i) of the average (or current) policy."""
    return self._backend.evaluator.nash_conv(self._backend.flat_policy(average))

  def exploitability(self, average: bool = True) -> float:
    """Exact exploitability (sum_i BR_i - utility sum) / N of the average (or current) policy.

    Raises:
      ValueError: for a general-sum game (use ``nash_conv``).
    """
    return self._backend.evaluator.exploitability(self._backend.flat_policy(average))

  # Checkpoints (``file_formats.solver_checkpoint``) ------------------------------------------

  def options(self) -> dict:
    """Constructor options that rebuild an equivalent solver (JSON-serialisable).

    ``load`` passes them through ``_options_to_kwargs`` to the constructor.
    """
    raise NotImplementedError

  @classmethod
  def _options_to_kwargs(cls, options: dict) -> dict:
    """Constructor keyword arguments from ``options()``'s JSON form (the same by default)."""
    return dict(options)

  def _extra_state(self) -> Tuple[dict, Dict[str, np.ndarray]]:
    """State beyond the engine's arrays that later iterations depend on, for ``save``.

    Returns:
      (header fields, JSON-serialisable; float64 arrays): no field, and the rule's kernel state
      (APCFR+'s, ``rule_kernel``) as ``rule_memory`` if it keeps one.
    """
    memory = self._backend.memory
    return {}, ({"rule_memory": memory.reshape(-1)} if memory.size else {})

  def _restore_extra_state(self, path: str, header: dict, arrays: Dict[str, np.ndarray]) -> None:
    """Restores ``_extra_state``'s fields from a checkpoint's header and arrays (``load``)."""
    memory = self._backend.memory
    if memory.size:
      memory[...] = checked_array(path, arrays, "rule_memory", (memory.size,)).reshape(
          memory.shape)

  save = solver_checkpoint.save_solver
  load = classmethod(solver_checkpoint.load_solver)


# Where ``rebel.cfr_avg`` imports it from.
checked_array = solver_checkpoint.checked_array


# The classes of the named update rules (``update_rules.RULES``), each bound by name below so that
# grep and editors find it; test_update_rules.py fails, naming the line, when a rule's is missing.
RULE_SOLVERS = update_rules.rule_classes(EngineSolver, "", __name__)
CFRSolver = RULE_SOLVERS["CFRSolver"]
CFRPlusSolver = RULE_SOLVERS["CFRPlusSolver"]
DCFRSolver = RULE_SOLVERS["DCFRSolver"]
LCFRSolver = RULE_SOLVERS["LCFRSolver"]
PCFRPlusSolver = RULE_SOLVERS["PCFRPlusSolver"]
SAPCFRPlusSolver = RULE_SOLVERS["SAPCFRPlusSolver"]
APCFRPlusSolver = RULE_SOLVERS["APCFRPlusSolver"]
DCFRPlusSolver = RULE_SOLVERS["DCFRPlusSolver"]
PDCFRPlusSolver = RULE_SOLVERS["PDCFRPlusSolver"]


class ChanceSamplingCFRSolver(EngineSolver):
  """Chance-sampling CFR (Lanctot, Waugh, Zinkevich, Bowling, NeurIPS 2009).

  Every pass samples one chance outcome per chance depth (one deal in poker;
  ``chance_sampling``) and updates regrets, the average policy and the current policy at the
  information sets below the sampled outcomes only. With
  alternating updates (the default, as OpenSpiel's CFR) each player's pass draws its own sample,
  so that each regret update is unbiased given the policy it is computed against (player 1's
  pass sees player 0's policy updated from player 0's sample, and so on for more players).
  Deterministic for a given seed. Runs on the flat tree only (its passes visit sampled deals).
  """

  ENGINES = ("flat",)

  def __init__(self, game: pyspiel.Game, *, seed: Optional[int] = None,
               alternating_updates: bool = True, linear_averaging: bool = False,
               regret_matching_plus: bool = False, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES):
    rule = UpdateRule.from_options(alternating_updates, linear_averaging, regret_matching_plus)
    super().__init__(game, rule, tree, max_nodes)
    self._seed = seed
    self._chance_sampler = ChanceSampler(self._arrays, np.random.default_rng(seed))

  def _run(self, iterations: int) -> None:
    """``iterations`` iterations; every pass draws a fresh chance sample."""
    passes = len(self._engine.passes())
    self._engine.iterate_sampled(self._chance_sampler.tables,
                                 self._chance_sampler.draw(iterations * passes))

  def options(self) -> dict:
    return {"seed": self._seed, "alternating_updates": self._alternating_updates,
            "linear_averaging": self._linear_averaging,
            "regret_matching_plus": self._regret_matching_plus}

  def _extra_state(self) -> Tuple[dict, Dict[str, np.ndarray]]:
    return {"rng_state": self._chance_sampler.rng.bit_generator.state}, {}

  def _restore_extra_state(self, path: str, header: dict, arrays: Dict[str, np.ndarray]) -> None:
    generator = self._chance_sampler.rng.bit_generator
    try:
      generator.state = header.get("rng_state")
    except (TypeError, ValueError, KeyError) as e:
      raise ValueError(f"{path}: checkpoint random state is not a {type(generator).__name__} state "
                       f"({e})") from None


# The solvers of this module, by class name.
SOLVERS = {**RULE_SOLVERS, ChanceSamplingCFRSolver.__name__: ChanceSamplingCFRSolver}
