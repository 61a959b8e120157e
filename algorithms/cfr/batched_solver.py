"""Batched CFR: B games with one tree shape and different payoffs, solved in one compiled call.

Dense sweeps (an (ante, bet) grid of ``kuhn_poker_ante``, a heat map of one parameter) solve
many games whose trees differ only in their terminal utilities. A batched solver keeps one layout
and per game its payoffs and its CFR state; ``solve(n)`` runs the single-game kernel on each game
in turn, so each game's regrets, numerators and policies are exactly those of solving it alone
with the same rule (``BatchedCFRSolver`` as ``solvers.CFRSolver`` with the same options,
``BatchedDCFRSolver`` as ``solvers.DCFRSolver``, ...) for the same number of iterations::

  games = [kuhn_poker_ante.game_from_rules(KuhnRules(ante=a, bet=b)) for a, b in grid]
  solver = BatchedCFRPlusSolver(games).solve_until(1e-4)
  solver.exploitabilities()          # (B,), exact, one compiled call
  solver.average_policy(7)           # TabularPolicy of game 7

Games are ``pyspiel.Game`` objects. The first game's tree is built; for a game with registered
shortcuts (``algorithms.tree.game_shortcuts``; Kuhn poker) of the same registered shape as the
first, only its payoffs are computed (``GameShortcuts.terminal_utility``), without its tree, and
any other game's tree is built and compared with the first's.

``engine`` chooses the engine as the single-game solvers do: on games with a card tree
(two-player Kuhn poker; three-player standard Kuhn poker) of at least ``AUTO_RANGE_MIN_CARDS``
cards, ``"auto"`` runs ``range_engine.RangeEngine`` (either card tree) on the
batch, whose games then need one deck and rule set; each game's
results still equal its own solver's on the same engine. The solver holds one batched
backend of ``solver_backends`` (``make_batched_backend``), which answers for either engine.

``save(path)`` and ``Class.load(path)`` checkpoint every game's state
(``file_formats.solver_checkpoint``): loading and iterating on gives the arrays of an
uninterrupted run bit for bit. The classes of the update rules (``BatchedCFRSolver``,
``BatchedCFRPlusSolver``, ``BatchedDCFRSolver``, ``BatchedLCFRSolver``, ``BatchedPCFRPlusSolver``,
``BatchedDCFRPlusSolver``, ``BatchedPDCFRPlusSolver``) are made from ``update_rules.RULES``, one
per named rule, as the single-game classes of ``solvers``.
"""

from typing import Optional, Sequence

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.cfr import solver_backends
from algorithms.cfr import update_rules
from algorithms.cfr.range_engine import CardPolicy
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.update_rules import UpdateRule
from algorithms.file_formats import solver_checkpoint
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.tree_layout import TreeArrays


class BatchedEngineSolver:
  """Common part of the batched solvers: the games, the rule and the batched backend.

  Attributes:
    rule: the ``UpdateRule``.
  """

  def __init__(self, games: Sequence[pyspiel.Game], rule: UpdateRule,
               max_nodes: int = DEFAULT_MAX_NODES, engine: str = "auto"):
    """Builds the shared layout and every game's payoffs and state.

    Args:
      games: one or more ``pyspiel.Game``, all of one tree shape (for Kuhn poker: rules equal
        but for the stakes, ``kuhn_tree.shape_key``; ``kuhn_poker_ante.game_from_rules`` loads
        a ``KuhnRules``).
      rule: the ``UpdateRule`` of every game.
      max_nodes: refuse games with more histories (flat engine).
      engine: ``"auto"``, ``"flat"`` or ``"range"`` (module docstring).

    Raises:
      ValueError: for no games, an argument that is not a game, games of different shapes
        (naming the first one that differs), or an engine the games do not allow.
    """
    games = list(games)
    if not games:
      raise ValueError(f"{type(self).__name__} needs at least one game")
    not_games = [i for i, g in enumerate(games) if not isinstance(g, pyspiel.Game)]
    if not_games:
      i = not_games[0]
      raise ValueError(f"game {i} is a {type(games[i]).__name__}, not a pyspiel.Game (load "
                       "KuhnRules with spiel_games.kuhn_poker_ante.game_from_rules)")
    self._games = games
    self.rule = rule
    self._backend = solver_backends.make_batched_backend(games, rule, engine, max_nodes)
    self._template = None  # the first game's TabularPolicy, built on first request

  # The state, as the backend holds it ----------------------------------------------------------

  @property
  def arrays(self) -> Optional[TreeArrays]:
    """The shared ``TreeArrays`` of the flat engine (of the first game); None on range vectors."""
    return self._backend.arrays

  @property
  def range_engine(self) -> Optional[RangeEngine]:
    """The batch's ``RangeEngine`` on the range-vector engine; None on the flat engine."""
    return self._backend if self._backend.name == "range" else None

  @property
  def regrets(self) -> np.ndarray:
    """(B, G) each game's cumulative regrets, in the engine's layout (as ``CFREngine``'s on the
    flat engine, (B, D N 2) on range vectors)."""
    return self._backend.regrets

  @property
  def cumulative(self) -> np.ndarray:
    """(B, G) each game's average-policy numerators, in the engine's layout."""
    return self._backend.cumulative

  @property
  def sigma(self) -> np.ndarray:
    """(B, G) each game's current policy, in the engine's layout."""
    return self._backend.sigma

  @property
  def memory(self) -> np.ndarray:
    """(B, 3 G) each game's rule state (APCFR+'s, ``rule_kernel.adaptive_weight``; (B, 0) for
    the rules without one), in the engine's layout."""
    return self._backend.memory

  @property
  def iterations(self) -> np.ndarray:
    """(B,) each game's number of iterations."""
    return self._backend.iteration

  @property
  def num_games(self) -> int:
    return len(self._games)

  @property
  def engine_name(self) -> str:
    """``"flat"`` or ``"range"``."""
    return self._backend.name

  def game(self, i: int) -> pyspiel.Game:
    """Game i."""
    return self._games[i]

  def _indices(self, games: Optional[Sequence[int]]) -> np.ndarray:
    if games is None:
      return np.arange(self.num_games)
    games = np.asarray(games, dtype=np.int64).reshape(-1)
    if np.any((games < 0) | (games >= self.num_games)):
      raise ValueError(f"game indices must be in 0..{self.num_games - 1}")
    return games

  # Iterations --------------------------------------------------------------------------------

  def solve(self, iterations: int,
            games: Optional[Sequence[int]] = None) -> "BatchedEngineSolver":
    """``iterations`` more iterations of every game (or of the listed ones), one compiled call.

    Raises:
      ValueError: for a negative count or an index out of range.
    """
    if iterations < 0:
      raise ValueError(f"iterations must be >= 0, got {iterations}")
    self._backend.solve(int(iterations), self._indices(games))
    return self

  def solve_until(self, exploitability: float, max_iterations: int = 100_000,
                  check_every: int = 50) -> "BatchedEngineSolver":
    """Iterates each game until its average policy's exploitability is <= the target.

    Every ``check_every`` iterations the exploitabilities of the games still above the target
    are measured (exactly, ``exploitabilities``) and only those iterate on; a game stops at the
    first check where it is at or below the target, or at ``max_iterations``.
    """
    if exploitability <= 0 or check_every < 1 or max_iterations < 0:
      raise ValueError("exploitability must be > 0, check_every >= 1 and max_iterations >= 0")
    active = np.flatnonzero(self.exploitabilities() > exploitability)
    while len(active):
      active = active[self.iterations[active] < max_iterations]
      if not len(active):
        break
      steps = np.minimum(check_every, max_iterations - self.iterations[active])
      for count in np.unique(steps):
        self.solve(int(count), active[steps == count])
      active = active[self.exploitabilities(active) > exploitability]
    return self

  # Policies ----------------------------------------------------------------------------------

  def average_sequences(self, games: Optional[Sequence[int]] = None) -> np.ndarray:
    """Average policies (len(games), G) in the engine's layout: the sequence layout, as
    ``CFREngine.average``, or the range engine's (D N 2) blocks."""
    return self._backend.policies(self._indices(games), True)

  def _policy(self, i: int, sequences: np.ndarray) -> policy_lib.TabularPolicy:
    """A new ``TabularPolicy`` of ``game(i)`` holding ``sequences``.

    The games share their information states and rows, so every game's policy is a copy of
    game 0's table (built once, from the tree or the card tree) with its own ``game`` and
    probabilities; its ``states`` are game 0's representative states, which have the same
    information states.
    """
    if self._template is None:
      self._template = self._backend.tabular_policy()
    tabular = self._template.__copy__()
    tabular.game = self.game(i)
    self._backend.to_tabular(sequences, tabular.action_probability_array)
    return tabular

  def average_policy(self, i: int) -> policy_lib.TabularPolicy:
    """Game i's average policy, a new ``TabularPolicy`` of ``game(i)``."""
    return self._policy(i, self.average_sequences([i])[0])

  def current_policy(self, i: int) -> policy_lib.TabularPolicy:
    """Game i's current policy (regret matching of its regrets), a new ``TabularPolicy``."""
    return self._policy(i, self._backend.policies(self._indices([i]), False)[0])

  def card_policy(self, i: int, average: bool = True) -> CardPolicy:
    """Game i's average (or current) policy as a compact ``CardPolicy`` (range-vector engine
    only).

    Raises:
      ValueError: on the flat engine.
    """
    if self._backend.name != "range":
      raise ValueError("card_policy needs the range-vector engine; this batch runs on the flat "
                       "engine")
    return self._backend.policy(int(self._indices([i])[0]), average)

  # Exact values ------------------------------------------------------------------------------

  def nash_convs(self, games: Optional[Sequence[int]] = None,
                 average: bool = True) -> np.ndarray:
    """Exact NashConv sum_i (BR_i - v_i) of each game's average (or current) policy."""
    best, on_policy = self._backend.batch_values(self._indices(games), average)
    return np.sum(best - on_policy, axis=1)  # sum_i (BR_i - v_i)

  def exploitabilities(self, games: Optional[Sequence[int]] = None,
                       average: bool = True) -> np.ndarray:
    """Exact exploitability (sum_i BR_i - utility sum) / N of each game's average (or current)
    policy, as ``TreeEvaluator.exploitability``.

    Raises:
      ValueError: for general-sum games.
    """
    return self._backend.exploitabilities(self._indices(games), average)

  # Checkpoints (``file_formats.solver_checkpoint``) -----------------------------------------

  def options(self) -> dict:
    """Constructor options that rebuild an equivalent solver (JSON-serialisable)."""
    raise NotImplementedError

  def restore(self, iteration: int, regrets: np.ndarray, cumulative: np.ndarray,
              game: int) -> None:
    """Sets game ``game``'s state after ``iteration`` iterations (its current policy regret
    matching of ``regrets``), as a checkpoint holds it."""
    self._backend.restore(iteration, regrets, cumulative, game)

  save = solver_checkpoint.save_batch
  load = classmethod(solver_checkpoint.load_batch)


# The classes of the named update rules (``update_rules.RULES``), each bound by name below so that
# grep and editors find it; test_update_rules.py fails, naming the line, when a rule's is missing.
BATCHED_SOLVERS = update_rules.rule_classes(BatchedEngineSolver, "Batched", __name__)
BatchedCFRSolver = BATCHED_SOLVERS["BatchedCFRSolver"]
BatchedCFRPlusSolver = BATCHED_SOLVERS["BatchedCFRPlusSolver"]
BatchedDCFRSolver = BATCHED_SOLVERS["BatchedDCFRSolver"]
BatchedLCFRSolver = BATCHED_SOLVERS["BatchedLCFRSolver"]
BatchedPCFRPlusSolver = BATCHED_SOLVERS["BatchedPCFRPlusSolver"]
BatchedSAPCFRPlusSolver = BATCHED_SOLVERS["BatchedSAPCFRPlusSolver"]
BatchedAPCFRPlusSolver = BATCHED_SOLVERS["BatchedAPCFRPlusSolver"]
BatchedDCFRPlusSolver = BATCHED_SOLVERS["BatchedDCFRPlusSolver"]
BatchedPDCFRPlusSolver = BATCHED_SOLVERS["BatchedPDCFRPlusSolver"]
