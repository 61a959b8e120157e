"""One leaf step of depth-limited CFR (CFR-D, CFR-AVG), for ``cfr_avg`` and the agent's search.

Burch, Johanson, Bowling, "Solving imperfect information games using decomposition" (CFR-D),
AAAI 2014; Brown, Bakhtin, Lerer, Gong, ReBeL, NeurIPS 2020, arXiv 2007.13544 (CFR-AVG). The
steps of ``cfr_avg``'s docstring that touch the leaves, each written once and called by
``CFRAvgSolver``, ``agent.search`` and (the belief) ``learning.self_play``:

* ``belief_reach``: the trunk reach that forms the leaf beliefs: pi^t's realization plans
  (CFR-D), or those of the average pibar^t with this iteration's pending increment w_t x^t
  (CFR-AVG: step 2 before step 3);
* ``belief_from_reaches``: the leaf PBS from those reaches (step 3), with trembles (below);
* ``leaf_root_values``: the leaf solution completed by best responses where the PBS gives a
  player's own plan zero mass, and each player's value u_i(h) from every root, the completed
  continuation's at a root of zero belief (step 4);
* ``counterfactual_leaf_values``: v_i(s) = sum_{roots h, seq_i(h) = s} omega_i(h) u_i(h) with
  u_1 = c - u_0 (c the utility sum) for a solution of player 0's values (``player_values``) and
  omega_i(h) the root's chance (times the search root's
  belief) times the opponent's current trunk reach (step 5).

Trembles. CFR-D forms the leaf PBS from the current policy pi^t, which is often pure: a private
state the policy never plays into the leaf gets belief 0. The PBS value is then unique but the
leaf equilibrium is not: what the opponent does against a private state of mass 0 is free, and
the counterfactual values of that private state (a supergradient of the PBS value, not unique
where the value has a kink) depend on the choice. The leaf solver picks one (an LP vertex) and the
trunk's regrets use its values; ReBeL's agent then searches again at that PBS, and its CFR,
whose regrets see no mass on that private state, leaves the opponent's choice at a tie, i.e.
uniform. Kuhn poker, d = 1: when pi^t never checks the King, the leaf "p" has player 1's Queen
facing only the Jack; checking and betting both win 1, the LP checks, so the trunk values the
King's check at +1 against the Queen, while the next search bets the Queen with probability 1/2,
against which checking the King is worth 3/2: the agent under-checks the King at every search and
stalls near 0.05 (``tests/test_algorithms/rebel/test_cfr_d_stall.py``). Trembling hands (Selten,
"Reexamination of the perfectness concept for equilibrium points in extensive games", 1975) pin
the choice: with every reach r_i raised to r_i + epsilon, every private state keeps a little
mass, so the leaf solver's equilibrium and the next search's CFR both answer it with a best
response (the Queen checks), and the values the trunk uses are those of the play that follows.
(ReBeL's released code adds 1e-80 to every reach before normalising: a guard against dividing by
zero, not a tremble; at double precision it breaks no tie.)
``TREMBLE`` is large enough for the LP's tolerances (1e-10) to see and small enough that the
values move by about 1e-6 chips. Beliefs from average reaches are never zero (the first
iterate is uniform) and are not trembled. The same mismatch at positive mass, an exact tie of a
player's actions at a one-player leaf, is settled in the leaf solver: it plays tied actions
equally, as the next search's CFR does (``leaves.solvers.best_response``).
"""

from typing import List, Optional, Sequence, Tuple

import numpy as np

from algorithms.cfr import tree_passes
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.rebel.leaves.solvers import LeafSolution
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.rebel.leaves.solvers import complete_with_best_response
from algorithms.rebel.public_tree import LeafSubgame
from algorithms.rebel.public_tree import PublicTree

# Where the leaf beliefs come from: the average policy (CFR-AVG) or the current one (CFR-D).
LEAF_BELIEFS = ("average", "current")
# epsilon of the trembles: added to every trunk reach that forms a belief from current policies.
TREMBLE = 1e-6


def belief_from_reaches(weight: np.ndarray, reaches: np.ndarray, prior: np.ndarray,
                        tremble: float = 0.0) -> np.ndarray:
  """The PBS over a leaf's roots: beta(h) proportional to weight(h) (r_0(h) + e) (r_1(h) + e).

  weight(h) is chance's probability of the root (times the search root's belief in a search);
  r_i the trunk reaches, e = ``tremble``. A player whose (trembled) reach is 0 on every root of
  positive weight is counted with reach 1 (its private state follows the prior: the PBS is
  undefined when a player cannot be there); ``prior`` if the mass is still 0.

  Args:
    weight: (R,) non-negative root weights.
    reaches: (R, 2) both players' trunk reaches at each root.
    prior: (R,) chance's probability of each root (the belief with no information).
    tremble: e >= 0.

  Returns:
    The belief (R,), summing to 1.
  """
  reaches = np.asarray(reaches, dtype=np.float64) + tremble
  for player in (0, 1):
    if not np.any(weight * reaches[:, player] > 0):
      reaches[:, player] = 1.0
  mass = weight * reaches[:, 0] * reaches[:, 1]
  total = mass.sum()
  return mass / total if total > 0 else prior / prior.sum()


def check_choice(name: str, value, allowed: Sequence) -> None:
  """Raises ValueError("<name> must be one of ...") unless ``value`` is in ``allowed``."""
  if value not in allowed:
    raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def check_tremble(tremble) -> float:
  """``tremble`` as a float; ValueError unless it is a number in [0, 1)."""
  if isinstance(tremble, bool) or not isinstance(tremble, (int, float, np.integer, np.floating)) \
      or not 0 <= tremble < 1:
    raise ValueError(f"tremble must be a number in [0, 1), got {tremble!r}")
  return float(tremble)


def tremble_of(leaf_beliefs: str, tremble: float = TREMBLE) -> float:
  """The tremble of the beliefs: ``tremble`` for current-policy reaches, 0 for average ones."""
  return tremble if leaf_beliefs == "current" else 0.0


def belief_reach(engine: CFREngine, leaf_beliefs: str, x: np.ndarray, player: Optional[int],
                 trunk_mask: np.ndarray, leaf_mask: np.ndarray) -> np.ndarray:
  """The trunk reach (G,) that forms the leaf beliefs of a pass (steps 2 and 3).

  "current": x, the realization plans of pi^t. "average": the plans of pibar^t, whose
  numerators include this pass's increment w_t x on the updated player's trunk sequences
  (``CFREngine.average_increment``), uniform (1) below the leaves.
  """
  if leaf_beliefs == "current":
    return x
  average = engine.average(pending=engine.average_increment(player, x) * trunk_mask)
  return tree_passes.realization(engine.arrays, np.where(leaf_mask, 1.0, average))


def player_values(values: np.ndarray, utility_sum: float) -> np.ndarray:
  """Each player's value u_i(h) from every leaf root (R, 2).

  A leaf solution gives player 0's values u_0 (R,), and then u_1 = c - u_0 (c the utility sum of
  the zero-sum or constant-sum game), or each player's own values (R, 2): a value function with
  one output per player and private state (ReBeL's, ``learning.value_network``) predicts
  u_i(h) = V_i(s_i(h)), the value of player i's information set at the PBS, for every root h in
  it, and those two columns need not sum to c.
  """
  values = np.asarray(values, dtype=np.float64)
  if values.ndim == 2:
    return values
  return np.stack([values, utility_sum - values], axis=1)


def leaf_root_values(leaf: LeafSubgame, solution: LeafSolution, belief: np.ndarray,
                     weights: np.ndarray,
                     complete_policy: bool = False) -> Tuple[np.ndarray, np.ndarray]:
  """Step 4: the (completed) continuation and u_i(h) of each player from every root of the leaf.

  u_i(h) is the solution's ``root_values`` (``player_values``), or at a root of belief 0 the
  value of the continuation completed by best responses
  (``leaves.solvers.complete_with_best_response``, Burch et al.'s best-response values). A root of
  positive belief, however small, keeps the solver's value: with trembles every root a player can
  reach has some belief, the leaf solver's equilibrium of the trembled PBS already answers it with
  a best response, and a value function (which has no policy to complete) gives the same values as
  the solver it learned.

  Args:
    leaf: the leaf.
    solution: the leaf solver's solution at ``belief``.
    belief: the leaf PBS (R,).
    weights: (R, 2) omega_i(h), the counterfactual root weights of each player.
    complete_policy: complete the policy even where no root has zero belief (for a reported
      continuation); else the solver's policy is returned unchanged in that case.

  Returns:
    (policy (G_leaf,), u (R, 2): column i holds u_i).
  """
  unreached = belief <= 0
  policy = solution.policy
  if complete_policy or unreached.any():
    policy = complete_with_best_response(leaf, solution.policy, belief, weights)
  utility_sum = float(leaf.tree.utility_sum)
  values = player_values(solution.root_values, utility_sum)
  if unreached.any():
    completed = player_values(leaf.root_values(policy), utility_sum)
    values = np.where(unreached[:, None], completed, values)
  return policy, values


def solve_leaves(leaf_solver: LeafSolver, cut: PublicTree, leaves: Sequence[LeafSubgame],
                 beliefs: Sequence[np.ndarray]) -> List[LeafSolution]:
  """Step 4's solutions of several leaves of ``cut``: in one call for a solver that solves leaves
  together (one with ``solve_leaves(cut, leaves, beliefs)``, ``leaves.forest``), else leaf by
  leaf."""
  together = getattr(leaf_solver, "solve_leaves", None)
  if together is not None:
    return together(cut, leaves, beliefs)
  return [leaf_solver(leaf, belief) for leaf, belief in zip(leaves, beliefs)]


def counterfactual_leaf_values(root_seq: np.ndarray, weights: np.ndarray, values: np.ndarray,
                               player: int, num_sequences: int) -> np.ndarray:
  """Step 5 for one player i: v_i(s) = sum_{roots h, seq_i(h) = s} omega_i(h) u_i(h) (G,).

  Args:
    root_seq: (R, 2) each player's trunk sequence at each root.
    weights: (R, 2) omega_i(h) (column i: the root's weight times player 1 - i's reach).
    values: (R, 2) u_i(h) of each player (``leaf_root_values``).
    player: i.
    num_sequences: G.
  """
  return np.bincount(root_seq[:, player], weights=weights[:, player] * values[:, player],
                     minlength=num_sequences)
