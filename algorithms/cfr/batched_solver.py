"""Batched CFR: B games with one tree shape and different payoffs, solved in one compiled call.

Dense sweeps (an (ante, bet) grid of ``kuhn_poker_ante``, a heat map of one parameter) solve
many games whose trees differ only in their terminal utilities. ``BatchedCFRSolver`` keeps one
layout (``TreeArrays`` of the first game) and per game its terminal weights u_p(z) pi_c(z) and
its CFR state; ``solve(n)`` runs ``cfr_kernel.exact_batch``, the single-game kernel on each
game in turn, so each game's regrets, numerators and policies are exactly those of solving it
alone with ``solvers.CFRSolver`` (the same options) for the same number of iterations::

  rules = [KuhnRules(ante=a, bet=b) for a, b in grid]
  solver = BatchedCFRPlusSolver(rules).solve_until(1e-4)
  solver.exploitabilities()          # (B,), exact, one compiled call
  solver.average_policy(7)           # TabularPolicy of game 7

Games are ``pyspiel.Game`` objects or ``KuhnRules``; rules are turned into trees by
``kuhn_tree`` without loading a game for each (``game(i)`` loads one on demand).
"""

from typing import List, Optional, Sequence, Union

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.cfr import cfr_kernel
from algorithms.cfr import regret_matching as rm
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.tree import kuhn_tree
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

GameOrRules = Union[pyspiel.Game, KuhnRules]


def _kuhn_shape(rules: KuhnRules) -> tuple:
  return rules.num_players, rules.deck_size, rules.simplified


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
    arrays: the shared ``TreeArrays`` (of the first game; weights per game in ``weights``).
    rule: the ``UpdateRule``.
    weights: (B, T, N) each game's terminal weights u_p(z) pi_c(z).
    regrets, cumulative, sigma: (B, G) each game's CFR state, as ``CFREngine``'s.
    iterations: (B,) each game's number of iterations.
  """

  def __init__(self, games: Sequence[GameOrRules], *, alternating_updates: bool = True,
               linear_averaging: bool = False, regret_matching_plus: bool = False,
               max_nodes: int = DEFAULT_MAX_NODES):
    """Builds the shared layout and every game's weights.

    Args:
      games: one or more ``pyspiel.Game`` (all of one tree shape) or ``KuhnRules`` (all with
        the same players, deck and rule set); not mixed.
      alternating_updates: as ``CFRSolver``'s.
      linear_averaging: as ``CFRSolver``'s.
      regret_matching_plus: as ``CFRSolver``'s.
      max_nodes: refuse games with more histories.

    Raises:
      ValueError: for no games, mixed kinds, or games of different shapes (naming the first
        one that differs).
    """
    games = list(games)
    if not games:
      raise ValueError("BatchedCFRSolver needs at least one game")
    if all(isinstance(g, KuhnRules) for g in games):
      self._rules: Optional[List[KuhnRules]] = games
      self._games: List[Optional[pyspiel.Game]] = [None] * len(games)
      for i, rules in enumerate(games):
        if _kuhn_shape(rules) != _kuhn_shape(games[0]):
          raise ValueError(f"game {i} has (players, deck_size, simplified) = "
                           f"{_kuhn_shape(rules)}, game 0 has {_kuhn_shape(games[0])}: batched "
                           "games must share one tree shape")
      tree = GameTree.from_game(self.game(0), max_nodes)
      utilities = [tree.utility] + [kuhn_tree.terminal_utility(r) for r in games[1:]]
      chance = [tree.chance_reach] * len(games)
    elif all(isinstance(g, pyspiel.Game) for g in games):
      self._rules, self._games = None, games
      trees = [GameTree.from_game(g, max_nodes) for g in games]
      tree = trees[0]
      for i, other in enumerate(trees):
        if not _same_shape(tree, other):
          raise ValueError(f"game {i} ({games[i]}) has another tree shape than game 0 "
                           f"({games[0]}): batched games must share one tree shape")
      utilities = [t.utility for t in trees]
      chance = [t.chance_reach for t in trees]
    else:
      raise ValueError("games must be all pyspiel.Game objects or all KuhnRules")
    self.arrays = TreeArrays(tree)
    self.rule = UpdateRule.from_options(alternating_updates, linear_averaging,
                                        regret_matching_plus)
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
    self._template: Optional[policy_lib.TabularPolicy] = None

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
    return len(self.weights)

  def game(self, i: int) -> pyspiel.Game:
    """Game i (loaded from its rules on first use when the solver was given rules)."""
    if self._games[i] is None:
      params = kuhn_poker_ante.params_from_rules(self._rules[i])
      self._games[i] = pyspiel.load_game(kuhn_poker_ante.SHORT_NAME, params)
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
    """Average policies (len(games), G) in the sequence layout, as ``CFREngine.average``."""
    n = self.arrays.num_players
    out = np.ones((len(self._indices(games)), self.arrays.num_sequences))
    for row, b in enumerate(self._indices(games)):
      # sigma_bar(I, a) = S(I, a) / sum_b S(I, b) of game b
      out[row, n:] = rm.normalize_average(self.cumulative[b, n:], self.arrays.blocks)
    return out

  def _policy(self, i: int, sequences: np.ndarray) -> policy_lib.TabularPolicy:
    """A new ``TabularPolicy`` of ``game(i)`` holding ``sequences``.

    The games share their information states and rows, so every game's policy is a copy of
    game 0's table (built once, from the tree) with its own ``game`` and probabilities; its
    ``states`` are game 0's representative states, which have the same information states.
    """
    if self._template is None:
      self._template = self.arrays.tree.tabular_policy()
    tabular = self._template.__copy__()
    tabular.game = self.game(i)
    self.arrays.to_tabular(sequences, tabular.action_probability_array)
    return tabular

  def average_policy(self, i: int) -> policy_lib.TabularPolicy:
    """Game i's average policy, a new ``TabularPolicy`` of ``game(i)``."""
    return self._policy(i, self.average_sequences([i])[0])

  def current_policy(self, i: int) -> policy_lib.TabularPolicy:
    """Game i's current policy (regret matching of its regrets), a new ``TabularPolicy``."""
    return self._policy(i, self.sigma[i])

  def _values(self, games: Optional[Sequence[int]], average: bool):
    idx = self._indices(games)
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
    if self._utility_sums[0] is None:
      raise ValueError("exploitability is defined for zero- and constant-sum games only; use "
                       "nash_convs for general-sum games")
    idx, best, _ = self._values(games, average)
    sums = np.array([self._utility_sums[b] for b in idx])  # sum_i u_i(z), the same for every z
    return (best.sum(axis=1) - sums) / self.arrays.num_players  # (sum_i BR_i - sum_i u_i) / N


class BatchedCFRPlusSolver(BatchedCFRSolver):
  """Batched CFR+ (Tammelin 2014): RM+, alternating updates, linear averaging, as
  ``solvers.CFRPlusSolver``."""

  def __init__(self, games: Sequence[GameOrRules], *, max_nodes: int = DEFAULT_MAX_NODES):
    super().__init__(games, alternating_updates=True, linear_averaging=True,
                     regret_matching_plus=True, max_nodes=max_nodes)
