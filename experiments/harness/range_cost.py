"""The time of the project's solvers on range vectors: a cost model per number of players, fitted
to measured runs (``solver_registry.SolverSpec.range_seconds`` uses it for estimates and
``--max-minutes``)."""

from typing import NamedTuple, Tuple


class RangeCost(NamedTuple):
  """The time of the project's solvers on range vectors over N cards, as ``solve`` runs them.

  Both parts are linear in N, the work of a pass over the public tree with a vector of N cards
  per node (``algorithms.cfr.range_kernel``): one iteration, an ``evaluate_and_update_policy``
  call (P passes, each with its update), about a + b N seconds; one measure of the average
  policy (``card_policy`` and the exact exploitability or NashConv, 2 P passes without updates),
  about c + e N seconds.

  Attributes:
    iteration: (a, b).
    evaluation: (c, e).
  """

  iteration: Tuple[float, float]
  evaluation: Tuple[float, float]

  def seconds(self, iterations: int, evaluations: int, cards: int) -> float:
    """The time of ``iterations`` iterations and ``evaluations`` measures on ``cards`` cards."""
    (a, b), (c, e) = self.iteration, self.evaluation
    return iterations * (a + b * cards) + evaluations * (c + e * cards)


# RANGE_COSTS[P]: the cost model of a P-player game (standard rules, the larger tree) on range
# vectors. Fitted to RANGE_COST_MEASUREMENTS: each whole run within a factor 2 of the model
# (0.8 to 1.6 times the measured time from 1,000 to 1,000,000 cards), and from 100,000 cards on
# each iteration and measure too (tests/test_experiments/harness/test_range_jobs.py);
# reproduced by ``python -m experiments.scripts.benchmark_range --part cost``. The time per card
# grows with N as the vectors leave the processor's caches (two players: 0.06 us per card and
# iteration at 1,000 to 10,000 cards, 0.14 us at 1,000,000), so a line through the large decks
# overestimates small ones, whose runs take well under a second.
RANGE_COSTS = {2: RangeCost(iteration=(1e-5, 1.2e-7), evaluation=(1e-4, 3.8e-7)),
               3: RangeCost(iteration=(1e-5, 4.6e-7), evaluation=(1e-4, 1.3e-6))}
# (players, cards, seconds of one iteration, of one measure, of a whole ``solve`` of
# RANGE_COST_ITERATIONS iterations measured at RANGE_COST_POINTS points, the final one
# included): our_cfr on kuhn_poker_ante, CPU time of the running thread on this 2-core machine
# at load 15 to 17 (``benchmark_range --part cost``).
RANGE_COST_ITERATIONS, RANGE_COST_POINTS = 100, 17
RANGE_COST_MEASUREMENTS = (
    (2, 1_000, 6.22e-5, 4.82e-4, 0.0138),
    (2, 10_000, 5.63e-4, 2.61e-3, 0.119),
    (2, 100_000, 1.08e-2, 3.55e-2, 1.71),
    (2, 1_000_000, 0.136, 0.450, 23.2),
    (3, 1_000, 2.50e-4, 9.28e-4, 0.0452),
    (3, 10_000, 4.03e-3, 8.83e-3, 0.541),
    (3, 100_000, 4.38e-2, 0.128, 6.75),
    (3, 1_000_000, 0.585, 1.49, 93.0),
)
