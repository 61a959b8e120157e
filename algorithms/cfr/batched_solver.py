"""Batched CFR: B games with one tree shape and different payoffs, solved in one compiled call.

Dense sweeps (an (ante, bet) grid of ``kuhn_poker_ante``, a heat map of one parameter) solve
many games whose trees differ only in their terminal utilities. ``BatchedCFRSolver`` keeps one
layout (``TreeArrays`` of the first game) and per game its terminal weights u_p(z) pi_c(z) and
its CFR state; ``solve(n)`` runs ``cfr_kernel.exact_batch``, the single-game kernel on each
game in turn, so each game's regrets, numerators and policies are exactly those of solving it
alone with ``solvers.CFRSolver`` (the same options) for the same number of iterations::

  games = [kuhn_poker_ante.game_from_rules(KuhnRules(ante=a, bet=b)) for a, b in grid]
  solver = BatchedCFRPlusSolver(games).solve_until(1e-4)
  solver.exploitabilities()          # (B,), exact, one compiled call
  solver.average_policy(7)           # TabularPolicy of game 7

Games are ``pyspiel.Game`` objects. The first game's tree is built; for a game with registered
shortcuts (``algorithms.tree.game_shortcuts``; Kuhn poker) of the same registered shape as the
first, only its payoffs are computed (``GameShortcuts.terminal_utility``), without its tree, and
any other game's tree is built and compared with the first's.

``engine`` chooses the engine as the single-game solvers do (``solver_backends``): on games with
a card tree (two-player Kuhn poker) of at least ``AUTO_RANGE_MIN_CARDS`` cards, ``"auto"`` runs
``range_engine.RangeEngine`` on the batch, whose games then need one deck and rule set; each
game's results still equal its own solver's on the same engine.
"""

from typing import List, Optional, Sequence

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.cfr import cfr_kernel
from algorithms.cfr import regret_matching as rm
from algorithms.cfr import solver_backends
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.range_engine import RangeLayout
from algorithms.tree import game_shortcuts
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays


def _same_shape(tree: GameTree, other: GameTree) -> bool:
  """True if two trees have the same sequence forms, information states and terminals."""
  if tree.num_players != other.num_players or tree.num_terminals != other.num_terminals:
    return False
  if not np.array_equal(tree.terminal_seq, other.terminal_seq):
    return False
  for p, q in zip(tree.players, other.players):
    if (p.infoset_keys != q.infoset_keys or p.legal_actions != q.legal_actions or
        not np.array_equal(p.parent_seq, q.parent_seq) or
        not np.array_equal(p.tabular_row, q.tabular_row)):
      return False
  return True


class BatchedCFRSolver:
  """CFR on B games of one tree shape at once (see the module docstring).

  Options as ``solvers.CFRSolver`` (OpenSpiel's ``cfr._CFRSolver``): alternating updates,
  regret matching+, linear averaging. Each game's results equal its own ``CFRSolver`` run.

  Attributes:
    arrays: the shared ``TreeArrays`` (of the first game; weights per game in ``weights``); None
      on the range-vector engine, whose state is ``range_engine``.
    range_engine: the ``RangeEngine`` of the batch on the range-vector engine, else None.
    rule: the ``UpdateRule``.
    weights: (B, T, N) each game's terminal weights u_p(z) pi_c(z).
    regrets, cumulative, sigma: (B, G) each game's CFR state, as ``CFREngine``'s.
    iterations: (B,) each game's number of iterations.
  """

  def __init__(self, games: Sequence[pyspiel.Game], *, alternating_updates: bool = True,
               linear_averaging: bool = False, regret_matching_plus: bool = False,
               max_nodes: int = DEFAULT_MAX_NODES, engine: str = "auto"):
    """Builds the shared layout and every game's weights.

    Args:
      games: one or more ``pyspiel.Game``, all of one tree shape (for Kuhn poker: the same
        players, deck and rule set; ``kuhn_poker_ante.game_from_rules`` loads a ``KuhnRules``).
      alternating_updates: as ``CFRSolver``'s.
      linear_averaging: as ``CFRSolver``'s.
      regret_matching_plus: as ``CFRSolver``'s.
      max_nodes: refuse games with more histories (flat engine).
      engine: ``"auto"``, ``"flat"`` or ``"range"`` (module docstring).

    Raises:
      ValueError: for no games, an argument that is not a game, games of different shapes
        (naming the first one that differs), or an engine the games do not allow.
    """
    games = list(games)
    if not games:
      raise ValueError("BatchedCFRSolver needs at least one game")
    not_games = [i for i, g in enumerate(games) if not isinstance(g, pyspiel.Game)]
    if not_games:
      i = not_games[0]
      raise ValueError(f"game {i} is a {type(games[i]).__name__}, not a pyspiel.Game (load "
                       "KuhnRules with spiel_games.kuhn_poker_ante.game_from_rules)")
    self._games = games
    self.rule = UpdateRule.from_options(alternating_updates, linear_averaging,
                                        regret_matching_plus)
    self.range_engine, self._range_layout, self._template = None, None, None
    card_trees = [solver_backends.choose_engine(g, engine) for g in games]
    if card_trees[0] is not None:
      others = [i for i, t in enumerate(card_trees) if t is None]
      if others:
        raise ValueError(f"game {others[0]} ({games[others[0]]}) does not run on the range-vector "
                         f"engine of game 0 ({games[0]}): batched games must share one engine")
      for card_tree in card_trees:
        solver_backends.check_memory(card_tree, solver_backends.DEFAULT_MAX_BYTES)
      self.range_engine = RangeEngine(card_trees, self.rule)
      self.arrays = None
      self.iterations = self.range_engine.iteration  # the engine's (B,) counters, shared
      return
    tree = GameTree.from_game(games[0], max_nodes)
    first = game_shortcuts.for_game(games[0])
    first_shape = first.shape(games[0]) if first else None
    utilities, chance = [tree.utility], [tree.chance_reach]
    for i, game in enumerate(games[1:], start=1):
      if (first_shape is not None and game_shortcuts.for_game(game) is first
          and first.shape(game) == first_shape):
        # Same registered shape: the same tree but for the payoffs, which need no tree.
        utilities.append(first.terminal_utility(game))
        chance.append(tree.chance_reach)
        continue
      other = GameTree.from_game(game, max_nodes)
      if not _same_shape(tree, other):
        raise ValueError(f"game {i} ({game}) has another tree shape than game 0 "
                         f"({games[0]}): batched games must share one tree shape")
      utilities.append(other.utility)
      chance.append(other.chance_reach)
    self.arrays = TreeArrays(tree)
    self._kernel_rule = self.rule.kernel_rule()
    # w_p(z) = u_p(z) pi_c(z) per game, as TreeArrays computes them for that game alone.
    self.weights = np.stack([u * c[:, None] for u, c in zip(utilities, chance)])
    self._utility_sums = self._fixed_sums(utilities, tree)
    b, g = len(games), self.arrays.num_sequences
    self.regrets = np.zeros((b, g))
    self.cumulative = np.zeros((b, g))
    self.sigma = np.empty((b, g))
    self.sigma[:] = self._match(np.zeros(g))  # R = 0: sigma uniform
    self.iterations = np.zeros(b, dtype=np.int64)

  @staticmethod
  def _fixed_sums(utilities, tree: GameTree) -> List[Optional[float]]:
    """Each game's constant utility sum (the first terminal's, as the walk records it), or
    None for general-sum games."""
    if tree.utility_sum is None:
      return [None] * len(utilities)
    return [float(sum(u[0].tolist())) for u in utilities]

  def _match(self, regrets: np.ndarray) -> np.ndarray:
    n = self.arrays.num_players
    out = np.ones(len(regrets))  # 1 on the empty sequences
    out[n:] = rm.regret_matching(regrets[n:], self.arrays.blocks)  # sigma = R+ / sum R+, or uniform
    return out

  @property
  def num_games(self) -> int:
    return len(self._games)

  @property
  def engine_name(self) -> str:
    """``"flat"`` or ``"range"``."""
    return "flat" if self.range_engine is None else "range"

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

  def solve(self, iterations: int, games: Optional[Sequence[int]] = None) -> "BatchedCFRSolver":
    """``iterations`` more iterations of every game (or of the listed ones), one compiled call.

    Raises:
      ValueError: for a negative count or an index out of range.
    """
    if iterations < 0:
      raise ValueError(f"iterations must be >= 0, got {iterations}")
    if self.range_engine is not None:
      self.range_engine.solve(int(iterations), self._indices(games))
      return self
    a = self.arrays
    cfr_kernel.exact_batch(a.kernel, self._kernel_rule, self.weights, self.sigma, self.regrets,
                           self.cumulative, self.iterations, self._indices(games),
                           int(iterations))
    return self

  def solve_until(self, exploitability: float, max_iterations: int = 100_000,
                  check_every: int = 50) -> "BatchedCFRSolver":
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

  def average_sequences(self, games: Optional[Sequence[int]] = None) -> np.ndarray:
    """Average policies (len(games), G) in the engine's layout: the sequence layout, as
    ``CFREngine.average``, or the range engine's (D N 2) blocks."""
    if self.range_engine is not None:
      return np.stack([self.range_engine.average(b) for b in self._indices(games)])
    n = self.arrays.num_players
    out = np.ones((len(self._indices(games)), self.arrays.num_sequences))
    for row, b in enumerate(self._indices(games)):
      # sigma_bar(I, a) = S(I, a) / sum_b S(I, b) of game b
      out[row, n:] = rm.normalize_average(self.cumulative[b, n:], self.arrays.blocks)
    return out

  def _policy(self, i: int, sequences: np.ndarray) -> policy_lib.TabularPolicy:
    """A new ``TabularPolicy`` of ``game(i)`` holding ``sequences``.

    The games share their information states and rows, so every game's policy is a copy of
    game 0's table (built once, from the tree or the card tree) with its own ``game`` and
    probabilities; its ``states`` are game 0's representative states, which have the same
    information states.
    """
    if self._template is None:
      self._template = (self.arrays.tree.tabular_policy() if self.range_engine is None
                        else self._layout().tabular_policy())
    tabular = self._template.__copy__()
    tabular.game = self.game(i)
    if self.range_engine is None:
      self.arrays.to_tabular(sequences, tabular.action_probability_array)
    else:
      self._layout().to_tabular(sequences, tabular.action_probability_array)
    return tabular

  def _layout(self) -> RangeLayout:
    if self._range_layout is None:
      self._range_layout = RangeLayout(self.range_engine.trees[0])
    return self._range_layout

  def average_policy(self, i: int) -> policy_lib.TabularPolicy:
    """Game i's average policy, a new ``TabularPolicy`` of ``game(i)``."""
    return self._policy(i, self.average_sequences([i])[0])

  def current_policy(self, i: int) -> policy_lib.TabularPolicy:
    """Game i's current policy (regret matching of its regrets), a new ``TabularPolicy``."""
    sigma = self.sigma[i] if self.range_engine is None else self.range_engine.sigma[i]
    return self._policy(i, sigma)

  def _values(self, games: Optional[Sequence[int]], average: bool):
    idx = self._indices(games)
    if self.range_engine is not None:
      e = self.range_engine
      values = [e.values(b, average) for b in idx]
      return idx, np.array([v[0] for v in values]), np.array([v[1] for v in values])
    sigma = self.average_sequences(idx) if average else self.sigma[idx]
    weights = self.weights[idx]
    best, on_policy = cfr_kernel.batch_values(self.arrays.kernel, weights,
                                              np.ascontiguousarray(sigma))
    return idx, best, on_policy

  def nash_convs(self, games: Optional[Sequence[int]] = None,
                 average: bool = True) -> np.ndarray:
    """Exact NashConv sum_i (BR_i - v_i) of each game's average (or current) policy."""
    _, best, on_policy = self._values(games, average)
    return np.sum(best - on_policy, axis=1)  # sum_i (BR_i - v_i)

  def exploitabilities(self, games: Optional[Sequence[int]] = None,
                       average: bool = True) -> np.ndarray:
    """Exact exploitability (sum_i BR_i - utility sum) / N of each game's average (or current)
    policy, as ``TreeEvaluator.exploitability``.

    Raises:
      ValueError: for general-sum games.
    """
    if self.range_engine is not None:
      return self.nash_convs(games, average) / 2  # two players, zero-sum
    if self._utility_sums[0] is None:
      raise ValueError("exploitability is defined for zero- and constant-sum games only; use "
                       "nash_convs for general-sum games")
    idx, best, _ = self._values(games, average)
    sums = np.array([self._utility_sums[b] for b in idx])  # sum_i u_i(z), the same for every z
    return (best.sum(axis=1) - sums) / self.arrays.num_players  # (sum_i BR_i - sum_i u_i) / N


class BatchedCFRPlusSolver(BatchedCFRSolver):
  """Batched CFR+ (Tammelin 2014): RM+, alternating updates, linear averaging, as
  ``solvers.CFRPlusSolver``."""

  def __init__(self, games: Sequence[pyspiel.Game], *, max_nodes: int = DEFAULT_MAX_NODES,
               engine: str = "auto"):
    super().__init__(games, alternating_updates=True, linear_averaging=True,
                     regret_matching_plus=True, max_nodes=max_nodes, engine=engine)
