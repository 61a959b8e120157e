"""Planted reach bugs of CFR, the two a first CFR most often has, in a full-width and a
chance-sampled solver: the quick reference check must fail each (``reference_check``'s
``QUICK_GAMES`` were chosen so that it does).

* ``UnweightedAverageCFR``: the average policy's numerators add sigma(I, a) instead of
  pi_p(h) sigma(I, a), so states that the player rarely reaches weigh every iteration alike.
* ``WrongReachCFR``: regrets weighted by the player's own reach pi_p(h) instead of the
  counterfactual reach pi_{-p}(h) (Zinkevich et al., NeurIPS 2007, define the counterfactual value
  with pi_{-p}).
* ``ChanceSampledCFR``: chance-sampling CFR (Lanctot, Waugh, Zinkevich, Bowling, NeurIPS 2009):
  one outcome drawn at every chance node per walk, with its chance probability, so that the
  sampled counterfactual values are unbiased; correct. ``ChanceSampledWrongReachCFR``: the same
  with the regret reach bug.
"""

import numpy as np
import pyspiel

from external_solvers.simple_cfr import SimpleCFR


class UnweightedAverageCFR(SimpleCFR):
  """``SimpleCFR`` whose average is not weighted by the player's reach."""

  def _average_weight(self, reach: np.ndarray, player: int) -> float:
    return 1.0  # Bug: pi_p(h) left out.


class WrongReachCFR(SimpleCFR):
  """``SimpleCFR`` whose regrets are weighted by the player's own reach."""

  def _regret_weight(self, reach: np.ndarray, player: int) -> float:
    return reach[player]  # Bug: pi_p(h) in place of pi_{-p}(h).


class ChanceSampledCFR(SimpleCFR):
  """``SimpleCFR`` with chance sampling, seeded (``seed``): a sampled solver whose kind is
  "chance-sampled"."""

  def __init__(self, game: pyspiel.Game, seed: int = 0):
    super().__init__(game)
    self._rng = np.random.default_rng(seed)

  def _chance(self, state: pyspiel.State, reach: np.ndarray, updating: int) -> float:
    actions, probabilities = zip(*state.chance_outcomes())
    drawn = actions[self._rng.choice(len(actions), p=np.asarray(probabilities))]
    return self._walk(state.child(drawn), reach, updating)


class ChanceSampledWrongReachCFR(ChanceSampledCFR):
  """``ChanceSampledCFR`` whose regrets are weighted by the player's own reach."""

  def _regret_weight(self, reach: np.ndarray, player: int) -> float:
    return reach[player]  # Bug: pi_p(h) in place of pi_{-p}(h).
