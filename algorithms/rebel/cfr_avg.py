"""ReBeL's CFR-AVG and CFR-D: depth-limited CFR over public states with exact leaf solutions.

References: Burch, Johanson, Bowling, "Solving imperfect information games using
decomposition", AAAI 2014 (CFR-D); Brown, Bakhtin, Lerer, Gong, "Combining deep reinforcement
learning and search for imperfect-information games" (ReBeL), NeurIPS 2020, arXiv 2007.13544,
Section 5 and Appendix I (CFR-AVG, Theorem 5; the modified variant). Where the paper leaves a
choice open, the steps below state the reading adopted.

``CFRAvgSolver(game, depth_limit=k)`` cuts the game after k player actions (``public_tree``).
Each pass of an iteration t updating player(s) P:

1. pi^t is regret matching of the trunk's cumulative regrets (the engine's current policy);
2. the average pibar^t on the trunk includes pi^t: the beliefs of step 3 use the numerators plus
   this iteration's w_t x_P^t (w_t = 1, or t with ``weighting="linear"``), which the engine
   adds in step 6;
3. every leaf public state gets the belief beta(h) proportional to pi_c(h) r_0(h) r_1(h) with r
   the trunk reach of the average policy (``leaf_beliefs="average"``, CFR-AVG) or of pi^t
   (``"current"``, CFR-D, with trembling reaches r + ``leaf_step.TREMBLE``: a private state that
   pi^t never plays into the leaf keeps a little mass, which pins the leaf equilibrium's play
   against it, ``leaf_step``); a leaf that this makes unreachable gets the chance-only prior
   (``leaf_step.belief_from_reaches``);
4. the leaf solver (default: exact sequence-form LP) returns a continuation sigma^t and player
   0's value u_0(h) from every root h of the leaf (every leaf in one call for a solver that
   solves them together, ``leaf_step.solve_leaves``); the continuation is completed by best
   responses where the PBS gives a player's own plan zero mass
   (``leaves.solvers.complete_with_best_response``);
5. player i's counterfactual leaf value at its trunk sequence s is
   v_i(s) = sum_{roots h of a leaf, seq_i(h) = s} pi_c(h) pi^t_{-i}(h) u_i(h),
   u_1(h) = c - u_0(h) (c the game's constant utility sum), with the opponent's CURRENT trunk
   reach; these are the terminal values of the trunk's CFR update (regrets of P's trunk
   sequences, RM+ clipping if asked). The per-root values are the leaf solution's
   ``root_values``, so a leaf solver that predicts them (a value function,
   ``leaves.leaf_values``) serves as well as one that solves; for an exact solver they are the
   expected utilities of its continuation. At a root whose belief is 0 (a leaf below
   a root of belief 0; with trembles no reach is 0) the PBS says nothing about the play, and
   u_0(h) is the completed continuation's value there (Burch et al.'s best-response values),
   whatever the solver returned (``leaf_step.leaf_root_values``);
6. P's average numerators get w_t x_P(s) for the full profile (pi^t on the trunk, sigma^t
   below), so the average policy is the reach-weighted average of the full profiles: a
   full-game ``TabularPolicy`` that OpenSpiel's exploitability measures.

The update itself (step 5's regrets, step 6, RM+, regret matching) is the engine's
``CFREngine.iterate`` with a terminal-values hook (``cfr_engine.TerminalValues``), the same code
as full-game CFR: per pass, the hook receives the realization plans of pi^t, forms the beliefs,
solves the leaves, and returns the trunk terminals' values plus the leaf values (step 5) and
the full profile's reach (step 6). Regrets stay 0 below the leaves, so the engine's current
policy is uniform there; ``current_policy()`` shows the last continuations sigma^t instead.

With ``variant="modified"`` (ReBeL's experiments; needs average beliefs) step 5 uses de-averaged
values: V^t_i(s) is step 5's sum with the opponent's AVERAGE trunk reach (normalised, so the
PBS values of beta(pibar^t)), and v^t_i = (W_t V^t_i - W_{t-1} V^{t-1}_i) / w_t with
W_t = sum_{k <= t} w_k. Summed over iterations these telescope, sum_{k <= t} w_k v^k_i =
W_t V^t_i, and V^t_i is linear in the opponent's average reach, W_t pibar^t_{-i} =
sum_{k <= t} w_k pi^k_{-i}: the trunk's cumulative regrets are those of CFR against the LATEST
leaf values u^t, as if they had held in every past iteration, while the average policy
averages the continuations sigma^1..sigma^t. The two agree when u^t converges, which needs a
leaf solver continuous in the belief (an equilibrium trunk makes the opponent indifferent at
the leaf, where an exact solution jumps between vertices).

Alternating updates (the default, as OpenSpiel's CFR) run steps 1-6 for player 0, then for
player 1 against player 0's new trunk policy; so in player 0's pass the average beliefs hold
player 1's average up to t - 1. ``alternating_updates=False`` solves the leaves once per
iteration for both players.

Without a depth limit there are no leaves and the solver IS the project's CFR engine
(``solvers.CFRSolver``), identical to OpenSpiel's ``cfr._CFRSolver`` with the same options, for
any game that solver accepts (n players and general-sum utilities included). A depth limit
needs a two-player zero-sum game: the leaf PBSs, the leaf solvers and the public tree are
two-player constructions.

``save(path)`` / ``CFRAvgSolver.load(path)`` are the other solvers' checkpoints
(``solvers.EngineSolver``) plus W_t, the modified variant's V^t and the last continuations; the
project's leaf solvers (learned value functions included, by their model file) are recorded by
their JSON descriptions (``leaves.specs``), a custom one makes ``save`` refuse.
"""

import functools
from typing import Dict, Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.cfr import regret_matching as rm
from algorithms.cfr import tree_passes
from algorithms.cfr.cfr_engine import PassValues
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.solvers import EngineSolver
from algorithms.cfr.solvers import checked_array  # pylint: disable=protected-access
from algorithms.rebel import leaf_step
from algorithms.rebel.leaf_step import LEAF_BELIEFS
from algorithms.rebel.leaf_step import check_choice
from algorithms.rebel.leaves import specs
from algorithms.rebel.leaves.solvers import LeafSolution
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.rebel.public_tree import PublicTree
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.game_tree import GameTree
from algorithms.tree.game_tree import check_two_player_fixed_sum
from spiel_games.public_belief_state import PublicBeliefState

VARIANTS = ("standard", "modified")
WEIGHTINGS = ("uniform", "linear")


class CFRAvgSolver(EngineSolver):
  """CFR-AVG / CFR-D with OpenSpiel's CFR interface (see the module docstring).

  Public API as OpenSpiel's ``cfr._CFRSolver``: ``evaluate_and_update_policy()``,
  ``current_policy()`` (trunk pi^{t+1} and the last leaf continuations), ``average_policy()``
  (the full-game reach-weighted average), plus the project's ``solve``, ``exploitability`` and
  ``nash_conv`` (exact, on the tree). Runs on the flat tree only (the public tree is cut there).
  """

  ENGINES = ("flat",)

  def __init__(self, game: pyspiel.Game, *, depth_limit: Optional[int] = None,
               leaf_beliefs: str = "average", variant: str = "standard",
               weighting: str = "uniform", alternating_updates: bool = True,
               regret_matching_plus: bool = False, leaf_solver: Optional[LeafSolver] = None,
               tree: Optional[GameTree] = None, max_nodes: int = DEFAULT_MAX_NODES):
    """Builds the solver.

    Args:
      game: a game of ``cfr._CFRSolver``; with a depth limit, a two-player zero-sum (or
        constant-sum) game whose public states are readable from its public observation.
      depth_limit: None for the full game, or k >= 1 player actions in the trunk.
      leaf_beliefs: "average" (CFR-AVG) or "current" (CFR-D).
      variant: "standard", or "modified" for ReBeL's de-averaged leaf values (average beliefs).
      weighting: "uniform" (w_t = 1) or "linear" (w_t = t) average.
      alternating_updates: update player 0, then player 1, ... (OpenSpiel's default).
      regret_matching_plus: clip the trunk's cumulative regrets at 0 (CFR+).
      leaf_solver: ``leaf(leaf, belief) -> LeafSolution``; the exact LP if None.
      tree: the game's ``GameTree``, to skip the walk.
      max_nodes: refuse games with more histories.

    Raises:
      ValueError: for a bad option or an unsupported game, naming the problem.
    """
    check_choice("leaf_beliefs", leaf_beliefs, LEAF_BELIEFS)
    check_choice("variant", variant, VARIANTS)
    check_choice("weighting", weighting, WEIGHTINGS)
    if variant == "modified" and leaf_beliefs != "average":
      raise ValueError("variant='modified' de-averages values at average PBSs: it needs "
                       "leaf_beliefs='average'")
    if depth_limit is not None:  # Before any work: the cut and the leaves are two-player.
      check_two_player_fixed_sum(game, "a depth limit")
    rule = UpdateRule.from_options(bool(alternating_updates), weighting == "linear",
                                   bool(regret_matching_plus))
    super().__init__(game, rule, tree, max_nodes)
    self.depth_limit = depth_limit
    self.leaf_beliefs = leaf_beliefs
    self.variant = variant
    self.weighting = weighting
    self._public_tree = (None if depth_limit is None
                         else PublicTree.cut(self._arrays, depth_limit))
    self._leaf_solver = leaf_solver if leaf_solver is not None else SequenceFormLPSolver()
    self._last_beliefs: Dict[str, np.ndarray] = {}
    self._last_solutions: Dict[str, LeafSolution] = {}
    # V^{t-1}_i of the modified variant.
    self._previous_values = np.zeros((2, self._arrays.num_sequences))
    self._total_weight = 0.0
    # The last continuations sigma^t below the leaves (uniform before the first iteration).
    self._leaf_policy = self._engine.sigma.copy()
    if self._public_tree is not None:  # What the depth-limited passes (``_pass_values``) read.
      pt = self._public_tree
      self._leaf_mask = pt.seq_leaf >= 0
      self._trunk_mask = pt.trunk_mask
      # Every leaf root: its trunk sequences and chance reach, leaves in order (step 5); the
      # empty arrays head the lists so that a cut without leaves concatenates too.
      self._root_seq = np.concatenate([np.zeros((0, 2), dtype=np.int64)] +
                                      [leaf.root_seq for leaf in pt.leaves])
      self._root_chance = np.concatenate([np.zeros(0)] +
                                         [leaf.root_chance for leaf in pt.leaves])
      self._root_offsets = np.cumsum([0] + [leaf.num_roots for leaf in pt.leaves])
      # u_i(h) of every leaf root and player in the last pass (step 4).
      self._root_values = np.zeros((len(self._root_chance), 2))

  # Properties ------------------------------------------------------------------------------

  @property
  def public_tree(self) -> Optional[PublicTree]:
    """The trunk/leaf cut, or None without a depth limit."""
    return self._public_tree

  def last_leaf_beliefs(self) -> Dict[str, np.ndarray]:
    """Belief over each leaf's roots (``LeafSubgame.root_nodes`` order) of the last pass."""
    return dict(self._last_beliefs)

  def last_leaf_solutions(self) -> Dict[str, LeafSolution]:
    """The leaf solver's (uncompleted) solution of each leaf in the last pass."""
    return dict(self._last_solutions)

  def last_leaf_pbs(self) -> Dict[str, PublicBeliefState]:
    """The last pass's leaf beliefs as Kuhn ``PublicBeliefState`` objects (Kuhn games only)."""
    leaves = {leaf.public_state: leaf for leaf in self._public_tree.leaves}
    return {s: leaves[s].pbs(b) for s, b in self._last_beliefs.items()}

  def options(self) -> dict:
    """The constructor options; the leaf solver by its description (``leaves.specs``).

    Raises:
      ValueError: for a leaf solver that has no description (it cannot be recorded), so
        ``save`` refuses such a solver and writes nothing.
    """
    return {"depth_limit": self.depth_limit, "leaf_beliefs": self.leaf_beliefs,
            "variant": self.variant, "weighting": self.weighting,
            "alternating_updates": self._alternating_updates,
            "regret_matching_plus": self._regret_matching_plus,
            "leaf_solver": specs.spec(self._leaf_solver)}

  @classmethod
  def _options_to_kwargs(cls, options: dict) -> dict:
    return dict(options, leaf_solver=specs.from_spec(options.get("leaf_solver")))

  def _extra_state(self) -> Tuple[dict, Dict[str, np.ndarray]]:
    """W_t, the modified variant's V^t and the last continuations, for ``save``.

    The ``last_leaf_*`` reports do not affect later iterations and are not kept: they are empty
    after ``load`` until the next iteration.
    """
    return ({"total_weight": self._total_weight},
            {"previous_values": self._previous_values, "leaf_policy": self._leaf_policy})

  def _restore_extra_state(self, path: str, header: dict, arrays: Dict[str, np.ndarray]) -> None:
    total = header.get("total_weight")
    if isinstance(total, bool) or not isinstance(total, (int, float)):
      raise ValueError(f"{path}: header field 'total_weight' missing or not a number")
    self._total_weight = float(total)
    self._previous_values[:] = checked_array(path, arrays, "previous_values",
                                             self._previous_values.shape)
    self._leaf_policy[:] = checked_array(path, arrays, "leaf_policy", self._leaf_policy.shape)

  # Iterations ------------------------------------------------------------------------------

  def current_policy(self) -> policy_lib.TabularPolicy:
    """The trunk's current policy pi^{t+1} and the last leaf continuations sigma^t.

    The same object is returned on every call and refreshed in place, as in OpenSpiel.
    """
    policy = self._engine.sigma
    if self._public_tree is not None:
      policy = np.where(self._leaf_mask, self._leaf_policy, policy)
    self._arrays.to_tabular(policy, self._current_policy.action_probability_array)
    return self._current_policy

  def _run(self, iterations: int) -> None:
    """Iterations: the engine's CFR without a depth limit, else the six steps per pass."""
    if self._public_tree is None:
      super()._run(iterations)
      return
    e = self._engine
    for _ in range(iterations):
      w = rm.averaging_weight(e.iteration + 1, e.rule.averaging_gamma)
      previous_total, self._total_weight = self._total_weight, self._total_weight + w
      e.iterate(functools.partial(self._pass_values, w=w, previous_total=previous_total))

  def _pass_values(self, x: np.ndarray, player: Optional[int], w: float,
                   previous_total: float) -> PassValues:
    """Steps 1-6 of the module docstring for ``player`` (None: both players): the pass's hook.

    Steps 1, 3, 4 and the leaf values of step 5 are CFR-AVG's; the trunk's regret update, both
    parts of the average (steps 2 and 6) and RM+ are the engine's ``CFREngine.update`` on the
    values returned here.

    Args:
      x: realization plans of the engine's current policy: pi^t on the trunk (step 1).
      player: the updated player, or None for both.
      w: the iteration's averaging weight w_t.
      previous_total: W_{t-1}.

    Returns:
      The trunk terminals' counterfactual values plus the leaf values (step 5), and the reach of
      the full profile, pi^t on the trunk and sigma^t below (step 6).
    """
    a, e = self._arrays, self._engine
    belief_reach = leaf_step.belief_reach(e, self.leaf_beliefs, x, player, self._trunk_mask,
                                          self._leaf_mask)
    value_reach = belief_reach if self.variant == "modified" else x
    leaf_sigma = self._solve_leaves(belief_reach, value_reach)
    self._leaf_policy[self._leaf_mask] = leaf_sigma[self._leaf_mask]
    trunk = self._public_tree.trunk_terminals
    values = tree_passes.terminal_values(a, x, a.weighted_utility[trunk], player, trunk)
    values += self._leaf_values(player, value_reach, w, previous_total)
    full_reach = tree_passes.realization(a, np.where(self._leaf_mask, leaf_sigma, e.sigma))
    return PassValues(values, full_reach)

  def _solve_leaves(self, belief_reach: np.ndarray, value_reach: np.ndarray) -> np.ndarray:
    """Steps 3 and 4: every leaf's PBS, solved and completed; the continuations (G,).

    Keeps every root's u_i(h) for step 5: the solution's ``root_values``, or at a root of zero
    belief the completed continuation's value (``leaf_step.leaf_root_values``).

    Args:
      belief_reach: trunk reach (G,) that forms the beliefs: of pibar^t or of pi^t.
      value_reach: trunk reach (G,) whose opponent part weights the counterfactual values.

    Returns:
      The leaf continuations sigma^t on the leaf sequences, 1 elsewhere.
    """
    leaf_sigma = np.ones(self._arrays.num_sequences)
    tremble = leaf_step.tremble_of(self.leaf_beliefs)
    leaves = self._public_tree.leaves
    beliefs = [leaf_step.belief_from_reaches(leaf.root_chance, belief_reach[leaf.root_seq],
                                             leaf.root_chance, tremble) for leaf in leaves]
    solutions = leaf_step.solve_leaves(self._leaf_solver, self._public_tree, leaves, beliefs)
    for leaf, start, belief, solution in zip(leaves, self._root_offsets, beliefs, solutions):
      # omega_i(h) = pi_c(h) times the opponent's trunk reach (column i holds player 1 - i's).
      weights = leaf.root_chance[:, None] * value_reach[leaf.root_seq[:, ::-1]]
      policy, values = leaf_step.leaf_root_values(leaf, solution, belief, weights,
                                                  complete_policy=True)
      leaf_sigma[leaf.full_seq[2:]] = policy[2:]
      self._root_values[start:start + leaf.num_roots] = values
      self._last_beliefs[leaf.public_state] = belief
      self._last_solutions[leaf.public_state] = solution
    return leaf_sigma

  def _leaf_values(self, player: Optional[int], value_reach: np.ndarray, w: float,
                   previous_total: float) -> np.ndarray:
    """Step 5's leaf values v_i(s) of the updated player(s) (G,), de-averaged if "modified".

    v_i(s) = sum_{roots h, seq_i(h) = s} pi_c(h) pi_{-i}(h) u_i(h), with pi_{-i} the opponent's
    part of ``value_reach`` and u_i the roots' values kept by ``_solve_leaves``; the modified
    variant returns (W_t V^t_i - W_{t-1} V^{t-1}_i) / w_t and keeps V^t_i for the next iteration.
    """
    root_seq = self._root_seq
    weights = self._root_chance[:, None] * value_reach[root_seq[:, ::-1]]
    out = np.zeros(self._arrays.num_sequences)
    for i in ((0, 1) if player is None else (player,)):
      values = leaf_step.counterfactual_leaf_values(root_seq, weights, self._root_values, i,
                                                    self._arrays.num_sequences)
      if self.variant == "modified":
        values, self._previous_values[i] = ((self._total_weight * values - previous_total *
                                             self._previous_values[i]) / w, values)
      out += values  # Player 0's and player 1's root sequences are disjoint: exact.
    return out
