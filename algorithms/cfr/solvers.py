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

from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.chance_sampling import ChanceSampler
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.file_formats import checkpoint
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays

# Iterations per compiled call of ``solve`` (bounds the progress bar's update interval and the
# random numbers drawn at once).
SOLVE_CHUNK = 10_000


class EngineSolver(cfr._CFRSolver):  # pylint: disable=protected-access
  """Common part of the solvers: the tree, the engine and OpenSpiel's attributes."""

  def __init__(self, game: pyspiel.Game, rule: UpdateRule, tree: Optional[GameTree],
               max_nodes: int):
    # Deliberately not calling _CFRSolverBase.__init__: it walks the game twice. The same
    # attributes are set from one walk.
    if tree is None:
      tree = GameTree.from_game(game, max_nodes)
    elif str(tree.game) != str(game):
      raise ValueError(f"tree is for game {tree.game}, not {game}")
    self._game = game
    self._num_players = game.num_players()
    self._root_node = game.new_initial_state()
    self._current_policy = tree.tabular_policy()
    self._average_policy = self._current_policy.__copy__()
    self._linear_averaging = rule.averaging_gamma > 0
    self._alternating_updates = rule.alternating_updates
    self._regret_matching_plus = rule.regret_matching_plus
    self._tree = tree
    self._arrays = TreeArrays(tree)
    self._engine = CFREngine(self._arrays, rule)
    self._evaluator = None

  # OpenSpiel's interface ---------------------------------------------------------------------

  @property
  def _iteration(self) -> int:
    return self._engine.iteration

  def evaluate_and_update_policy(self) -> None:
    """One iteration: regrets and average numerators updated, current policy refreshed."""
    self._run(1)

  def _run(self, iterations: int) -> None:
    """``iterations`` iterations in one compiled call: exact full-width CFR by default."""
    self._engine.solve(iterations)

  def current_policy(self) -> policy_lib.TabularPolicy:
    """The current policy (regret matching of the cumulative regrets), as a TabularPolicy.

    The same object is returned on every call and refreshed in place, as in OpenSpiel.
    """
    self._arrays.to_tabular(self._engine.sigma, self._current_policy.action_probability_array)
    return self._current_policy

  def average_policy(self) -> policy_lib.TabularPolicy:
    """The average policy sum_t w_t x_i^t(I, a) / sum_t w_t x_i^t(I), uniform where unreached.

    The same object is returned on every call and refreshed in place, as in OpenSpiel.
    """
    self._arrays.to_tabular(self._engine.average(), self._average_policy.action_probability_array)
    return self._average_policy

  @property
  def _info_state_nodes(self) -> Dict[str, cfr._InfoStateNode]:  # pylint: disable=protected-access
    """Read-only snapshot in OpenSpiel's form (see the module docstring)."""
    a, e = self._arrays, self._engine
    nodes = {}
    for pl, p in enumerate(self._tree.players):
      for i, key in enumerate(p.infoset_keys):
        g = a.global_infoset[pl][i]
        s = slice(a.infoset_start[g], a.infoset_start[g] + a.infoset_num_actions[g])
        node = cfr._InfoStateNode(  # pylint: disable=protected-access
            legal_actions=list(p.legal_actions[i]), index_in_tabular_policy=int(p.tabular_row[i]))
        node.cumulative_regret.update(zip(p.legal_actions[i], e.regrets[s].tolist()))
        node.cumulative_policy.update(zip(p.legal_actions[i], e.cumulative[s].tolist()))
        nodes[key] = node
    return nodes

  # Extras ------------------------------------------------------------------------------------

  @property
  def tree(self) -> GameTree:
    return self._tree

  @property
  def engine(self) -> CFREngine:
    return self._engine

  @property
  def iteration(self) -> int:
    return self._engine.iteration

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

  def _evaluate(self, average: bool) -> Tuple[TreeEvaluator, np.ndarray]:
    """The tree evaluator (built on first use) and the average or current policy (G,)."""
    if self._evaluator is None:
      self._evaluator = TreeEvaluator(self._arrays)
    return self._evaluator, self._engine.average() if average else self._engine.sigma

  def nash_conv(self, average: bool = True) -> float:
    """Exact NashConv of the average (or current) policy, computed on the tree."""
    evaluator, sigma = self._evaluate(average)
    return evaluator.nash_conv(sigma)

  def exploitability(self, average: bool = True) -> float:
    """Exact exploitability of the average (or current) policy, computed on the tree.

    Raises:
      ValueError: for a general-sum game (use ``nash_conv``).
    """
    evaluator, sigma = self._evaluate(average)
    return evaluator.exploitability(sigma)

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

    Raises:
      ValueError: if the solver's options cannot be recorded (nothing is written).
    """
    e = self._engine
    extra_header, extra_arrays = self._extra_state()
    header = {"game": str(self._game), "solver": type(self).__name__, "options": self.options(),
              "iteration": int(e.iteration), "num_sequences": int(self._arrays.num_sequences),
              **extra_header}
    checkpoint.write_checkpoint(path, header, {"regrets": e.regrets, "cumulative": e.cumulative,
                                               **extra_arrays})

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
    known = _solver_classes(cls)
    solver_cls = known.get(header.get("solver"))
    if solver_cls is None:
      raise ValueError(f"{path}: checkpoint of solver {header.get('solver')!r} cannot be loaded "
                       f"as {cls.__name__} (allowed: {sorted(known)})")
    if game is None:
      game = _load_game(header["game"])
    elif str(game) != header["game"]:
      raise ValueError(f"{path}: checkpoint is for game {header['game']!r}, not {str(game)!r}")
    solver = solver_cls(game, tree=tree, **solver_cls._options_to_kwargs(header["options"]))
    g = solver._arrays.num_sequences  # pylint: disable=protected-access
    solver._engine.restore(  # pylint: disable=protected-access
        header["iteration"], checked_array(path, arrays, "regrets", (g,)),
        checked_array(path, arrays, "cumulative", (g,)))
    solver._restore_extra_state(path, header, arrays)  # pylint: disable=protected-access
    return solver


def checked_array(path: str, arrays: Dict[str, np.ndarray], name: str,
                  shape: Tuple[int, ...]) -> np.ndarray:
  """``arrays[name]`` from checkpoint ``path``, or a ValueError unless float64 of ``shape``."""
  if name not in arrays or arrays[name].shape != shape or arrays[name].dtype != np.float64:
    raise ValueError(f"{path}: array {name!r} missing or not float64 of shape {shape}")
  return arrays[name]


def _solver_classes(root: type) -> Dict[str, type]:
  """``root`` and its subclasses (e.g. CFR-AVG's solver, defined elsewhere) by class name."""
  found, todo = {}, [root]
  while todo:
    cls = todo.pop()
    found[cls.__name__] = cls
    todo.extend(cls.__subclasses__())
  return {name: c for name, c in found.items() if not name.startswith("_")}


def _load_game(game_string: str) -> pyspiel.Game:
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
               tree: Optional[GameTree] = None, max_nodes: int = DEFAULT_MAX_NODES):
    rule = UpdateRule.from_options(alternating_updates, linear_averaging, regret_matching_plus)
    super().__init__(game, rule, tree, max_nodes)

  def options(self) -> dict:
    return {"alternating_updates": self._alternating_updates,
            "linear_averaging": self._linear_averaging,
            "regret_matching_plus": self._regret_matching_plus}


class CFRPlusSolver(CFRSolver):
  """CFR+ (Tammelin 2014) as OpenSpiel's ``cfr.CFRPlusSolver``: RM+, alternating, linear avg."""

  def __init__(self, game: pyspiel.Game, *, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES):
    super().__init__(game, alternating_updates=True, linear_averaging=True,
                     regret_matching_plus=True, tree=tree, max_nodes=max_nodes)

  def options(self) -> dict:
    return {}


class DCFRSolver(EngineSolver):
  """Discounted CFR (Brown and Sandholm, AAAI 2019) as OpenSpiel's ``discounted_cfr.DCFRSolver``.

  After each player's update its positive regrets are scaled by t^alpha / (t^alpha + 1), its
  negative ones by t^beta / (t^beta + 1); iteration t weighs t^gamma in the average policy.
  """

  def __init__(self, game: pyspiel.Game, *, alpha: float = 1.5, beta: float = 0.0,
               gamma: float = 2.0, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES):
    self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
    rule = UpdateRule(alternating_updates=True, averaging_gamma=self.gamma,
                      discount_alpha=self.alpha, discount_beta=self.beta)
    super().__init__(game, rule, tree, max_nodes)

  def options(self) -> dict:
    return {"alpha": self.alpha, "beta": self.beta, "gamma": self.gamma}


class LCFRSolver(DCFRSolver):
  """Linear CFR (Brown and Sandholm 2019): DCFR with alpha = beta = gamma = 1."""

  def __init__(self, game: pyspiel.Game, *, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES):
    super().__init__(game, alpha=1.0, beta=1.0, gamma=1.0, tree=tree, max_nodes=max_nodes)

  def options(self) -> dict:
    return {}


class ChanceSamplingCFRSolver(EngineSolver):
  """Chance-sampling CFR (Lanctot, Waugh, Zinkevich, Bowling, NeurIPS 2009).

  Every pass samples one chance outcome per chance depth (one deal in poker;
  ``chance_sampling``) and updates regrets, the average policy and the current policy at the
  information sets below the sampled outcomes only. With
  alternating updates (the default, as OpenSpiel's CFR) each player's pass draws its own sample,
  so that each regret update is unbiased given the policy it is computed against (player 1's
  pass sees player 0's policy updated from player 0's sample, and so on for more players).
  Deterministic for a given seed.
  """

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
                                         ChanceSamplingCFRSolver)}
