"""OpenSpiel's solvers that do not speak its Python CFR interface, adapted to it.

The solver registry (``solver_registry``) runs every solver through one interface, OpenSpiel's
Python ``cfr.CFRSolver``'s: ``evaluate_and_update_policy()`` runs one iteration and
``average_policy()`` returns the average policy as an OpenSpiel ``Policy``. OpenSpiel's Python
CFR solvers speak it already; this module adapts the others:

* ``SeededMCCFR``: OpenSpiel's Python MCCFR (``iteration()``), with a random stream of its own;
* ``CppCFR``: OpenSpiel's C++ CFR (``pyspiel.CFRSolver``), whose average policy is a
  ``pyspiel.TabularPolicy``;
* ``CppMCCFR``: OpenSpiel's C++ MCCFR (``run_iteration()``), seeded.

Solvers from outside the project and OpenSpiel are matched to their interface at run time by
``external_solvers``.
"""

import threading

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import external_sampling_mccfr
from open_spiel.python.algorithms import outcome_sampling_mccfr
import pyspiel

# OpenSpiel's Python MCCFR draws from NumPy's global generator; each solver keeps its own generator
# state and swaps it in under this lock, so that concurrent solvers in one process stay
# reproducible.
_NUMPY_GLOBAL_RNG = threading.Lock()
_MCCFR_PY = {"external": external_sampling_mccfr.ExternalSamplingSolver,
             "outcome": outcome_sampling_mccfr.OutcomeSamplingSolver}
_MCCFR_CPP = {"external": pyspiel.ExternalSamplingMCCFRSolver,
              "outcome": pyspiel.OutcomeSamplingMCCFRSolver}


class SeededMCCFR:
  """OpenSpiel's Python MCCFR (Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for
  regret minimization in extensive games", NeurIPS 2009) behind the CFR interface, with its own
  random stream."""

  def __init__(self, game: pyspiel.Game, *, seed: int, sampler: str):
    self._solver = _MCCFR_PY[sampler](game)
    self._rng_state = np.random.RandomState(seed).get_state()

  def evaluate_and_update_policy(self) -> None:
    with _NUMPY_GLOBAL_RNG:
      saved = np.random.get_state()
      np.random.set_state(self._rng_state)
      try:
        self._solver.iteration()
      finally:
        self._rng_state = np.random.get_state()
        np.random.set_state(saved)

  def average_policy(self) -> policy_lib.Policy:
    return self._solver.average_policy()


class CppCFR:
  """OpenSpiel's C++ CFR (``pyspiel.CFRSolver``) returning a Python ``TabularPolicy``."""

  def __init__(self, game: pyspiel.Game):
    self._game = game
    self._solver = pyspiel.CFRSolver(game)

  def evaluate_and_update_policy(self) -> None:
    self._solver.evaluate_and_update_policy()

  def average_policy(self) -> policy_lib.TabularPolicy:
    return policy_lib.pyspiel_policy_to_python_policy(self._game,
                                                      self._solver.tabular_average_policy())


class CppMCCFR:
  """OpenSpiel's C++ MCCFR (``pyspiel.ExternalSamplingMCCFRSolver`` or
  ``OutcomeSamplingMCCFRSolver``, seeded) behind the CFR interface."""

  def __init__(self, game: pyspiel.Game, *, seed: int, sampler: str):
    self._game = game
    self._solver = _MCCFR_CPP[sampler](game, seed=seed)

  def evaluate_and_update_policy(self) -> None:
    self._solver.run_iteration()

  def average_policy(self) -> policy_lib.TabularPolicy:
    average = self._solver.average_policy()
    return policy_lib.tabular_policy_from_callable(
        self._game, lambda state: dict(average.action_probabilities(state)))
