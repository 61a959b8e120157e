"""Speed of OpenSpiel's C++ CFR on a Python game and on its C++ twin (a script, not a test).

  python -m experiments.scripts.benchmark_twin                       # kuhn_poker_ante(deck_size=13)
  python -m experiments.scripts.benchmark_twin --game "kuhn_poker_ante(deck_size=6)" --seconds 5

``pyspiel.CFRSolver`` runs on the Python game (every state call goes back into Python) and on the
game's C++ twin (``spiel_games.cpp_twin``: the same tree as OpenSpiel's ``efg_game``). Each solver
runs whole iterations until ``--seconds`` of solver time have passed (at least two iterations);
the script prints iterations per second of each, their ratio, the one-off cost of building the
twin, and, as a check that both computed the same thing, the NashConv of both average policies
after the same number of iterations (``pyspiel.nash_conv`` on each game).
"""

import argparse
import time
from typing import Optional, Sequence

import pyspiel

from experiments.harness import script_runner
from spiel_games import cpp_twin

DEFAULT_GAME = "kuhn_poker_ante(deck_size=13)"


def iterations_per_second(game: pyspiel.Game, seconds: float, min_iterations: int = 2):
  """(iterations run, solver seconds, the solver) of C++ CFR on ``game`` within ``seconds``."""
  solver = pyspiel.CFRSolver(game)
  done, elapsed = 0, 0.0
  while elapsed < seconds or done < min_iterations:
    start = time.perf_counter()
    solver.evaluate_and_update_policy()
    elapsed += time.perf_counter() - start
    done += 1
  return done, elapsed, solver


def main(argv: Optional[Sequence[str]] = None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.benchmark_twin",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--game", default=DEFAULT_GAME, help=f"game string (default {DEFAULT_GAME})")
  parser.add_argument("--seconds", type=float, default=10.0,
                      help="solver time per game (default 10)")
  args = parser.parse_args(argv)
  game = pyspiel.load_game(args.game)
  start = time.perf_counter()
  twin = cpp_twin.CppTwin(game)
  build = time.perf_counter() - start
  print(f"game {game}: {twin.num_nodes} nodes, twin built in {build:.2f} s")
  n_py, t_py, solver_py = iterations_per_second(game, args.seconds)
  n_cpp, t_cpp, _ = iterations_per_second(twin.twin, args.seconds)
  rate_py, rate_cpp = n_py / t_py, n_cpp / t_cpp
  print(f"C++ CFRSolver on the Python game: {n_py:6d} iterations in {t_py:6.2f} s = "
        f"{rate_py:10.1f} it/s")
  print(f"C++ CFRSolver on the C++ twin:    {n_cpp:6d} iterations in {t_cpp:6.2f} s = "
        f"{rate_cpp:10.1f} it/s")
  print(f"speed ratio twin / Python game: {rate_cpp / rate_py:.1f}")
  _, _, twin_solver = iterations_per_second(twin.twin, 0.0, min_iterations=n_py)
  conv_py = pyspiel.nash_conv(game, solver_py.tabular_average_policy())
  conv_cpp = pyspiel.nash_conv(twin.twin, twin_solver.tabular_average_policy())
  print(f"NashConv after {n_py} iterations: Python game {conv_py:.15f}, twin {conv_cpp:.15f}, "
        f"difference {abs(conv_py - conv_cpp):.1e}")
  return 0


if __name__ == "__main__":
  script_runner.run(main)
