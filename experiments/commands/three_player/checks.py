"""The three-player experiment's checks (the package docstring states them): n-player tolerances per
final run, one game and one tree for the two family games, OpenSpiel's C++ CFR = the engine's."""

from typing import List, Sequence

from experiments.commands.three_player.frames import Nearest
from experiments.commands.three_player.frames import final_runs
from experiments.commands.three_player.plan import CFR
from experiments.commands.three_player.plan import CPP_CFR
from experiments.commands.three_player.plan import FAMILY_GAMES
from experiments.harness import checks
from experiments.harness import jobs as jobs_lib
from experiments.harness import references
from experiments.harness import solver_registry
from experiments.harness.checks import Check


def run_checks(results: Sequence[jobs_lib.JobResult], nearest: Nearest) -> List[Check]:
  """The checks of the package docstring (``nearest``: ``frames.nearest_members(results)``)."""
  found = []
  final = final_runs(results)
  for r in final:
    reference = {"players": len(r.values), "family": {} if r.job in nearest else None}
    found += references.n_player_run_checks(r, reference, nearest.get(r.job))
  by_key = {(r.job.game, r.job.solver, r.job.seed, r.job.iterations): r for r in results}
  openspiel_game, our_game = FAMILY_GAMES
  for (game, solver, seed, t), r in by_key.items():
    twin = by_key.get((our_game, solver, seed, t))
    if game == openspiel_game and twin is not None and solver_registry.get_solver(solver).ours:
      for label, a, b in [("NashConv", r.final_nash_conv, twin.final_nash_conv),
                          *[(f"value of player {i}", x, y)
                            for i, (x, y) in enumerate(zip(r.values, twin.values))]]:
        found.append(checks.same_number(
            f"{solver} seed {seed} T={t}: {label} on {our_game} = on {openspiel_game}", b, a,
            f"{openspiel_game} (one game, one tree)"))
  for r in final:
    if r.job.solver != CPP_CFR:
      continue
    engine = next((c for c in final if (c.job.game, c.job.solver) == (r.job.game, CFR)), None)
    if engine is not None and r.job.iterations in engine.solved.iterations:
      at = engine.solved.iterations.index(r.job.iterations)
      found.append(checks.same_number(
          f"{r.job.game} {CPP_CFR} vs {CFR}: NashConv at T={r.job.iterations}", r.final,
          engine.solved.curve[at], f"{solver_registry.get_solver(CFR).label} (same algorithm)"))
  return found
