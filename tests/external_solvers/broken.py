"""Solvers that the reference check must refuse (one line each) or fail: no known interface, a
constructor that raises, policies of the wrong shape or that are not distributions, an MCCFR
whose policy has player 1's actions swapped (on every seed, or on 2 of 5), and solvers that break
on some games only (an error in their iterations, a policy that is not a distribution)."""

from typing import Dict, List

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
import pyspiel

NOT_A_CLASS = 3  # ``--solver external_solvers.broken:NOT_A_CLASS``: not callable.


class NoInterface:
  """Trains, but through none of the interfaces the check knows."""

  def __init__(self, game: pyspiel.Game):
    self._game = game

  def train(self, iterations: int) -> None:
    del iterations


class RaisingConstructor:
  """Its constructor raises, with a message the check must show."""

  def __init__(self, game: pyspiel.Game):
    raise RuntimeError(f"this solver needs a depth_limit option for {game}")


class _FixedPolicy:
  """OpenSpiel's CFR interface around a fixed table {information state: probabilities}."""

  def __init__(self, game: pyspiel.Game):
    self._states = policy_lib.TabularPolicy(game).state_lookup

  def evaluate_and_update_policy(self) -> None:
    pass

  def row(self) -> List[float]:
    raise NotImplementedError

  def average_policy(self) -> Dict[str, List[float]]:
    return {state: self.row() for state in self._states}


class WrongShape(_FixedPolicy):
  """Three probabilities at states with two actions."""

  def row(self) -> List[float]:
    return [0.5, 0.25, 0.25]


class NotADistribution(_FixedPolicy):
  """Probabilities that sum to 1.4."""

  def row(self) -> List[float]:
    return [0.7, 0.7]


class SwappedActionsMCCFR:
  """pyspiel's outcome-sampling MCCFR, seeded, behind OpenSpiel's Python MCCFR interface
  (``iteration()``), whose average policy reads player 1's actions in reverse: a sampled solver
  with an indexing bug, which must fail although its runs vary with the seed."""

  def __init__(self, game: pyspiel.Game, seed: int = 0):
    self._game = game
    self._solver = pyspiel.OutcomeSamplingMCCFRSolver(game, seed=seed)

  def iteration(self) -> None:
    self._solver.run_iteration()

  def average_policy(self) -> policy_lib.TabularPolicy:
    average = self._solver.average_policy()
    table = policy_lib.tabular_policy_from_callable(
        self._game, lambda state: dict(average.action_probabilities(state)))
    for row, state in enumerate(table.states):
      if state.current_player() == 1:
        table.action_probability_array[row] = table.action_probability_array[row][::-1]
    return table


class _WrappedCFR:
  """OpenSpiel's Python ``CFRSolver`` behind its own interface, for the solvers below that
  break on some games only."""

  def __init__(self, game: pyspiel.Game):
    self._game = game
    self._solver = cfr.CFRSolver(game)

  def evaluate_and_update_policy(self) -> None:
    self._solver.evaluate_and_update_policy()

  def average_policy(self) -> policy_lib.TabularPolicy:
    return self._solver.average_policy()


class MemoryErrorOnThreePlayers(_WrappedCFR):
  """Correct on two-player games; its iterations raise MemoryError with more players (built
  without complaint): those games must fail, naming the error, and the others pass."""

  def evaluate_and_update_policy(self) -> None:
    if self._game.num_players() > 2:
      raise MemoryError("regret tables of three players do not fit")
    super().evaluate_and_update_policy()


class NotADistributionOnSimplified(_WrappedCFR):
  """Correct except on the simplified rule set, where its average policy sums to 1.4 at every
  state: those games must fail, naming the state, and the games before and after them pass."""

  def average_policy(self):
    average = super().average_policy()
    if "simplified=True" not in str(self._game):
      return average
    return {state: [0.7, 0.7] for state in average.state_lookup}


class SwappedOnSomeSeeds(SwappedActionsMCCFR):
  """``SwappedActionsMCCFR`` on seeds 1 and 3, correct outcome sampling on the others: the median
  of 5 seeds passes, every run does not."""

  def __init__(self, game: pyspiel.Game, seed: int = 0):
    super().__init__(game, seed)
    self._swapped = seed in (1, 3)

  def average_policy(self) -> policy_lib.TabularPolicy:
    if self._swapped:
      return super().average_policy()
    average = self._solver.average_policy()
    return policy_lib.tabular_policy_from_callable(
        self._game, lambda state: dict(average.action_probabilities(state)))
