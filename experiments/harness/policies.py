"""Named policies for a game, so that experiments and command lines can say which policy to play.

Names (``POLICY_NAMES`` lists them for help texts):

* ``equilibrium``: an exact equilibrium (``references.reference_equilibrium``): the closed form of
  ``algorithms.exact.kuhn_equilibria`` for the three-card ``kuhn_poker_ante`` games (both rule sets,
  any ante and bet); the default member of the Szafron-Gibson-Sturtevant family
  (``algorithms.exact.kuhn3_equilibria``) for three-player Kuhn poker at ante = bet = 1; else the
  sequence-form LP of ``algorithms.exact.sequence_form_lp`` (any small two-player zero-sum game).
  Other games with more than two players have no known exact equilibrium: the name is refused there;
* ``uniform``: every legal action with equal probability;
* ``always-bet``: always the last legal action (in Kuhn poker Bet, or Call facing a bet);
* ``SOLVER:ITERATIONS``: the average policy of a registered solver
  (``experiments.harness.solver_registry``, e.g. ``cfr:1000``, ``cfr_plus:200``,
  ``cs_cfr:5000``) after that many iterations;
* ``file:PATH``: a policy file written by ``algorithms.file_formats.policy_io``.

Every name resolves to an OpenSpiel ``policy.TabularPolicy`` of the game, covering every player.
"""

import pathlib
from typing import List, Sequence, Tuple

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
import pyspiel

from algorithms.file_formats import policy_io
from experiments.harness import solver_registry
from experiments.harness import solver_runs

# The exact equilibrium behind the name "equilibrium"; also this module's API, for callers.
from experiments.harness.references import Reference  # noqa: F401
from experiments.harness.references import reference_equilibrium

POLICY_NAMES = ("equilibrium", "uniform", "always-bet", "SOLVER:ITERATIONS", "file:PATH")


def always_bet(game: pyspiel.Game) -> policy_lib.TabularPolicy:
  """Probability 1 on the last legal action at every information state."""
  pol = policy_lib.TabularPolicy(game)
  pol.action_probability_array[:] = 0.0
  for row, mask in enumerate(pol.legal_actions_mask):
    pol.action_probability_array[row, mask.nonzero()[0][-1]] = 1.0
  return pol


def solver_policy(game: pyspiel.Game, solver: str, iterations: int, seed: int = 0,
                  progress: bool = False) -> policy_lib.TabularPolicy:
  """The average policy of registered solver ``solver`` after ``iterations`` iterations."""
  instance = solver_registry.get_solver(solver).build(game, seed)
  solver_runs.run_iterations(instance, iterations, description=solver if progress else None)
  return solver_runs.tabular_average_policy(game, instance)


def parse_solver_spec(name: str) -> Tuple[str, int]:
  """Splits ``SOLVER:ITERATIONS``; ValueError unless ITERATIONS is a positive integer."""
  solver, _, count = name.partition(":")
  if not count.isdigit() or int(count) < 1:
    raise ValueError(f"policy {name!r}: ITERATIONS in SOLVER:ITERATIONS must be a positive "
                     f"integer, got {count!r}")
  return solver, int(count)


def check_name(name: str) -> None:
  """Raises ValueError (one line, naming the allowed values) unless ``name`` is well formed: a
  fixed name, ``file:PATH`` with an existing file, or ``SOLVER:ITERATIONS`` with a registered
  solver and a positive count. Cheap, so callers can check every name before any work."""
  if name in ("equilibrium", "uniform", "always-bet"):
    return
  if name.startswith("file:"):
    if not pathlib.Path(name[len("file:"):]).is_file():
      raise ValueError(f"policy {name!r}: no such file {name[len('file:'):]!r}")
    return
  if ":" in name:
    solver, _ = parse_solver_spec(name)
    solver_registry.get_solver(solver)
    return
  raise ValueError(f"unknown policy {name!r}; allowed: {', '.join(POLICY_NAMES)}")


def make_policy(game: pyspiel.Game, name: str, seed: int = 0,
                progress: bool = False) -> policy_lib.TabularPolicy:
  """The policy called ``name`` (see the module docstring) for ``game``.

  Args:
    game: the game.
    name: one of ``POLICY_NAMES``.
    seed: seed of a sampled solver.
    progress: show a progress bar while a solver runs.

  Returns:
    A ``TabularPolicy`` of the game.

  Raises:
    ValueError: one line naming the bad name and the allowed ones.
  """
  check_name(name)
  if name == "equilibrium":
    return reference_equilibrium(game).policy
  if name == "uniform":
    return policy_lib.TabularPolicy(game)
  if name == "always-bet":
    return always_bet(game)
  if name.startswith("file:"):
    return policy_io.load_policy(name[len("file:"):], game)
  solver, iterations = parse_solver_spec(name)
  return solver_policy(game, solver, iterations, seed, progress)


def expected_values(game: pyspiel.Game, seats: Sequence[policy_lib.Policy]) -> List[float]:
  """Every player's exact expected return when player i follows ``seats[i]`` (OpenSpiel's
  ``expected_game_score.policy_value``)."""
  return [float(v) for v in expected_game_score.policy_value(game.new_initial_state(),
                                                             list(seats))]


def expected_value(game: pyspiel.Game, policy_0: policy_lib.Policy,
                   policy_1: policy_lib.Policy) -> float:
  """Player 0's exact expected return in a two-player game when player i follows ``policy_i``."""
  return expected_values(game, [policy_0, policy_1])[0]
