"""The sweep of the three-player experiment: its games, solvers and budgets, the check that every
game has three players, and the jobs (every solver at T / 10 and T, measured along the run to T).
"""

from typing import List, Sequence

import pyspiel

from experiments.harness import arguments
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import solver_registry

NAME = "three-player"
FAMILY_GAMES = ("kuhn_poker(players=3)", "kuhn_poker_ante(players=3)")
NON_UNIT_GAME = "kuhn_poker_ante(players=3,ante=2.0)"
DEFAULT_GAMES = (*FAMILY_GAMES, NON_UNIT_GAME)
DEFAULT_SOLVERS = ("our_cfr", "our_cfr_plus", "our_lcfr", "our_dcfr", "cs_cfr", "cfr_cpp",
                   "mccfr_external_cpp")
PLAYERS = 3  # The experiment's games: every table and figure has one column or panel a player.
ITERATIONS = arguments.Budget(default=3000, quick=200)
PYTHON_GAME_ITERATIONS = arguments.Budget(default=50, quick=10)
SEEDS = arguments.Budget(default=3, quick=2)
TRAJECTORY_DIVISORS = (10,)  # Values are also measured at T / 10.
NUM_MEASURING_POINTS = 20
CFR = "our_cfr"  # The engine's CFR, the reference of OpenSpiel's C++ CFR.
CPP_CFR = "cfr_cpp"


def load_games(game_strings: Sequence[str]) -> List[pyspiel.Game]:
  """The games, each checked to have ``PLAYERS`` players.

  Raises:
    ValueError: one line, for a bad game string or a game with another number of players (the
      first such game, with its number of players).
  """
  games = [game_loader.load_game(g, two_player_zero_sum=False) for g in game_strings]
  for game_string, game in zip(game_strings, games):
    if game.num_players() != PLAYERS:
      raise ValueError(f"game {game_string} has {game.num_players()} players; this experiment "
                       f"needs three-player games (e.g. {FAMILY_GAMES[0]})")
  return games


def solver_budget(game: pyspiel.Game, solver: str, iterations: int,
                  python_iterations: int) -> int:
  """The iterations of ``solver`` on ``game``: T, or ``python_iterations`` for OpenSpiel's solvers
  on a Python game (``game_loader.is_python_game``); times ``SAMPLED_BUDGET_FACTOR`` if sampled."""
  spec = solver_registry.get_solver(solver)
  budget = (min(iterations, python_iterations)
            if not spec.ours and game_loader.is_python_game(game) else iterations)
  return budget * (solver_registry.SAMPLED_BUDGET_FACTOR if spec.sampled else 1)


def trajectory(iterations: int) -> List[int]:
  """T / d for d in ``TRAJECTORY_DIVISORS``, and T (those >= 1, distinct, increasing)."""
  return sorted({iterations // d for d in TRAJECTORY_DIVISORS if iterations // d >= 1}
                | {iterations})


def make_jobs(game_strings: Sequence[str], solvers: Sequence[str], seed: int, num_seeds: int,
              iterations: int, python_iterations: int) -> List[jobs_lib.Job]:
  """The sweep: every solver on every game at every point of its ``trajectory`` (keeping the
  average policy); sampled solvers with seeds seed .. seed + num_seeds - 1. The run to T is
  measured at log-spaced points, including ``python_iterations`` (where OpenSpiel's C++ CFR on a
  Python game is compared with the engine's CFR).

  Raises:
    ValueError: one line, before any job is made: a game without three players
      (``load_games``), or a solver that refuses a game (``jobs.refusal``, through
      ``jobs.runs_on``).
  """
  games = load_games(game_strings)
  found = []
  for game_string, game in zip(game_strings, games):
    for solver in solvers:
      jobs_lib.runs_on(solver, game_string, default_solvers=False)  # Raises if refused.
      spec = solver_registry.get_solver(solver)
      budget = solver_budget(game, solver, iterations, python_iterations)
      points = jobs_lib.measuring_points(budget, NUM_MEASURING_POINTS, (python_iterations,))
      for s in range(seed, seed + (num_seeds if spec.sampled else 1)):
        for t in trajectory(budget):
          found.append(jobs_lib.Job(NAME, game_string, solver, s, t,
                                    measure_at=points if t == budget else (), keep_policy=True))
  return found
