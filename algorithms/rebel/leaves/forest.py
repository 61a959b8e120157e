"""Every leaf of a search solved at once: warm-started CFR+ on the union of the leaves.

A search's leaves are independent games once their beliefs are given, and their union (one
chance root drawing any leaf's root, ``PublicTree.union``) has each leaf's information sets
wholly in that leaf, so CFR on the union is CFR on every leaf at once, each as if alone: regret
matching at an information set reads only its own counterfactual values, which a leaf's weight in
the union scales without changing the policy. One compiled engine call (``CFREngine.solve``) then
does for all leaves what a leaf solver does leaf by leaf, without one LP (or one engine) per leaf
and per pass.

``ForestCFRLeafSolver(tolerance=eps)`` keeps, per set of leaves, one engine whose cumulative
regrets persist from call to call (a warm start: the beliefs of consecutive CFR-D iterations are
close, so the last call's regrets are a good start), and at every call:

1. sets the union's terminal weights to the new beliefs, beta_L(h) / n for each of the n leaves;
2. clears the average numerators and runs CFR (PCFR+ with quadratic averaging by default:
   Farina, Kroer, Sandholm, AAAI 2021) from the kept regrets, ``chunk`` iterations at a time,
   until the average policy's exploitability in the union (``gap``) is at most eps or
   ``max_iterations`` have run;
3. returns, for each leaf, that average policy restricted to the leaf and player 0's value from
   each of its roots under it (``LeafSubgame.root_values``).

So each leaf is solved to a stated accuracy: its own gap is at most n eps (the union weighs it
1/n), and its PBS value lies within 2 n eps of the equilibrium value, where the exact LP
(``solvers.SequenceFormLPSolver``) needs one program per leaf and per pass.
"""

from typing import Dict, List, Sequence, Tuple

import numpy as np

from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.rebel.leaves.solvers import LeafSolution
from algorithms.rebel.leaves.solvers import best_response
from algorithms.rebel.public_tree import LeafSubgame
from algorithms.rebel.public_tree import PublicTree

PCFR_PLUS = UpdateRule.pcfr_plus(2.0)


class _Forest:
  """The union of some leaves, its warm engine and the maps from its sequences to each leaf's."""

  def __init__(self, cut: PublicTree, leaves: Tuple[LeafSubgame, ...], rule: UpdateRule):
    self.union = cut.union(leaves)
    self.engine = CFREngine(self.union.arrays, rule)
    self.offsets = np.cumsum([0] + [leaf.num_roots for leaf in leaves])
    position = np.full(cut.arrays.num_sequences, -1, dtype=np.int64)
    mine = self.union.full_seq >= 0
    position[self.union.full_seq[mine]] = np.flatnonzero(mine)
    # For each leaf: its non-empty sequences and their positions in the union.
    self.iterations_run = 0
    self.largest_gap = 0.0  # The largest bound n * gap(union) on a leaf's gap after a call.
    self.capped_calls = 0  # Calls that ``max_iterations`` stopped above the tolerance.
    self.maps = [(leaf.arrays.num_sequences, np.flatnonzero(leaf.full_seq >= 0),
                  position[leaf.full_seq[leaf.full_seq >= 0]]) for leaf in leaves]

  def solve(self, beliefs: Sequence[np.ndarray], tolerance: float, chunk: int,
            max_iterations: int) -> List[LeafSolution]:
    belief = np.concatenate(beliefs) / len(beliefs)
    engine = self.engine
    engine.arrays = self.union.arrays_at(belief)  # Step 1: the index arrays are shared.
    engine.cumulative[:] = 0.0  # Step 2: the average of this call's iterations only.
    engine.iteration = 0
    while True:
      engine.solve(chunk)
      policy = engine.average()
      union_gap = gap(self.union, belief, policy)
      if union_gap <= tolerance or engine.iteration >= max_iterations:
        break
    self.iterations_run += engine.iteration
    self.largest_gap = max(self.largest_gap, union_gap * len(beliefs))
    self.capped_calls += int(union_gap > tolerance)
    values = self.union.root_values(policy)
    out = []
    for (size, local, union_seq), lo, hi in zip(self.maps, self.offsets[:-1], self.offsets[1:]):
      leaf_policy = np.ones(size)  # 1 on the empty sequences.
      leaf_policy[local] = policy[union_seq]
      out.append(LeafSolution(policy=leaf_policy, root_values=values[lo:hi]))  # Step 3.
    return out


class ForestCFRLeafSolver:
  """Warm-started CFR on the union of the leaves it is asked to solve together, until the union's
  exploitability is at most ``tolerance`` (module docstring).

  Args:
    tolerance: the stopping gap of the union, whose leaves weigh 1/n each: every leaf's own gap
      is then at most n times it.
    rule: the CFR variant (PCFR+ with quadratic averaging by default: Farina, Kroer, Sandholm,
      AAAI 2021).
    chunk: iterations between two checks of the gap.
    max_iterations: the most iterations of one call, whatever the gap.
  """

  def __init__(self, tolerance: float = 1e-5, rule: UpdateRule = PCFR_PLUS, chunk: int = 50,
               max_iterations: int = 2000):
    for name, value in (("chunk", chunk), ("max_iterations", max_iterations)):
      if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if not tolerance > 0:
      raise ValueError(f"tolerance must be > 0, got {tolerance!r}")
    self.tolerance, self.rule = float(tolerance), rule
    self.chunk, self.max_iterations = chunk, max_iterations
    self._forests: Dict[Tuple[int, Tuple[int, ...]], _Forest] = {}

  @property
  def iterations_run(self) -> int:
    """The CFR iterations run by every call so far."""
    return sum(forest.iterations_run for forest in self._forests.values())

  @property
  def largest_gap(self) -> float:
    """The largest bound on one leaf's exploitability at the end of a call so far (n times the
    union's gap; ``tolerance`` times n unless ``max_iterations`` stopped a call first)."""
    return max((forest.largest_gap for forest in self._forests.values()), default=0.0)

  @property
  def capped_calls(self) -> int:
    """The calls so far that ``max_iterations`` stopped before the union's gap reached
    ``tolerance`` (0 when every leaf met its stated accuracy)."""
    return sum(forest.capped_calls for forest in self._forests.values())

  def solve_leaves(self, cut: PublicTree, leaves: Sequence[LeafSubgame],
                   beliefs: Sequence[np.ndarray]) -> List[LeafSolution]:
    """One solution per leaf of ``cut`` (module docstring), the leaves solved together."""
    key = (cut.depth_limit, tuple(leaf.index for leaf in leaves))
    if key not in self._forests:
      self._forests[key] = _Forest(cut, tuple(leaves), self.rule)
    return self._forests[key].solve(beliefs, self.tolerance, self.chunk, self.max_iterations)

  def __call__(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    raise ValueError("ForestCFRLeafSolver solves a cut's leaves together: it is called "
                     "through leaf_step.solve_leaves (the agent's search, CFRAvgSolver)")


def gap(leaf: LeafSubgame, belief: np.ndarray, policy: np.ndarray) -> float:
  """The exploitability of ``policy`` in the leaf at PBS ``belief``.

  gap = (max_y0 u_0(y0, x_1) - min_y1 u_0(x_0, y1)) / 2, the best responses of either player to
  the other's continuation (``solvers.best_response``): 0 exactly at an equilibrium; the PBS
  value of the policy and the equilibrium value both lie in an interval of width 2 gap.
  """
  weighted = leaf.weighted_utility(belief)
  high = leaf.root_values(best_response(leaf.arrays, weighted, policy, 0)) @ belief
  low = leaf.root_values(best_response(leaf.arrays, weighted, policy, 1)) @ belief
  return float(high - low) / 2.0
