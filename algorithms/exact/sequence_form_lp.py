"""Exact equilibria of two-player zero-sum games: the sequence-form linear program on HiGHS.

Sequence form (Koller, Megiddo, von Stengel, "Fast algorithms for finding randomized strategies
in game trees", STOC 1994, and "Efficient computation of equilibria for extensive two-person
games", GEB 1996; von Stengel, "Efficient computation of behavior strategies", GEB 1996): a
strategy of player 0 is a realization plan x >= 0 over its sequences with E x = e, where row 0 of
E says x[empty] = 1 and the row of each information set I says
``sum_a x[seq(I, a)] - x[parent(I)] = 0``; likewise F y = f for player 1. With the payoff matrix
A[s0, s1] = sum over terminals z reached by (s0, s1) of pi_c(z) u_0(z), player 0's expected
utility is x^T A y.

Player 0's maximin ``max_x min_{y: Fy = f, y >= 0} x^T A y`` becomes one LP by dualising the inner
minimisation (dual variables q, one per row of F):

    maximise f^T q   subject to   F^T q - A^T x <= 0,   E x = e,   x >= 0,   q free.

Its optimum is the game value v and its x part is an optimal (maximin) realization plan of
player 0. Player 1's minimax is the same LP for the game (-A^T, F, f, E, e), so one routine solves
both sides; together the two plans form an equilibrium. OpenSpiel's own ``sequence_form_lp``
needs cvxpy; this module only needs ``scipy.optimize.linprog`` (HiGHS dual simplex) and
``scipy.sparse``.

Two levels of API:

* ``solve_sequence_form(payoff, constraints_0, constraints_1, rhs_0, rhs_1)``: the LPs at the
  matrix level, for callers that build their own sequence form (``payoff_matrix`` for other
  terminal weights, ``solve_lp`` for the HiGHS call; e.g. the leaf LPs of ``leaves.solvers``);
* ``solve_game(game)``: builds the sequence form of an OpenSpiel game from
  ``algorithms.tree.game_tree.GameTree`` and returns the value and an equilibrium as a
  ``policy.TabularPolicy``.
"""

import dataclasses
from typing import Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel
from scipy import optimize
from scipy import sparse

from algorithms.tree import game_tree as game_tree_lib
from algorithms.tree.sequence_form import PlayerSequences
from algorithms.tree.tree_layout import TreeArrays

# HiGHS feasibility tolerances; the dual simplex returns a vertex, so that with tight tolerances
# the realization plans are exact to rounding for games of Kuhn and Leduc size.
_LP_TOLERANCE = 1e-10
# A realization weight at or below this is treated as zero when turning plans into behaviour.
UNREACHED_WEIGHT = 1e-12


@dataclasses.dataclass(frozen=True)
class SequenceForm:
  """The sequence form of a two-player zero-sum game.

  Attributes:
    payoff: sparse (num_seq_0, num_seq_1) matrix A, A[s0, s1] = sum_z pi_c(z) u_0(z) over the
      terminals z whose sequences are s0 and s1.
    constraints: sparse matrices (E, F) of shapes (1 + num_infosets_p, num_seq_p): row 0 is
      x[0] (the empty sequence), row 1 + I is ``sum_a x[seq(I, a)] - x[parent(I)]``.
    rhs: (e, f), the right-hand sides: the unit vector on row 0.
  """

  payoff: sparse.csr_matrix
  constraints: Tuple[sparse.csr_matrix, sparse.csr_matrix]
  rhs: Tuple[np.ndarray, np.ndarray]


@dataclasses.dataclass(frozen=True)
class SequenceFormSolution:
  """Optimal realization plans of both players.

  Attributes:
    value: the game value for player 0, from player 0's maximin LP.
    value_from_player_1: the same value from player 1's minimax LP (equal up to the LP tolerance;
      the difference bounds the numerical error).
    realization_plans: (x, y), each player's optimal realization plan.
  """

  value: float
  value_from_player_1: float
  realization_plans: Tuple[np.ndarray, np.ndarray]


@dataclasses.dataclass(frozen=True)
class GameSolution:
  """An exact equilibrium of an OpenSpiel game.

  Attributes:
    value: the game value for player 0.
    value_from_player_1: the value from player 1's LP (see ``SequenceFormSolution``).
    policy: an equilibrium of the game as a ``TabularPolicy`` covering both players.
    realization_plans: (x, y) in the sequence numbering of ``tree``.
    tree: the ``GameTree`` the LP was built from.
  """

  value: float
  value_from_player_1: float
  policy: policy_lib.TabularPolicy
  realization_plans: Tuple[np.ndarray, np.ndarray]
  tree: game_tree_lib.GameTree


def maximin_realization_plan(payoff: sparse.spmatrix, own_constraints: sparse.spmatrix,
                             own_rhs: np.ndarray, opponent_constraints: sparse.spmatrix,
                             opponent_rhs: np.ndarray) -> Tuple[float, np.ndarray]:
  """Solves the row player's maximin LP ``max_x min_y x^T A y`` in sequence form.

  The LP (Koller, Megiddo, von Stengel 1996, section 4; von Stengel 1996, Theorem 4.4):
  maximise f^T q subject to F^T q - A^T x <= 0, E x = e, x >= 0, q free, where q are the dual
  variables of the opponent's best-response problem ``min_y x^T A y, F y = f, y >= 0``.

  Args:
    payoff: (n, m) matrix A of the row player's payoffs between sequences.
    own_constraints: (k, n) matrix E of the row player's sequence constraints.
    own_rhs: (k,) right-hand side e.
    opponent_constraints: (l, m) matrix F of the column player's constraints.
    opponent_rhs: (l,) right-hand side f.

  Returns:
    (v, x): the maximin value and an optimal realization plan of the row player.

  Raises:
    ValueError: if the shapes do not fit together or the LP has no optimal solution.
  """
  lp = _MaximinLP(payoff, own_constraints, own_rhs, opponent_constraints, opponent_rhs)
  cost = np.concatenate([np.zeros(lp.n), -lp.f_vec])  # linprog minimises -f^T q.
  solution = lp.solve(cost, lp.a_ub, lp.b_ub)
  return float(-cost @ solution), np.maximum(solution[:lp.n], 0.0)


def sequence_weight_range(payoff: sparse.spmatrix, own_constraints: sparse.spmatrix,
                          own_rhs: np.ndarray, opponent_constraints: sparse.spmatrix,
                          opponent_rhs: np.ndarray, value: float, sequence: int,
                          tolerance: float = 1e-9) -> Tuple[float, float]:
  """Smallest and largest weight x[sequence] over the row player's optimal realization plans.

  The optimal plans form the polytope {x : E x = e, x >= 0, exists q with F^T q <= A^T x and
  f^T q >= v} (the maximin LP's optimal face); two LPs over it minimise and maximise x[sequence].
  For a sequence of a first information set (parent = the empty sequence) the weight is the
  behavioural probability, so this measures how far an equilibrium family extends.

  Args:
    payoff: (n, m) matrix A, as in ``maximin_realization_plan``.
    own_constraints: (k, n) matrix E, as there.
    own_rhs: (k,) right-hand side e, as there.
    opponent_constraints: (l, m) matrix F, as there.
    opponent_rhs: (l,) right-hand side f, as there.
    value: the maximin value v (from ``maximin_realization_plan``).
    sequence: index of the row player's sequence.
    tolerance: the face is taken as f^T q >= v - tolerance, to absorb the rounding of v.

  Returns:
    (min, max) of x[sequence] over the optimal face.

  Raises:
    ValueError: for a sequence index out of range, or shapes that do not fit.
  """
  lp = _MaximinLP(payoff, own_constraints, own_rhs, opponent_constraints, opponent_rhs)
  if not 0 <= sequence < lp.n:
    raise ValueError(f"sequence {sequence} out of range [0, {lp.n})")
  value_row = sparse.hstack([sparse.csr_matrix((1, lp.n)), -sparse.csr_matrix(lp.f_vec)])
  a_ub = sparse.vstack([lp.a_ub, value_row], format="csr")
  b_ub = np.concatenate([lp.b_ub, [tolerance - value]])
  bounds = []
  for sign in (1.0, -1.0):
    cost = np.zeros(lp.n + lp.l)
    cost[sequence] = sign
    bounds.append(float(lp.solve(cost, a_ub, b_ub)[sequence]))
  return bounds[0], bounds[1]


class _MaximinLP:
  """The constraints of the maximin LP over variables [x (n), q (l)]; see
  ``maximin_realization_plan``."""

  def __init__(self, payoff, own_constraints, own_rhs, opponent_constraints, opponent_rhs):
    a = sparse.csr_matrix(payoff, dtype=np.float64)
    e_mat = sparse.csr_matrix(own_constraints, dtype=np.float64)
    f_mat = sparse.csr_matrix(opponent_constraints, dtype=np.float64)
    self.e_vec = np.asarray(own_rhs, dtype=np.float64)
    self.f_vec = np.asarray(opponent_rhs, dtype=np.float64)
    self.n, m = a.shape
    if e_mat.shape[1] != self.n or f_mat.shape[1] != m:
      raise ValueError(f"constraint matrices of shapes {e_mat.shape} and {f_mat.shape} do not "
                       f"fit a payoff matrix of shape {a.shape}")
    if self.e_vec.shape != (e_mat.shape[0],) or self.f_vec.shape != (f_mat.shape[0],):
      raise ValueError(f"right-hand sides of shapes {self.e_vec.shape} and {self.f_vec.shape} "
                       f"do not fit constraint matrices of shapes {e_mat.shape} and "
                       f"{f_mat.shape}")
    self.l = f_mat.shape[0]
    self.a_ub = sparse.hstack([-a.T, f_mat.T], format="csr")  # F^T q - A^T x <= 0.
    self.b_ub = np.zeros(m)
    self.a_eq = sparse.hstack([e_mat, sparse.csr_matrix((e_mat.shape[0], self.l))],
                              format="csr")
    self.bounds = [(0, None)] * self.n + [(None, None)] * self.l

  def solve(self, cost: np.ndarray, a_ub: sparse.csr_matrix, b_ub: np.ndarray) -> np.ndarray:
    """Minimises cost^T [x, q] over the constraints; returns the optimal [x, q]."""
    return solve_lp(cost, a_ub, b_ub, self.a_eq, self.e_vec, self.bounds)


def solve_lp(cost: np.ndarray, a_ub: sparse.spmatrix, b_ub: np.ndarray, a_eq: sparse.spmatrix,
             b_eq: np.ndarray, bounds) -> np.ndarray:
  """Minimises cost^T z subject to a_ub z <= b_ub, a_eq z = b_eq and ``bounds`` (linprog's form).

  HiGHS dual simplex (a vertex) at feasibility tolerances ``_LP_TOLERANCE``; shared with the
  leaf solver of ``leaves.solvers`` so that every sequence-form LP is solved the same way.

  Returns:
    The optimal z.

  Raises:
    ValueError: if HiGHS does not report an optimal solution.
  """
  result = optimize.linprog(
      cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs-ds",
      options={"primal_feasibility_tolerance": _LP_TOLERANCE,
               "dual_feasibility_tolerance": _LP_TOLERANCE})
  if result.status != 0:
    raise ValueError(f"sequence-form LP failed: {result.message}")
  return result.x


def solve_sequence_form(payoff: sparse.spmatrix, constraints_0: sparse.spmatrix,
                        constraints_1: sparse.spmatrix,
                        rhs_0: Optional[np.ndarray] = None,
                        rhs_1: Optional[np.ndarray] = None) -> SequenceFormSolution:
  """Solves a two-player zero-sum game given in sequence form: one LP per player.

  Player 0 solves ``max_x min_y x^T A y`` and player 1 solves ``min_y max_x x^T A y`` (the
  first LP for the game (-A^T, F, f, E, e)); by the minimax theorem both optima equal the value,
  and the pair of optimal plans is an equilibrium (von Stengel 1996, Theorem 4.4).

  Args:
    payoff: (n0, n1) matrix A of player 0's payoffs, A[s0, s1] = sum_z pi_c(z) u_0(z).
    constraints_0: (k0, n0) matrix E, with E x = e for player 0's realization plans.
    constraints_1: (k1, n1) matrix F, with F y = f for player 1's realization plans.
    rhs_0: e; the unit vector on row 0 if None (x[empty] = 1, all other rows 0).
    rhs_1: f; the unit vector on row 0 if None.

  Returns:
    The value and both optimal realization plans.

  Raises:
    ValueError: if the shapes do not fit together or an LP has no optimal solution.
  """
  rhs_0 = _unit_rhs(constraints_0) if rhs_0 is None else rhs_0
  rhs_1 = _unit_rhs(constraints_1) if rhs_1 is None else rhs_1
  payoff = sparse.csr_matrix(payoff, dtype=np.float64)
  value, x = maximin_realization_plan(payoff, constraints_0, rhs_0, constraints_1, rhs_1)
  neg_value, y = maximin_realization_plan(-payoff.T, constraints_1, rhs_1, constraints_0, rhs_0)
  return SequenceFormSolution(value=value, value_from_player_1=-neg_value,
                              realization_plans=(x, y))


def sequence_form(tree: game_tree_lib.GameTree) -> SequenceForm:
  """The sequence-form matrices of a walked game (see ``SequenceForm``).

  Args:
    tree: a ``GameTree`` of a two-player game; for a constant-sum game the payoff is player 0's
      utility, whose maximin strategies are the equilibrium strategies.

  Raises:
    ValueError: for a tree of another number of players or of a general-sum game.
  """
  name = tree.game.get_type().short_name
  if tree.num_players != 2:
    raise ValueError(f"{name}: the sequence form LP needs exactly 2 players, got "
                     f"{tree.num_players}")
  if tree.utility_sum is None:
    raise ValueError(f"{name}: the sequence form LP needs a zero-sum or constant-sum game")
  constraints = tuple(_constraint_matrix(p) for p in tree.players)
  rhs = tuple(_unit_rhs(c) for c in constraints)
  return SequenceForm(payoff=payoff_matrix(tree, tree.chance_reach * tree.utility0),
                      constraints=constraints, rhs=rhs)


def payoff_matrix(tree: game_tree_lib.GameTree, weights: np.ndarray) -> sparse.csr_matrix:
  """The sparse (num_seq_0, num_seq_1) matrix A[s0, s1] = sum of ``weights[z]`` over the terminals
  z with sequences (s0, s1).

  Args:
    tree: the ``GameTree``.
    weights: (num_terminals,) terminal weights of player 0, e.g. pi_c(z) u_0(z) (the game's
      payoff, ``sequence_form``) or a leaf's u_0(z) beta(h(z)) pi_c(z | h(z)).
  """
  shape = (tree.players[0].num_sequences, tree.players[1].num_sequences)
  return sparse.coo_matrix((weights, (tree.terminal_seq[:, 0], tree.terminal_seq[:, 1])),
                           shape=shape).tocsr()  # Duplicate entries are summed.


def solve_game(game: pyspiel.Game,
               max_nodes: int = game_tree_lib.DEFAULT_MAX_NODES) -> GameSolution:
  """Value and an equilibrium of a small two-player zero-sum game with perfect recall.

  Builds the sequence form with one walk of the game (``GameTree.from_game``) and solves one LP
  per player (``solve_sequence_form``). The behavioural policy at information set I is
  sigma(I, a) = x[seq(I, a)] / x[parent(I)] (von Stengel 1996, section 3); where the player's own
  plan does not reach I (x[parent(I)] <= ``UNREACHED_WEIGHT``) the policy is uniform over the
  legal actions. What a player does at sets it never reaches does not change any expected
  utility, so the policy is an equilibrium whatever is chosen there (it is not in general a
  refinement such as a sequential equilibrium).

  Args:
    game: a two-player zero-sum (or constant-sum) sequential OpenSpiel game, Python or C++,
      with perfect recall and explicit chance.
    max_nodes: refuse games with more histories than this.

  Returns:
    The ``GameSolution``.

  Raises:
    ValueError: naming the problem for an unsupported game (not 2 players, not zero- or
      constant-sum, simultaneous moves, sampled chance, imperfect recall, more than
      ``max_nodes`` histories); the number of players and the utility type are checked before
      the walk.
  """
  game_tree_lib.check_two_player_fixed_sum(game, "the sequence form LP")
  tree = game_tree_lib.GameTree.from_game(game, max_nodes=max_nodes)
  form = sequence_form(tree)
  solution = solve_sequence_form(form.payoff, form.constraints[0], form.constraints[1],
                                 form.rhs[0], form.rhs[1])
  tabular = tree.tabular_policy()
  layout = TreeArrays(tree)
  sigma = layout.from_players([behavioural_strategy(p, plan)
                               for p, plan in zip(tree.players, solution.realization_plans)])
  layout.to_tabular(sigma, out=tabular.action_probability_array)
  return GameSolution(value=solution.value, value_from_player_1=solution.value_from_player_1,
                      policy=tabular, realization_plans=solution.realization_plans, tree=tree)


def behavioural_strategy(player: PlayerSequences,
                         plan: np.ndarray) -> np.ndarray:
  """Behaviour strategy of a realization plan: sigma[seq(I, a)] = x[seq(I, a)] / sum_b x[seq(I, b)].

  The denominator equals x[parent(I)] for a feasible plan; information sets whose weight is at
  most ``UNREACHED_WEIGHT`` get the uniform distribution over their legal actions.

  Args:
    player: the player's sequences (from ``GameTree.players``).
    plan: a realization plan over the player's sequences.

  Returns:
    An array over the player's sequences (entry 0, the empty sequence, is 1).
  """
  plan = np.maximum(np.asarray(plan, dtype=np.float64), 0.0)
  sigma = np.ones(player.num_sequences)
  if player.num_infosets == 0:
    return sigma
  infoset = player.seq_infoset[1:]
  weight = np.bincount(infoset, weights=plan[1:], minlength=player.num_infosets)
  reached = weight > UNREACHED_WEIGHT
  uniform = 1.0 / player.num_actions[infoset]
  safe = np.where(reached, weight, 1.0)[infoset]
  sigma[1:] = np.where(reached[infoset], plan[1:] / safe, uniform)
  return sigma


def _constraint_matrix(player: PlayerSequences) -> sparse.csr_matrix:
  """E with row 0: x[0]; row 1 + I: sum_a x[seq(I, a)] - x[parent(I)]."""
  rows = [0]
  cols = [0]
  vals = [1.0]
  seq_rows = 1 + player.seq_infoset[1:]
  rows.extend(seq_rows.tolist())
  cols.extend(range(1, player.num_sequences))
  vals.extend([1.0] * (player.num_sequences - 1))
  rows.extend((1 + np.arange(player.num_infosets)).tolist())
  cols.extend(player.parent_seq.tolist())
  vals.extend([-1.0] * player.num_infosets)
  return sparse.coo_matrix((vals, (rows, cols)),
                           shape=(1 + player.num_infosets, player.num_sequences)).tocsr()


def _unit_rhs(constraints: sparse.spmatrix) -> np.ndarray:
  rhs = np.zeros(constraints.shape[0])
  rhs[0] = 1.0
  return rhs
