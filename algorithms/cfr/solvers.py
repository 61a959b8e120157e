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
constant-sum games only), ``save(path)`` and ``load(path)`` (exact resume, see ``checkpoint``).
Beyond OpenSpiel's algorithms, the same kind of class runs predictive CFR+ (``PCFRPlusSolver``),
DCFR+ and PDCFR+ (``DCFRPlusSolver``, ``PDCFRPlusSolver``).

The games are those of ``cfr._CFRSolver`` with two or more players, any utility type, sequential,
explicit or no chance, perfect recall (``game_tree``). CFR's average policy converges to a Nash
equilibrium in two-player zero-sum games only; elsewhere the solvers run the same updates
without that guarantee (``cfr_engine``), and ``nash_conv()`` measures the result.
"""

from typing import Callable, Dict, Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
import pyspiel
import tqdm

from algorithms.cfr import solver_backends
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.chance_sampling import ChanceSampler
from algorithms.cfr.range_engine import CardPolicy
from algorithms.file_formats import checkpoint
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.game_tree import GameTree

# Iterations per compiled call of ``solve`` (bounds the progress bar's update interval and the
# random numbers drawn at once).
SOLVE_CHUNK = 10_000


class EngineSolver(cfr._CFRSolver):  # pylint: disable=protected-access
  """Common part of the solvers: the engine's backend and OpenSpiel's attributes.

  ``engine`` picks the backend (``solver_backends``): ``"auto"`` (range vectors on games with a
  card tree, such as two-player Kuhn poker with any deck; the flat tree elsewhere), ``"flat"``
  or ``"range"``. Both give the same policies up to rounding.
  """

  # The engines a solver class can run on (those that override the flat engine's passes, such
  # as chance sampling or CFR-AVG, run on the flat tree only).
  ENGINES = solver_backends.ENGINES

  def __init__(self, game: pyspiel.Game, rule: UpdateRule, tree: Optional[GameTree],
               max_nodes: int, engine: Optional[str] = None):
    # Deliberately not calling _CFRSolverBase.__init__: it walks the game twice. The same
    # attributes are set from one walk (or none, on the range-vector engine).
    engine = self.ENGINES[0] if engine is None else engine  # the class's default
    if engine not in self.ENGINES:
      raise ValueError(f"{type(self).__name__}: engine must be one of "
                       f"{', '.join(self.ENGINES)}; got {engine!r}")
    self._backend = solver_backends.make_backend(game, rule, engine, tree, max_nodes)
    self._game = game
    self._num_players = game.num_players()
    self._root_node = game.new_initial_state()
    self._policies = {}  # "current", "average" -> TabularPolicy, built on first request
    self._linear_averaging = rule.averaging_gamma > 0
    self._alternating_updates = rule.alternating_updates
    self._regret_matching_plus = rule.regret_matching_plus
    self._predictive = rule.predictive
    if self._backend.name == "flat":  # the flat engine's parts, which subclasses extend
      self._tree = self._backend.tree
      self._arrays = self._backend.arrays
      self._engine = self._backend.engine

  # OpenSpiel's interface ---------------------------------------------------------------------

  @property
  def _iteration(self) -> int:
    return self._backend.iteration

  @property
  def _current_policy(self) -> policy_lib.TabularPolicy:
    return self._tabular("current")

  @property
  def _average_policy(self) -> policy_lib.TabularPolicy:
    return self._tabular("average")

  def _tabular(self, kind: str) -> policy_lib.TabularPolicy:
    if kind not in self._policies:
      self._policies[kind] = self._backend.tabular_policy()
    return self._policies[kind]

  def evaluate_and_update_policy(self) -> None:
    """One iteration: regrets and average numerators updated, current policy refreshed."""
    self._run(1)

  def _run(self, iterations: int) -> None:
    """``iterations`` iterations in one compiled call: exact full-width CFR by default."""
    self._backend.solve(iterations)

  def _flat_policy(self, average: bool) -> np.ndarray:
    """The average (or current) policy in the engine's layout."""
    return self._backend.flat_policy(average)

  def current_policy(self) -> policy_lib.TabularPolicy:
    """The current policy (regret matching of the cumulative regrets), as a TabularPolicy.

    The same object is returned on every call and refreshed in place, as in OpenSpiel.
    """
    table = self._current_policy
    self._backend.to_tabular(self._flat_policy(False), table.action_probability_array)
    return table

  def average_policy(self) -> policy_lib.TabularPolicy:
    """The average policy sum_t w_t x_i^t(I, a) / sum_t w_t x_i^t(I), uniform where unreached.

    The same object is returned on every call and refreshed in place, as in OpenSpiel.
    """
    table = self._average_policy
    self._backend.to_tabular(self._flat_policy(True), table.action_probability_array)
    return table

  def card_policy(self, average: bool = True) -> CardPolicy:
    """The average (or current) policy as a compact ``CardPolicy`` (range-vector engine only).

    Raises:
      ValueError: on the flat engine.
    """
    if self._backend.name != "range":
      raise ValueError(f"card_policy needs the range-vector engine; {type(self).__name__} on "
                       f"{self._game} runs on the {self._backend.name} engine")
    return self._backend.engine.policy(average=average)

  @property
  def _info_state_nodes(self) -> Dict[str, cfr._InfoStateNode]:  # pylint: disable=protected-access
    """Read-only snapshot in OpenSpiel's form (see the module docstring)."""
    return self._backend.info_state_nodes()

  # Extras ------------------------------------------------------------------------------------

  @property
  def engine_name(self) -> str:
    """The engine the solver runs on: ``"flat"`` or ``"range"``."""
    return self._backend.name

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

  @property
  def engine(self):
    """The engine: a ``CFREngine`` (flat) or a ``RangeEngine`` (range vectors)."""
    return self._backend.engine

  @property
  def iteration(self) -> int:
    return self._backend.iteration

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
    """Exact NashConv of the average (or current) policy, computed by the engine."""
    return self._backend.nash_conv(self._flat_policy(average))

  def exploitability(self, average: bool = True) -> float:
    """Exact exploitability of the average (or current) policy, computed by the engine.

    Raises:
      ValueError: for a general-sum game (use ``nash_conv``).
    """
    return self._backend.exploitability(self._flat_policy(average))

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
      (header fields, JSON-serialisable; float64 arrays), both empty by default.
    """
    return {}, {}

  def _restore_extra_state(self, path: str, header: dict, arrays: Dict[str, np.ndarray]) -> None:
    """Restores ``_extra_state``'s fields from a checkpoint's header and arrays (``load``)."""

  def save(self, path: str) -> None:
    """Writes a checkpoint (regrets, numerators, iteration, extra state) atomically.

    ``load(path)`` followed by more iterations gives exactly the arrays of an uninterrupted run.
    A predictive rule's checkpoint also holds the current policy ("policy"), regret matching of
    R + m, which the regrets R alone do not determine (``CFREngine.restore``).

    Raises:
      ValueError: if the solver's options cannot be recorded (nothing is written).
    """
    extra_header, extra_arrays = self._extra_state()
    regrets, cumulative = self._backend.state_arrays()
    header = {"game": str(self._game), "solver": type(self).__name__, "options": self.options(),
              "engine": self._backend.name, "iteration": int(self._backend.iteration),
              "num_sequences": int(self._backend.state_size), **extra_header}
    arrays = {"regrets": regrets, "cumulative": cumulative, **extra_arrays}
    if self._predictive:
      arrays["policy"] = self._flat_policy(False)  # sigma = RM(R + m), m = the last r
    checkpoint.write_checkpoint(path, header, arrays)

  @classmethod
  def load(cls, path: str, game: Optional[pyspiel.Game] = None,
           tree: Optional[GameTree] = None) -> "EngineSolver":
    """Rebuilds a solver from ``save``'s file.

    Args:
      path: the checkpoint file.
      game: the game; loaded from the file's game string if None (Python games of OpenSpiel and
        of ``spiel_games`` are registered first). Must be the checkpoint's game.
      tree: optionally the game's ``GameTree``, to skip the walk.

    Raises:
      ValueError: unreadable or corrupt file, another game, or a checkpoint of a solver class
        that is not ``cls`` or one of its subclasses (found by class name).
    """
    header, arrays = checkpoint.read_checkpoint(path)
    missing = [key for key in ("solver", "game", "options", "iteration") if key not in header]
    if missing:
      raise ValueError(f"{path}: checkpoint header lacks {', '.join(missing)}")
    known = solver_classes(cls)
    solver_cls = known.get(header.get("solver"))
    if solver_cls is None:
      raise ValueError(f"{path}: checkpoint of solver {header.get('solver')!r} cannot be loaded "
                       f"as {cls.__name__} (allowed: {sorted(known)})")
    if game is None:
      game = load_checkpoint_game(header["game"])
    elif str(game) != header["game"]:
      raise ValueError(f"{path}: checkpoint is for game {header['game']!r}, not {str(game)!r}")
    engine = header.get("engine", "flat")  # checkpoints before the range engine: flat
    if engine not in solver_cls.ENGINES or engine == "auto":
      raise ValueError(f"{path}: checkpoint engine {engine!r} is not one of "
                       f"{[e for e in solver_cls.ENGINES if e != 'auto']} of {solver_cls.__name__}")
    kwargs = solver_cls._options_to_kwargs(header["options"])
    if len(solver_cls.ENGINES) > 1:
      kwargs["engine"] = engine
    solver = solver_cls(game, tree=tree, **kwargs)
    backend = solver._backend  # pylint: disable=protected-access
    g = backend.state_size
    backend.restore(header["iteration"], checked_array(path, arrays, "regrets", (g,)),
                    checked_array(path, arrays, "cumulative", (g,)))
    if solver._predictive:  # pylint: disable=protected-access
      # The saved sigma = RM(R + m) replaces the restore's RM(R) (m = 0).
      sigma = backend.engine.sigma  # (G,) on the flat engine, (1, D N 2) on the range one
      sigma[...] = checked_array(path, arrays, "policy", (g,)).reshape(sigma.shape)
    solver._restore_extra_state(path, header, arrays)  # pylint: disable=protected-access
    return solver


def checked_array(path: str, arrays: Dict[str, np.ndarray], name: str,
                  shape: Tuple[int, ...]) -> np.ndarray:
  """``arrays[name]`` from checkpoint ``path``, or a ValueError unless float64 of ``shape``."""
  if name not in arrays or arrays[name].shape != shape or arrays[name].dtype != np.float64:
    raise ValueError(f"{path}: array {name!r} missing or not float64 of shape {shape}")
  return arrays[name]


def solver_classes(root: type) -> Dict[str, type]:
  """``root`` and its subclasses (e.g. CFR-AVG's solver, defined elsewhere) by class name."""
  found, todo = {}, [root]
  while todo:
    cls = todo.pop()
    found[cls.__name__] = cls
    todo.extend(cls.__subclasses__())
  return {name: c for name, c in found.items() if not name.startswith("_")}


def load_checkpoint_game(game_string: str) -> pyspiel.Game:
  """Loads a game by string after registering the Python games this project knows (the
  project's are registered on import, through ``algorithms.tree``'s import of ``kuhn_tree``,
  which imports ``spiel_games``)."""
  # pylint: disable-next=import-outside-toplevel
  from open_spiel.python import games  # noqa: F401  (registers OpenSpiel's Python games)
  return pyspiel.load_game(game_string)


class CFRSolver(EngineSolver):
  """Vanilla CFR (Zinkevich et al., NeurIPS 2007) as OpenSpiel's ``cfr.CFRSolver``.

  Defaults as OpenSpiel's: alternating updates, regret matching, uniform averaging. The options
  of OpenSpiel's ``cfr._CFRSolver`` are accepted as keywords.
  """

  def __init__(self, game: pyspiel.Game, *, alternating_updates: bool = True,
               linear_averaging: bool = False, regret_matching_plus: bool = False,
               tree: Optional[GameTree] = None, max_nodes: int = DEFAULT_MAX_NODES,
               engine: str = "auto"):
    rule = UpdateRule.from_options(alternating_updates, linear_averaging, regret_matching_plus)
    super().__init__(game, rule, tree, max_nodes, engine)

  def options(self) -> dict:
    return {"alternating_updates": self._alternating_updates,
            "linear_averaging": self._linear_averaging,
            "regret_matching_plus": self._regret_matching_plus}


class CFRPlusSolver(CFRSolver):
  """CFR+ (Tammelin 2014) as OpenSpiel's ``cfr.CFRPlusSolver``: RM+, alternating, linear avg."""

  def __init__(self, game: pyspiel.Game, *, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES, engine: str = "auto"):
    super().__init__(game, alternating_updates=True, linear_averaging=True,
                     regret_matching_plus=True, tree=tree, max_nodes=max_nodes, engine=engine)

  def options(self) -> dict:
    return {}


class DCFRSolver(EngineSolver):
  """Discounted CFR (Brown and Sandholm, AAAI 2019) as OpenSpiel's ``discounted_cfr.DCFRSolver``.

  After each player's update its positive regrets are scaled by t^alpha / (t^alpha + 1), its
  negative ones by t^beta / (t^beta + 1); iteration t weighs t^gamma in the average policy.
  """

  def __init__(self, game: pyspiel.Game, *, alpha: float = 1.5, beta: float = 0.0,
               gamma: float = 2.0, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES, engine: str = "auto"):
    self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
    rule = UpdateRule.dcfr(self.alpha, self.beta, self.gamma)
    super().__init__(game, rule, tree, max_nodes, engine)

  def options(self) -> dict:
    return {"alpha": self.alpha, "beta": self.beta, "gamma": self.gamma}


class LCFRSolver(DCFRSolver):
  """Linear CFR (Brown and Sandholm 2019): DCFR with alpha = beta = gamma = 1."""

  def __init__(self, game: pyspiel.Game, *, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES, engine: str = "auto"):
    super().__init__(game, alpha=1.0, beta=1.0, gamma=1.0, tree=tree, max_nodes=max_nodes,
                     engine=engine)

  def options(self) -> dict:
    return {}


class PCFRPlusSolver(EngineSolver):
  """Predictive CFR+ (Farina, Kroer and Sandholm, "Faster game solving via predictive Blackwell
  approachability: connecting regret matching and mirror descent", AAAI 2021).

  CFR with predictive regret matching+ (PRM+) at every information set, the prediction of the
  next instantaneous regret being the last one, m_{t+1} = r_t:
  R_t = [R_{t-1} + r_t]^+ and sigma_{t+1} = RM([R_t + r_t]^+) (``cfr_kernel.end_block_update``),
  with alternating updates and the average policy weighting iteration t by t^gamma (gamma = 2,
  quadratic averaging, as in the paper's experiments and the PCFR+ of Xu et al.'s released
  code; its README also runs gamma = 5). Full-width passes only.
  """

  def __init__(self, game: pyspiel.Game, *, gamma: float = 2.0, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES, engine: str = "auto"):
    self.gamma = float(gamma)
    rule = UpdateRule.pcfr_plus(self.gamma)
    super().__init__(game, rule, tree, max_nodes, engine)

  def options(self) -> dict:
    return {"gamma": self.gamma}


class DCFRPlusSolver(EngineSolver):
  """DCFR+ (Xu, Li, Liu, Fu, Fu, Xing and Cheng, "Minimizing weighted counterfactual regret with
  optimistic online mirror descent", IJCAI 2024; found earlier by AutoCFR, Xu et al.,
  AAAI 2022).

  RM+ on discounted regrets: Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+ with
  d(t) = t^alpha / (t^alpha + c), sigma_{t+1} = RM(Rhat_t), alternating updates, iteration t
  weighing t^gamma in the average policy (``cfr_kernel.end_block_update``; the stored regrets
  are d(t) Rhat_t). Defaults alpha = 1.5, gamma = 4 as in the paper and the authors' code. The
  paper's discount has c = 1 (the default); the authors' released code (``dcfr_plus.py`` of
  PDCFRPlus, and AutoCFR's DCFR+) divides by (t - 1)^alpha + 1.5: ``discount_constant=1.5``
  reproduces it (on ``kuhn_poker`` AutoCFR's published exploitability after 1,000 iterations,
  1.1488812e-4, test_predictive_rules.py). Full-width passes only.
  """

  def __init__(self, game: pyspiel.Game, *, alpha: float = 1.5, gamma: float = 4.0,
               discount_constant: float = 1.0, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES, engine: str = "auto"):
    self.alpha, self.gamma = float(alpha), float(gamma)
    self.discount_constant = float(discount_constant)
    rule = UpdateRule.dcfr_plus(self.alpha, self.gamma, self.discount_constant)
    super().__init__(game, rule, tree, max_nodes, engine)

  def options(self) -> dict:
    return {"alpha": self.alpha, "gamma": self.gamma,
            "discount_constant": self.discount_constant}


class PDCFRPlusSolver(EngineSolver):
  """PDCFR+ (Xu, Li, Liu, Fu, Fu, Xing and Cheng, "Minimizing weighted counterfactual regret
  with optimistic online mirror descent", IJCAI 2024).

  Predictive (optimistic) RM+ on discounted regrets, with d(t) = t^alpha / (t^alpha + 1):
  Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+ and sigma_{t+1} = RM([d(t) Rhat_t + m_{t+1}]^+) with
  the prediction m_{t+1} = r_t (``cfr_kernel.end_block_update``; the stored regrets are
  d(t) Rhat_t), alternating updates, iteration t weighing t^gamma in the average policy.
  Defaults alpha = 2.3, gamma = 5 as in the paper and the authors' code. Full-width passes only.
  """

  def __init__(self, game: pyspiel.Game, *, alpha: float = 2.3, gamma: float = 5.0,
               tree: Optional[GameTree] = None, max_nodes: int = DEFAULT_MAX_NODES,
               engine: str = "auto"):
    self.alpha, self.gamma = float(alpha), float(gamma)
    rule = UpdateRule.dcfr_plus(self.alpha, self.gamma, predictive=True)
    super().__init__(game, rule, tree, max_nodes, engine)

  def options(self) -> dict:
    return {"alpha": self.alpha, "gamma": self.gamma}


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
SOLVERS = {cls.__name__: cls for cls in (CFRSolver, CFRPlusSolver, DCFRSolver, LCFRSolver,
                                         PCFRPlusSolver, DCFRPlusSolver, PDCFRPlusSolver,
                                         ChanceSamplingCFRSolver)}
