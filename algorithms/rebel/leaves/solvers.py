"""Leaf solvers for depth-limited CFR (CFR-D, CFR-AVG): from a leaf PBS to a continuation.

A leaf solver is a callable ``solver(leaf, belief) -> LeafSolution``: given a ``LeafSubgame`` (the
game below one leaf public state, see ``public_tree``) and a belief beta over its root histories
(the PBS), it returns a continuation policy for both players below the leaf and player 0's
expected utility from each root under it; the PBS value is sum_h beta(h) u_0(h).

* ``SequenceFormLPSolver`` (the default of ``CFRAvgSolver``): an exact equilibrium from one
  linear program that holds both players' sequence-form LPs (Koller, Megiddo, von Stengel, GEB
  1996; von Stengel, GEB 1996). The constraint matrices are built once per leaf; only the payoff
  matrix, A[s0, s1] = sum_z beta(h(z)) pi_c(z | h(z)) u_0(z), changes with the belief. A leaf in
  which only one player acts is solved exactly without an LP, by that player's best response.
* ``CFRLeafSolver``: N iterations of the project's CFR engine on the leaf; its average policy is an
  approximate equilibrium, to measure what inexact leaves cost.

Other leaf solvers: ``leaves.hedge.HedgeLeafSolver`` (continuous in the belief) and
``leaves.leaf_values.ValueFunctionLeafSolver`` (values from a value function). The project's
leaf solvers are recorded in checkpoints and in the solver registry by their JSON descriptions
(``leaves.specs``); any other callable cannot be serialised.

``complete_with_best_response`` is the completion of step 4 in ``cfr_avg``'s docstring: an
equilibrium leaves a player's play arbitrary where the PBS gives the player's own plan zero mass,
but CFR-D's trunk regrets need counterfactual best-response values there (Burch et al., AAAI
2014, Section 4), so those information sets get a best response to the opponent's continuation.
"""

import dataclasses
from typing import Callable, Dict, Optional, Tuple

import numpy as np
from scipy import sparse

from algorithms.cfr import tree_passes
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.exact import sequence_form_lp
from algorithms.rebel.public_tree import LeafSubgame
from algorithms.tree.tree_layout import TreeArrays

# Own-plan mass at or below which a leaf information set counts as not reached by the PBS.
UNREACHED_MASS = sequence_form_lp.UNREACHED_WEIGHT
# Relative difference of two action values below which a one-player leaf counts them as tied.
TIE_TOLERANCE = 1e-12


@dataclasses.dataclass(frozen=True)
class LeafSolution:
  """A continuation below one leaf.

  Attributes:
    policy: float array (G_leaf,) over the leaf's sequences in the layout of ``leaf.arrays``
      (behavioural probabilities; 1 on the two empty sequences).
    root_values: float array (R,), player 0's expected utility from each root history; or (R, 2),
      each player's own value u_i(h) from each root (a value function with one output per player
      and private state; ``leaf_step.player_values``).
  """

  policy: np.ndarray
  root_values: np.ndarray

  def value(self, belief: np.ndarray) -> float:
    """Player 0's value of the PBS: sum_h beta(h) u_0(h)."""
    values = np.asarray(self.root_values)
    return float(belief @ (values if values.ndim == 1 else values[:, 0]))


LeafSolver = Callable[[LeafSubgame, np.ndarray], LeafSolution]


def uniform_policy(arrays: TreeArrays) -> np.ndarray:
  """The uniform policy (G,) of a ``TreeArrays``."""
  n = arrays.num_players
  policy = np.ones(arrays.num_sequences)
  policy[n:] = 1.0 / arrays.infoset_num_actions[arrays.seq_infoset[n:]]
  return policy


def best_response(arrays: TreeArrays, weighted_utility: np.ndarray, policy: np.ndarray,
                  player: int, split_ties: bool = False) -> np.ndarray:
  """``policy`` with ``player``'s part replaced by a best response to the rest.

  With terminal weights wu(z) (utility times whatever weights the roots carry), the best
  response maximises q(I, a) = c[seq(I, a)] + sum_{J below (I, a)} max_b q(J, b), with
  c[s] = sum_{z: seq_player(z) = s} wu_player(z) x_opp(seq_opp(z)) (sequence-form best response;
  Johanson et al., IJCAI 2011). Ties go to the first legal action (a pure best response), or,
  with ``split_ties``, are split equally among the tied actions (within ``TIE_TOLERANCE`` of the
  largest |q| of the player): what CFR plays from its second iteration on at a decision whose
  best actions tie, so that a leaf's values are those of the play of a search at the leaf
  (``leaf_step``).

  Args:
    arrays: the game's ``TreeArrays``.
    weighted_utility: (T, 2) terminal weights.
    policy: (G,) both players' behavioural policy; the opponent's part is used.
    player: 0 or 1.
    split_ties: split ties equally instead of taking the first tied action.

  Returns:
    A new (G,) array.
  """
  x = tree_passes.realization(arrays, policy)
  q = tree_passes.terminal_values(arrays, x, weighted_utility, player)
  best = tree_passes.best_response_backup(arrays, q)
  items = np.arange(2, arrays.num_sequences)
  infoset = arrays.seq_infoset[2:]
  mine = arrays.seq_player[2:] == player
  out = policy.copy()
  if split_ties:
    scale = float(np.abs(q[2:][mine]).max(initial=0.0))
    is_best = (q[2:] >= best[infoset] - TIE_TOLERANCE * scale) & mine
    count = np.bincount(infoset[is_best], minlength=arrays.num_infosets)
    out[2:][mine] = is_best[mine] / np.maximum(count[infoset[mine]], 1)
    return out
  is_best = (q[2:] >= best[infoset]) & mine
  first = np.full(arrays.num_infosets, arrays.num_sequences, dtype=np.int64)
  np.minimum.at(first, infoset[is_best], items[is_best])
  out[2:][mine] = (first[infoset[mine]] == items[mine]).astype(np.float64)
  return out


def complete_with_best_response(leaf: LeafSubgame, policy: np.ndarray, belief: np.ndarray,
                                counterfactual_weights: np.ndarray) -> np.ndarray:
  """Gives best responses where the PBS leaves a player's continuation arbitrary.

  For player i and leaf information set J let m_i(J) = sum_{h in J} beta(root(h))
  pi_c(h | root) x_i(h) (the PBS mass under i's own continuation) and
  c_i(J) = sum_{h in J} omega_i(root(h)) pi_c(h | root) x_{-i}(h) (i's counterfactual mass, with
  omega_i the counterfactual root weights: chance times the opponent's trunk reach). Where
  m_i(J) <= ``UNREACHED_MASS`` and c_i(J) > 0 the equilibrium says nothing about J but i's
  counterfactual values depend on it; there i plays a best response to the opponent's
  continuation under the weights omega_i. Both players are completed against the other's
  uncompleted continuation: where one player is completed, the other's counterfactual weight is
  zero (the PBS mass vanishes through the first player's own trunk reach), so the two
  completions do not interact.

  Args:
    leaf: the leaf.
    policy: (G_leaf,) an equilibrium of the leaf at ``belief``.
    belief: (R,) the PBS.
    counterfactual_weights: (R, 2), omega_i(h) for each root and player i.

  Returns:
    The completed policy (a new array).
  """
  a = leaf.arrays
  t = leaf.tree
  x = tree_passes.realization(a, policy)
  out = policy.copy()
  for i in leaf.acting_players:
    nodes = np.flatnonzero(t.node_player == i)
    sets = a.global_infoset[i][t.node_infoset[nodes]]
    own = x[a.global_seq[i][t.node_seq[nodes, i]]]
    opp = x[a.global_seq[1 - i][t.node_seq[nodes, 1 - i]]]
    chance = leaf.node_chance[nodes]
    roots = leaf.node_root[nodes]
    mass = np.bincount(sets, belief[roots] * chance * own, minlength=a.num_infosets)
    cf_mass = np.bincount(sets, counterfactual_weights[roots, i] * chance * opp,
                          minlength=a.num_infosets)
    complete = (mass <= UNREACHED_MASS) & (cf_mass > 0) & (a.infoset_player == i)
    if not complete.any():
      continue
    response = best_response(a, leaf.weighted_utility(counterfactual_weights[:, i]), policy, i)
    seqs = 2 + np.flatnonzero(complete[a.seq_infoset[2:]])
    out[seqs] = response[seqs]
  return out


class SequenceFormLPSolver:
  """Exact leaf equilibria from the sequence-form LP, both players in one ``linprog`` call.

  With A(beta) the leaf's payoff matrix at belief beta, E x = e and F y = f the players'
  sequence constraints, the LP over [x, q, y, p] is

      minimise  -f^T q + e^T p
      subject to  F^T q - A^T x <= 0,  A y - E^T p <= 0,  E x = e,  F y = f,  x, y >= 0,

  the sum of player 0's maximin LP (max f^T q; Koller, Megiddo, von Stengel 1996) and player 1's
  minimax LP (min e^T p); the two parts share no variable, so its optima are pairs of optimal
  plans, and at the optimum f^T q = e^T p = the PBS value. A leaf in which one player acts
  (the other has no information set) is solved by that player's best response under the weights
  beta(h) pi_c(z | h), which is exact; ``split_ties=True`` plays tied actions equally there
  (``best_response``; the default of ReBeL's agent with CFR-D), else the first of them. The
  per-leaf matrices are cached, and so is the last solution: a call with the same leaf and
  belief as the previous one returns the same ``LeafSolution`` (e.g. when the LP both supplies a
  value function's values and the continuation).
  """

  # The accuracy report of an approximate leaf solver (``forest.ForestCFRLeafSolver``): the LP is
  # exact, so no bound on a leaf's gap and no call stopped short.
  largest_gap = 0.0
  capped_calls = 0

  def __init__(self, split_ties: bool = False):
    self.split_ties = bool(split_ties)
    self._cache: Dict[int, Tuple[LeafSubgame, dict]] = {}
    self._last: Optional[Tuple[LeafSubgame, np.ndarray, LeafSolution]] = None

  def _matrices(self, leaf: LeafSubgame) -> dict:
    entry = self._cache.get(id(leaf))
    if entry is not None and entry[0] is leaf:
      return entry[1]
    form = sequence_form_lp.sequence_form(leaf.tree)
    e_mat, f_mat = form.constraints
    k0, n0 = e_mat.shape
    k1, n1 = f_mat.shape
    a_eq = sparse.bmat([[e_mat, sparse.csr_matrix((k0, k1)), sparse.csr_matrix((k0, n1)),
                         sparse.csr_matrix((k0, k0))],
                        [sparse.csr_matrix((k1, n0)), sparse.csr_matrix((k1, k1)), f_mat,
                         sparse.csr_matrix((k1, k0))]], format="csr")
    data = {
        "sizes": (n0, k1, n1, k0), "e": e_mat, "f": f_mat,
        "a_eq": a_eq, "b_eq": np.concatenate(form.rhs),
        "cost": np.concatenate([np.zeros(n0), -form.rhs[1], np.zeros(n1), form.rhs[0]]),
        "bounds": [(0, None)] * n0 + [(None, None)] * k1 + [(0, None)] * n1 +
                  [(None, None)] * k0,
    }
    self._cache[id(leaf)] = (leaf, data)
    return data

  def __call__(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    last = self._last
    if last is not None and last[0] is leaf and np.array_equal(last[1], belief):
      return last[2]
    solution = self._solve(leaf, belief)
    self._last = (leaf, np.array(belief, dtype=np.float64), solution)
    return solution

  def _solve(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    a = leaf.arrays
    policy = uniform_policy(a)
    weights = leaf.weighted_utility(belief)
    if len(leaf.acting_players) < 2:
      for player in leaf.acting_players:
        policy = best_response(a, weights, policy, player, split_ties=self.split_ties)
      return LeafSolution(policy=policy, root_values=leaf.root_values(policy))
    m = self._matrices(leaf)
    n0, k1, n1, k0 = m["sizes"]
    payoff = sequence_form_lp.payoff_matrix(leaf.tree, weights[:, 0])
    a_ub = sparse.bmat([[-payoff.T, m["f"].T, None, None],
                        [None, None, payoff, -m["e"].T]], format="csr")
    try:
      z = sequence_form_lp.solve_lp(m["cost"], a_ub, np.zeros(n1 + n0), m["a_eq"], m["b_eq"],
                                    m["bounds"])
    except ValueError as e:
      raise ValueError(f"leaf {leaf.public_state!r}: {e}") from None
    plans = (z[:n0], z[n0 + k1:n0 + k1 + n1])
    policy = a.from_players([sequence_form_lp.behavioural_strategy(p, plan)
                             for p, plan in zip(leaf.tree.players, plans)])
    return LeafSolution(policy=policy, root_values=leaf.root_values(policy))


class CFRLeafSolver:
  """An approximate leaf solver: ``iterations`` of CFR (the project's engine) on the leaf.

  The engine runs on the leaf's ``TreeArrays`` with the terminal weights of the belief,
  u(z) beta(h) pi_c(z | h), from scratch at every call; the continuation is its average policy,
  an O(1/sqrt(N))-equilibrium of the leaf (Zinkevich et al., NeurIPS 2007, Theorem 4).
  """

  def __init__(self, iterations: int, rule: Optional[UpdateRule] = None):
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
      raise ValueError(f"iterations must be an integer >= 1, got {iterations!r}")
    self.iterations = iterations
    self.rule = rule if rule is not None else UpdateRule()

  def __call__(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    engine = CFREngine(leaf.arrays_at(belief), self.rule)
    engine.solve(self.iterations)  # One compiled call; the same as iterating one at a time.
    policy = engine.average()
    return LeafSolution(policy=policy, root_values=leaf.root_values(policy))
