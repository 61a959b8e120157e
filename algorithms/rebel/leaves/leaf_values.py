"""Value functions behind the leaf-solver interface: ReBeL's search with learned leaf values.

A value function maps a leaf and a belief over its roots to player 0's value from each root,
``value_function.root_values(leaf, belief) -> (R,)``:

* ``learning.value_network.PBSValueFunction``: a learned one (ReBeL's value network);
* ``ExactValueFunction``: a leaf solver's values, the "perfect value function" (with the exact LP,
  the leaf subgame's equilibrium values);
* ``PerturbedValueFunction``: another value function plus a smooth perturbation of known size,
  to measure how depth-limited solving degrades with the value error.

``ValueFunctionLeafSolver(value_function, continuation)`` is a leaf solver
(``leaves.solvers.LeafSolver``) whose ``LeafSolution`` carries the value function's ``root_values``
and, for the policy, the continuation of a second leaf solver (uniform play without one).
At a leaf where only one player acts below the cut (Kuhn's ``b`` and ``pb``) the PBS value is
that player's best response to the belief, max over its pure plans of a belief-weighted sum of
payoffs, which is exact and cheaper than a network evaluation at Kuhn's sizes; there the solver
answers with the exact solver's solution (``SequenceFormLPSolver``, whose one-player path is that
best response, no LP) by default, and with the value function only with ``one_player_exact=False``
(the network everywhere, for the study of its errors; ReBeL queries its network at every leaf).
``CFRAvgSolver`` takes the trunk's leaf values from ``root_values`` (step 5 of its docstring), so
the values drive the search; the continuation only completes the reported average policy into a
full-game policy that can be measured (a value function has no policy). ReBeL (Brown, Bakhtin,
Lerer, Gong, NeurIPS 2020, arXiv 2007.13544, Section 4) plays that continuation by searching
again at the leaf; here the exact LP at the same leaf PBS stands for that search.

All three and the solver have JSON descriptions (``leaves.specs``), so a run with learned
leaves is a solver-registry option and can be checkpointed.
"""

from typing import Optional, Sequence

import numpy as np

from algorithms.rebel.leaves.solvers import LeafSolution
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.rebel.leaves.solvers import uniform_policy
from algorithms.rebel.public_tree import LeafSubgame


class ExactValueFunction:
  """A leaf solver's values as a value function: ``root_values`` of its solution."""

  def __init__(self, solver: LeafSolver):
    self.solver = solver

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    return self.solver(leaf, belief).root_values


def smooth_perturbation(leaf: LeafSubgame, belief: np.ndarray, delta: float,
                        seed: int) -> np.ndarray:
  """The error of ``PerturbedValueFunction`` at the leaf's roots (R,): delta U tanh(A beta + b).

  U is the leaf's largest absolute payoff; A (R x R, entries 3 N(0, 1)) and b (R, entries
  N(0, 1)) are drawn per leaf from ``numpy.random.default_rng([seed, leaf.index])``.
  """
  rng = np.random.default_rng([seed, leaf.index])
  a = 3.0 * rng.normal(size=(leaf.num_roots, leaf.num_roots))
  b = rng.normal(size=leaf.num_roots)
  return delta * float(np.abs(leaf.tree.utility[:, 0]).max()) * np.tanh(a @ belief + b)


class PerturbedValueFunction:
  """``value_function`` plus a fixed smooth perturbation of size at most delta U.

  u~_0(h) = u_0(h) + delta U tanh((A beta + b)_h) (``smooth_perturbation``). Every per-root
  value is off by at most delta U, so every counterfactual value at the PBS, a belief-weighted
  sum of per-root values (``learning.value_network.value_errors``), is off by at most delta U too;
  the perturbation is a smooth function of the belief, as a trained network's error is.
  With ``public_states`` only the leaves of those public states are perturbed (the others get
  ``value_function``'s values unchanged), to find which leaf an agent's error comes from.

  Args:
    value_function: the values perturbed (e.g. an ``ExactValueFunction``).
    delta: the size, in units of U (>= 0).
    seed: seeds A and b.
    public_states: the public states (``LeafSubgame.public_state``, e.g. Kuhn's "p") whose
      leaves are perturbed; every leaf if None.
  """

  def __init__(self, value_function, delta: float, seed: int = 0,
               public_states: Optional[Sequence[str]] = None):
    if not delta >= 0:
      raise ValueError(f"delta must be >= 0, got {delta!r}")
    if public_states is not None and (isinstance(public_states, str) or not all(
        isinstance(state, str) for state in public_states)):
      raise ValueError(f"public_states must be a list of public state strings or None, "
                       f"got {public_states!r}")
    self.value_function = value_function
    self.delta = float(delta)
    self.seed = int(seed)
    self.public_states = None if public_states is None else tuple(public_states)

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    values = np.asarray(self.value_function.root_values(leaf, belief), dtype=np.float64)
    if self.public_states is not None and leaf.public_state not in self.public_states:
      return values
    return values + smooth_perturbation(leaf, belief, self.delta, self.seed)


class ValueFunctionLeafSolver:
  """A leaf solver whose values come from a value function (module docstring).

  Args:
    value_function: has ``root_values(leaf, belief) -> (R,)``.
    continuation: a leaf solver for the reported continuation policy; uniform play if None.
    one_player_exact: at a leaf where fewer than two players act, the exact best response
      (policy and values) instead of the value function (module docstring).
    split_ties: that best response plays exactly tied actions equally
      (``SequenceFormLPSolver``'s option; ``agent.agent.splits_ties`` for an agent's search).
  """

  def __init__(self, value_function, continuation: Optional[LeafSolver] = None,
               one_player_exact: bool = True, split_ties: bool = False):
    self.value_function = value_function
    self.continuation = continuation
    self.one_player_exact = bool(one_player_exact)
    self.split_ties = bool(split_ties)
    self._exact = SequenceFormLPSolver(split_ties=split_ties)

  def __call__(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    if self.one_player_exact and len(leaf.acting_players) < 2:
      return self._exact(leaf, belief)
    policy = (uniform_policy(leaf.arrays) if self.continuation is None
              else self.continuation(leaf, belief).policy)
    return LeafSolution(policy=policy,
                        root_values=np.asarray(self.value_function.root_values(leaf, belief),
                                               dtype=np.float64))
