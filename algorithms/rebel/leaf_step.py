"""The leaf PBS of depth-limited CFR (CFR-D, CFR-AVG), for ``cfr_avg`` and the agent's search.

Burch, Johanson, Bowling, "Solving imperfect information games using decomposition" (CFR-D),
AAAI 2014; Brown, Bakhtin, Lerer, Gong, ReBeL, NeurIPS 2020, arXiv 2007.13544 (CFR-AVG).
``belief_from_reaches`` is step 3 of ``cfr_avg``'s docstring: the belief over a leaf's roots
from the trunk reaches, with trembles.

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
ReBeL's released code, too, adds a (much smaller) constant to every reach before normalising.
``TREMBLE`` is large enough for the LP's tolerances (1e-10) to see and small enough that the
values move by about 1e-6 chips. Beliefs from average reaches are never zero (the first
iterate is uniform) and are not trembled.
"""

import numpy as np

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
