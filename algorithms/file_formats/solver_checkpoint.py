"""Solver checkpoints: what a CFR solver's file holds, and the solver rebuilt from it.

A solver's state after t iterations is its cumulative regrets R and average numerators S (its
current policy is regret matching of R), plus, for a predictive rule, the current policy
RM(R + m), which R alone does not determine (``cfr_engine.CFREngine.restore``), plus what a
solver class keeps beyond the engine (a random generator's state, CFR-AVG's weights). Saving
writes these with the game, the solver class by name and its constructor options
(``checkpoint``'s file, atomically); loading rebuilds the solver with those options and sets the
state, so that iterating on gives the arrays of an uninterrupted run bit for bit.

Two layouts share the format: a single-game solver (``solvers.EngineSolver`` and its subclasses:
header ``game``, ``iteration``; arrays (G,)) and a batched one (``batched_solver``: header
``games``, ``iterations``; arrays (B, G)). The solvers are read through their public interface
(``engine``, ``options()``, ``rule``, ``engine_name``) and the hooks ``_extra_state`` /
``_restore_extra_state`` of the single-game classes; a checkpoint is loaded as the class that
asks or one of its subclasses, found by name.
"""

from typing import Dict, Optional, Sequence, Tuple

import numpy as np
import pyspiel

from algorithms.file_formats import checkpoint

# The engines a checkpoint may name (``solver_backends``; "auto" is resolved before a save).
ENGINES = ("flat", "range")


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


def load_game(game_string: str) -> pyspiel.Game:
  """Loads a game by string after registering the Python games this project knows (the
  project's are registered on import, through ``algorithms.tree``'s import of ``kuhn_tree``,
  which imports ``spiel_games``)."""
  # pylint: disable-next=import-outside-toplevel
  from open_spiel.python import games  # noqa: F401  (registers OpenSpiel's Python games)
  return pyspiel.load_game(game_string)


def _write(path: str, solver, header: dict, arrays: Dict[str, np.ndarray],
           policy: np.ndarray) -> None:
  """Writes the fields every solver's checkpoint has, then ``header`` and ``arrays``."""
  header = {"solver": type(solver).__name__, "options": solver.options(),
            "engine": solver.engine_name, **header}
  if solver.rule.predictive:
    arrays = dict(arrays, policy=policy)  # sigma = RM(R + m), m = the last r
  checkpoint.write_checkpoint(path, header, arrays)


def _read(path: str, cls: type, fields: Sequence[str]) -> Tuple[dict, Dict[str, np.ndarray], type]:
  """(header, arrays, solver class) of checkpoint ``path`` to be loaded as ``cls``.

  Raises:
    ValueError: unreadable or corrupt file, a header without ``fields``, or a solver class that
      is not ``cls`` or one of its subclasses.
  """
  header, arrays = checkpoint.read_checkpoint(path)
  missing = [key for key in fields if key not in header]
  if missing:
    raise ValueError(f"{path}: checkpoint header lacks {', '.join(missing)}")
  known = solver_classes(cls)
  solver_cls = known.get(header.get("solver"))
  if solver_cls is None:
    raise ValueError(f"{path}: checkpoint of solver {header.get('solver')!r} cannot be loaded as "
                     f"{cls.__name__} (allowed: {sorted(known)})")
  return header, arrays, solver_cls


def save_solver(solver, path: str) -> None:
  """Writes a single-game solver's checkpoint (regrets, numerators, iteration, extra state).

  Raises:
    ValueError: if the solver's options cannot be recorded (nothing is written).
  """
  extra_header, extra_arrays = solver._extra_state()  # pylint: disable=protected-access
  e = solver.engine
  # (``_iteration``: MCCFR solvers have an ``iteration()`` method, as OpenSpiel's.)
  header = {"game": str(solver._game), "iteration": int(solver._iteration),  # pylint: disable=protected-access
            "num_sequences": int(e.regrets.shape[-1]), **extra_header}
  arrays = {"regrets": e.regrets.reshape(-1), "cumulative": e.cumulative.reshape(-1),
            **extra_arrays}
  _write(path, solver, header, arrays, e.sigma.reshape(-1))


def load_solver(cls: type, path: str, game: Optional[pyspiel.Game] = None, tree=None):
  """Rebuilds a single-game solver from ``save_solver``'s file (``cls.load``).

  Args:
    cls: the class asked; the file's class must be it or one of its subclasses.
    path: the checkpoint file.
    game: the game; loaded from the file's game string if None (Python games of OpenSpiel and
      of ``spiel_games`` are registered first). Must be the checkpoint's game.
    tree: optionally the game's ``GameTree``, to skip the walk.

  Raises:
    ValueError: unreadable or corrupt file, another game or engine, or a checkpoint of a solver
      class that is not ``cls`` or one of its subclasses (found by class name).
  """
  header, arrays, solver_cls = _read(path, cls, ("solver", "game", "options", "iteration"))
  if game is None:
    game = load_game(header["game"])
  elif str(game) != header["game"]:
    raise ValueError(f"{path}: checkpoint is for game {header['game']!r}, not {str(game)!r}")
  engine = header.get("engine", "flat")  # checkpoints before the range engine: flat
  if engine not in solver_cls.ENGINES or engine == "auto":
    raise ValueError(f"{path}: checkpoint engine {engine!r} is not one of "
                     f"{[e for e in solver_cls.ENGINES if e != 'auto']} of {solver_cls.__name__}")
  kwargs = solver_cls._options_to_kwargs(header["options"])  # pylint: disable=protected-access
  if len(solver_cls.ENGINES) > 1:
    kwargs["engine"] = engine
  solver = solver_cls(game, tree=tree, **kwargs)
  e = solver.engine
  g = e.regrets.shape[-1]
  e.restore(header["iteration"], checked_array(path, arrays, "regrets", (g,)),
            checked_array(path, arrays, "cumulative", (g,)))
  if solver.rule.predictive:
    # The saved sigma = RM(R + m) replaces the restore's RM(R) (m = 0).
    e.sigma[...] = checked_array(path, arrays, "policy", (g,)).reshape(e.sigma.shape)
  solver._restore_extra_state(path, header, arrays)  # pylint: disable=protected-access
  return solver


def save_batch(solver, path: str) -> None:
  """Writes a batched solver's checkpoint: every game's regrets, numerators and iterations."""
  header = {"games": [str(solver.game(i)) for i in range(solver.num_games)],
            "iterations": [int(t) for t in solver.iterations],
            "num_sequences": int(solver.regrets.shape[1])}
  arrays = {"regrets": solver.regrets, "cumulative": solver.cumulative}
  if solver.memory.size:  # the rule's kernel state (APCFR+'s)
    arrays["rule_memory"] = solver.memory.reshape(len(solver.memory), -1)
  _write(path, solver, header, arrays, solver.sigma)


def load_batch(cls: type, path: str, games: Optional[Sequence[pyspiel.Game]] = None):
  """Rebuilds a batched solver from ``save_batch``'s file (``cls.load``).

  Args:
    cls: the class asked; the file's class must be it or one of its subclasses.
    path: the checkpoint file.
    games: the games; loaded from the file's game strings if None. Must be the checkpoint's
      games, in order.

  Raises:
    ValueError: unreadable or corrupt file, other games, or a checkpoint of a solver class
      that is not ``cls`` or one of its subclasses (found by class name).
  """
  header, arrays, solver_cls = _read(path, cls,
                                     ("solver", "games", "options", "engine", "iterations"))
  if games is None:
    games = [load_game(s) for s in header["games"]]
  elif [str(g) for g in games] != header["games"]:
    raise ValueError(f"{path}: checkpoint is for games {header['games']}, not "
                     f"{[str(g) for g in games]}")
  if header["engine"] not in ENGINES:
    raise ValueError(f"{path}: checkpoint engine {header['engine']!r} is not one of "
                     f"{list(ENGINES)}")
  solver = solver_cls(games, engine=header["engine"], **header["options"])
  b, g = solver.regrets.shape
  iterations = header["iterations"]
  if (not isinstance(iterations, list) or len(iterations) != b
      or not all(isinstance(t, int) and t >= 0 for t in iterations)):
    raise ValueError(f"{path}: iterations must be {b} integers >= 0, got {iterations!r}")
  regrets = checked_array(path, arrays, "regrets", (b, g))
  cumulative = checked_array(path, arrays, "cumulative", (b, g))
  for i in range(b):
    solver.restore(iterations[i], regrets[i], cumulative[i], i)
  if solver.rule.predictive:
    # The saved sigma = RM(R + m) replaces the restore's RM(R) (m = 0).
    solver.sigma[...] = checked_array(path, arrays, "policy", (b, g))
  memory = solver.memory
  if memory.size:
    memory[...] = checked_array(path, arrays, "rule_memory", (b, memory[0].size)).reshape(
        memory.shape)
  return solver
