"""The three-player experiment's tables from its jobs' results: NashConv along each run, every run's
values and nearest family member, the runs whose values are plotted, and the report's summaries.
"""

from typing import Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from algorithms.exact import kuhn3_equilibria
from experiments.commands.three_player.plan import FAMILY_GAMES
from experiments.commands.three_player.plan import PLAYERS
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import references
from experiments.harness import solver_registry

Nearest = Dict[jobs_lib.Job, kuhn3_equilibria.NearestMember]


def final_runs(results: Sequence[jobs_lib.JobResult]) -> List[jobs_lib.JobResult]:
  """The runs to each (game, solver, seed)'s full budget (those with measuring points)."""
  longest: Dict[Tuple[str, str, int], jobs_lib.JobResult] = {}
  for r in results:
    key = (r.job.game, r.job.solver, r.job.seed)
    if key not in longest or r.job.iterations > longest[key].job.iterations:
      longest[key] = r
  return list(longest.values())


def curve_frame(results: Sequence[jobs_lib.JobResult]) -> pd.DataFrame:
  """One row per (final run, measuring point): game, solver, seed, iteration, seconds,
  NashConv."""
  rows = [{"game": r.job.game, "solver": r.job.solver, "seed": r.job.seed, "iteration": t,
           "seconds": sec, "nash_conv": e}
          for r in final_runs(results)
          for t, sec, e in zip(r.solved.iterations, r.solved.seconds, r.solved.curve)]
  return pd.DataFrame(rows, columns=["game", "solver", "seed", "iteration", "seconds",
                                     "nash_conv"])


def nearest_members(results: Sequence[jobs_lib.JobResult]) -> Nearest:
  """The family member nearest each final run on a game of the family."""
  return {r.job: references.nearest_kuhn3_member(r) for r in final_runs(results)
          if references.has_kuhn3_family(
              game_loader.load_game(r.job.game, two_player_zero_sum=False))}


def runs_frame(results: Sequence[jobs_lib.JobResult], nearest: Nearest) -> pd.DataFrame:
  """One row per run (every trajectory point): NashConv, every player's value and, for the runs
  in ``nearest``, the nearest member (sub-family, beta, free parameters, distance) and its
  values."""
  rows = []
  for r in results:
    row = {"game": r.job.game, "solver": r.job.solver, "seed": r.job.seed,
           "T": r.job.iterations, "nash_conv": r.final_nash_conv,
           **{f"value_{i}": v for i, v in enumerate(r.values)}}
    if r.job in nearest:
      member = nearest[r.job].member
      row.update({"sub_family": member.sub_family, "beta": float(member.beta),
                  **{name: float(v) for name, v in member.parameters().items()},
                  "distance": nearest[r.job].distance,
                  "max_deviation": nearest[r.job].max_deviation,
                  **{f"member_value_{i}": float(v) for i, v in enumerate(member.values)}})
    rows.append(row)
  return pd.DataFrame(rows)


def log_slope(curve: pd.DataFrame) -> float:
  """The least-squares slope of log NashConv against log T over the last decade of iterations
  (NashConv ~ T^slope; -1/2 is CFR's two-player bound rate)."""
  last = curve[curve.iteration >= curve.iteration.max() / 10]
  if len(last) < 2 or (last.nash_conv <= 0).any():
    return float("nan")
  return float(np.polyfit(np.log(last.iteration), np.log(last.nash_conv), 1)[0])


def value_runs(runs: pd.DataFrame, game_strings: Sequence[str]) -> pd.DataFrame:
  """The runs on ``game_strings`` whose values are plotted: per (solver, seed), those of the game
  where it ran the most iterations (the engine's runs on the two family games are identical),
  leaving out the short runs of OpenSpiel's solvers on Python games (``PYTHON_GAME_ITERATIONS``)."""
  selected = runs[runs.game.isin(game_strings)]
  keep = []
  for (_, solver), group in selected.groupby(["seed", "solver"], sort=False):
    best = group.loc[group["T"].idxmax(), "game"]
    spec = solver_registry.get_solver(solver)
    if spec.ours or not game_loader.is_python_game(
        game_loader.load_game(best, two_player_zero_sum=False)):
      keep.append(group[group.game == best])
  return pd.concat(keep) if keep else selected.iloc[0:0]


def _span(values: pd.Series, digits: int = 3) -> str:
  """"x" for one distinct value, else "min to max"."""
  low, high = float(values.min()), float(values.max())
  return f"{low:.{digits}g}" if low == high else f"{low:.{digits}g} to {high:.{digits}g}"


def summary_frame(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
  """Per final run: NashConv, its fitted slope (``log_slope``), the values and, on the family's
  games, the nearest member. The engine's runs on ``kuhn_poker_ante(players=3)`` are left out:
  they equal those on ``kuhn_poker(players=3)`` (checked)."""
  final = runs.loc[runs.groupby(["game", "solver", "seed"])["T"].idxmax()]
  rows = []
  for _, r in final.iterrows():
    if r.game == FAMILY_GAMES[1] and solver_registry.get_solver(r.solver).ours:
      continue
    curve = curves[(curves.game == r.game) & (curves.solver == r.solver)
                   & (curves.seed == r.seed)]
    row = {"game": r.game, "solver": r.solver, "seed": r.seed, "T": r["T"],
           "NashConv": r.nash_conv, "slope": log_slope(curve),
           "values": ", ".join(f"{r[f'value_{i}']:+.5f}" for i in range(PLAYERS)),
           "nearest member": "-", "distance": "-"}
    if isinstance(r.get("sub_family"), str):
      names = kuhn3_equilibria.free_parameters(r.sub_family)
      row.update({"nearest member": f"{r.sub_family}: beta = {r.beta:.4f}; "
                  + ", ".join(f"{n} = {r[n]:.3f}" for n in names),
                  "distance": f"{r.distance:.3g}"})
    rows.append(row)
  return pd.DataFrame(rows, columns=["game", "solver", "seed", "T", "NashConv", "slope", "values",
                                     "nearest member", "distance"])


def member_frame(runs: pd.DataFrame) -> pd.DataFrame:
  """Per solver, over its seeds: the family member its average policy approaches on the family's
  games (sub-families, beta, distance) at its final T, with NashConv there."""
  data = value_runs(runs, FAMILY_GAMES)
  if data.empty or "sub_family" not in data:
    return pd.DataFrame()
  final = data.loc[data.groupby(["solver", "seed"])["T"].idxmax()]
  rows = []
  for solver, group in final.groupby("solver", sort=False):
    rows.append({"solver": solver_registry.get_solver(solver).label, "T": int(group["T"].max()),
                 "seeds": len(group), "NashConv": _span(group.nash_conv),
                 "sub-family": ", ".join(sorted(set(group.sub_family))),
                 "beta": _span(group.beta), "P0 value": _span(group.value_0, 4),
                 "P2 value": _span(group.value_2, 4), "distance": _span(group.distance, 2)})
  return pd.DataFrame(rows)
