"""The constants of the reference check's tolerance models, measured: how far a solver of one kind
gets from the references over games, iteration counts and seeds.

  python -m experiments.scripts.tolerance_constants --solver algorithms:CFRSolver \
      --solver-arg alternating_updates=false            # full width, simultaneous updates
  python -m experiments.scripts.tolerance_constants --solver algorithms:ChanceSamplingCFRSolver \
      --seeds 20 --iterations 2000 10000                # chance sampling, one run per seed

The solver is any ``package.module:Name`` (``experiments.harness.external_solvers``), run once
per seed and measured at every checkpoint T of ``--iterations`` (the runs continue from one
checkpoint to the next). Each measured distance is printed as a multiple of the full-width
alternating tolerance's scale at T (``experiments.harness.solver_kinds``), the number a model's
factor must exceed with a margin:

* exploitability / ((max - min utility) / (16 sqrt(T))) on two-player games;
* max over the checked states of |p(s) - member(s)| / (1 / sqrt(T)), member the closed-form family
  member selected by the run's free parameters (``references.family_checks``);
* NashConv / ((max - min utility) / (8 sqrt(T))) and the largest gap of a player's value to the
  nearest Szafron-Gibson-Sturtevant member's / ((max - min utility) / (32 sqrt(T))) on
  three-player Kuhn poker.

One row per game (the largest ratio over seeds and checkpoints, the median over seeds of the
per-seed largest, and where the largest was met), then the largest over all games.
"""

import argparse
import math
import statistics
from typing import Dict, List, Sequence

from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pandas as pd

from algorithms.exact import kuhn3_equilibria
from experiments.harness import external_solvers
from experiments.harness import game_loader
from experiments.harness import references
from experiments.harness import script_runner
from experiments.harness import solver_check

CHECKPOINTS = (100, 200, 300, 500, 1000, 2000, 3000, 5000, 10000)


def ratios(game_string: str, table, iterations: int) -> Dict[str, float]:
  """The measured distances of one average policy at T as multiples of the tolerances' scales
  (see the module docstring)."""
  game = game_loader.load_game(game_string, two_player_zero_sum=False)
  delta = game.max_utility() - game.min_utility()
  root = math.sqrt(iterations)
  if game.num_players() > 2:
    found = {"NashConv": exploitability.nash_conv(game, table) / (delta / (8 * root))}
    if references.has_kuhn3_family(game):
      values = expected_game_score.policy_value(game.new_initial_state(), [table] * 3)
      member = kuhn3_equilibria.nearest_member(table).member
      gap = max(abs(v - float(m)) for v, m in zip(values, member.values))
      found["family values"] = gap / (delta / (32 * root))
    return found
  found = {"exploitability": exploitability.exploitability(game, table) / (delta / (16 * root))}
  rules = references.kuhn_rules_of(game)
  if rules is not None:
    checked = references.family_checks("", rules, references.policy_probabilities(table), 1.0)
    found["frequencies"] = max(abs(c.value - c.reference) for c in checked) * root
  return found


def measure(solver: external_solvers.ExternalSolver, games: Sequence[str], seeds: int,
            checkpoints: Sequence[int]) -> pd.DataFrame:
  """One row per game, measure, seed and checkpoint: the ratio (see ``ratios``)."""
  rows: List[dict] = []
  for game_string in games:
    game = game_loader.load_game(game_string, two_player_zero_sum=False)
    for seed in range(seeds):
      with external_solvers.seeded_globals(seed):
        instance, interface = solver.build(game, game_string, seed)
        done = 0
        for target in sorted(checkpoints):
          external_solvers.run(instance, interface, target - done)
          done = target
          table = external_solvers.to_tabular(game, instance.average_policy(), solver.name)
          rows += [{"game": game_string, "measure": name, "seed": seed, "T": target,
                    "ratio": value} for name, value in ratios(game_string, table, target).items()]
  return pd.DataFrame(rows)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
  """Per game and measure: the largest ratio and where, and the median over seeds of each seed's
  largest; a last row per measure over all games."""
  rows = []
  for (game, name), group in list(frame.groupby(["game", "measure"], sort=False)) + [
      (("all games", name), group) for name, group in frame.groupby("measure", sort=False)]:
    worst = group.loc[group["ratio"].idxmax()]
    rows.append({"game": game, "measure": name, "largest": worst["ratio"],
                 "at T": int(worst["T"]), "seed": int(worst["seed"]),
                 "median over seeds": statistics.median(group.groupby("seed")["ratio"].max())})
  return pd.DataFrame(rows)


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--solver", required=True, metavar="MODULE:NAME")
  parser.add_argument("--solver-arg", action="append", default=[], metavar="KEY=VALUE")
  parser.add_argument("--game", action="append", metavar="GAME_STRING",
                      help="default: the quick games of the reference check")
  parser.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1 (default 1)")
  parser.add_argument("--iterations", type=int, nargs="+", default=list(CHECKPOINTS),
                      metavar="T", help="checkpoints (default %(default)s)")
  args = parser.parse_args(argv)
  solver = external_solvers.ExternalSolver.from_spec(
      args.solver, external_solvers.parse_options(args.solver_arg))
  frame = measure(solver, args.game or list(solver_check.QUICK_GAMES), args.seeds,
                  args.iterations)
  print(summary(frame).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
  return 0


if __name__ == "__main__":
  script_runner.run(main)
