"""Depth-limited CFR with leaf values from a value function (ReBeL's search with learned leaves).

A value function maps a leaf and a belief over its roots to player 0's value from each root
(``value_function.root_values(leaf, belief) -> (R,)``): ``pbs_value_function.PBSValueFunction``
(learned) or ``ExactValueFunction`` (any leaf solver's values: the "perfect value function").

``ValueFunctionLeafSolver(value_function, continuation)`` puts it behind the leaf-solver interface
of ``cfr_avg`` / ``leaf_solvers``: its ``LeafSolution`` carries the predicted ``root_values`` and,
for the policy, the continuation of a second leaf solver (used only for the reported average
policy, so that a full-game policy exists to measure; a value function has no policy).

``CFRAvgSolver`` computes the trunk's leaf values from the continuation POLICY (step 5 of its
docstring), so it would ignore predicted values. ``ValueLeafCFRAvgSolver`` is the prototype of the
change proposed for ``cfr_avg.py``: step 5 from the solution's per-root values,

    v_i(s) = sum_{roots h: seq_i(h) = s} pi_c(h) pi_{-i}(h) u_i(h),   u_0(h) = root_values[h],
    u_1(h) = (u_0 + u_1 constant sum) - u_0(h),

with pi_{-i} the opponent's current trunk reach (standard) or average reach (modified, then
de-averaged as in ``CFRAvgSolver``). With an exact leaf solver u_0(h) is
``LeafSubgame.root_values`` of the continuation, which is what ``CFRAvgSolver`` sums per terminal,
so the two agree to rounding (tested) wherever the best-response completion does not change the
continuation (always with average beliefs, whose trunk reach is positive everywhere).
"""

from typing import Optional

import numpy as np

from algorithms.cfr_avg import CFRAvgSolver
from algorithms.leaf_solvers import LeafSolution, LeafSolver, uniform_policy
from algorithms.public_tree import LeafSubgame

class ExactValueFunction:
  """A leaf solver's values as a value function: root_values(leaf, belief) of its solution."""

  def __init__(self, solver: LeafSolver):
    self.solver = solver

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    return self.solver(leaf, belief).root_values


class ValueFunctionLeafSolver:
  """A leaf solver whose values come from a value function (module docstring).

  Args:
    value_function: has ``root_values(leaf, belief) -> (R,)``.
    continuation: a leaf solver for the reported continuation policy; uniform play if None.
  """

  def __init__(self, value_function, continuation: Optional[LeafSolver] = None):
    self.value_function = value_function
    self.continuation = continuation

  def __call__(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    policy = (uniform_policy(leaf.arrays) if self.continuation is None
              else self.continuation(leaf, belief).policy)
    return LeafSolution(policy=policy,
                        root_values=np.asarray(self.value_function.root_values(leaf, belief),
                                               dtype=np.float64))


class ValueLeafCFRAvgSolver(CFRAvgSolver):
  """``CFRAvgSolver`` with the trunk's leaf values from the leaf solutions' ``root_values``.

  Prototype of the proposed ``cfr_avg`` change (module docstring); everything else (beliefs,
  averaging, de-averaging, the engine update) is ``CFRAvgSolver``'s.
  """

  def _leaf_values(self, player: Optional[int], leaf_sigma: np.ndarray,
                   value_reach: np.ndarray, w: float, previous_total: float) -> np.ndarray:
    a = self._arrays
    constant_sum = float(a.tree.utility_sum)
    out = np.zeros(a.num_sequences)
    for i in ((0, 1) if player is None else (player,)):
      values = np.zeros(a.num_sequences)
      for leaf in self._public_tree.leaves:
        u0 = self._last_solutions[leaf.public_state].root_values
        u = u0 if i == 0 else constant_sum - u0
        np.add.at(values, leaf.root_seq[:, i],
                  leaf.root_chance * value_reach[leaf.root_seq[:, 1 - i]] * u)
      if self.variant == "modified":
        values, self._previous_values[i] = ((self._total_weight * values - previous_total *
                                             self._previous_values[i]) / w, values)
      out += values
    return out
