"""The measurements read from the jobs' results (``results_frame``): one row per run and measuring
point with the exploitability and the run's value errors, and at the final iteration OpenSpiel's
exploitability, the trunk exploitability (``trunk_exploitability``: the trunk average with the
best continuation) and, on kuhn_poker at depth 1, the averaged call with Q facing a bet;
``with_exact_baseline`` adds the exact leaves' exploitability at the same T."""

import functools
import math
from typing import Dict, List, Sequence, Tuple

from open_spiel.python import policy as policy_lib
import pandas as pd

from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.public_tree import PublicTree
from algorithms.rebel.trunk_exploitability import trunk_exploitability
from experiments.commands.rebel_learned.plan import KUHN
from experiments.commands.rebel_learned.plan import CutSetting
from experiments.commands.rebel_learned.sweep import FULL_GAME
from experiments.commands.rebel_learned.sweep import Sweep
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib

# Player 1's information state "holding Q (card 1), facing a bet" at Kuhn's leaf b: it calls with
# probability 1/3 in every equilibrium of kuhn_poker (Kuhn 1950).
Q_FACING_BET = "1b"


@functools.lru_cache(maxsize=None)
def public_tree(cut: CutSetting) -> PublicTree:
  """The cut's ``PublicTree`` (built once per process)."""
  return cut_of(game_loader.load_game(cut[0]), cut[1])[0]


def tabular(game_string: str, table: Dict[str, List[float]]) -> policy_lib.TabularPolicy:
  """A kept policy table as OpenSpiel's ``TabularPolicy``."""
  policy = policy_lib.TabularPolicy(game_loader.load_game(game_string))
  for state, probabilities in table.items():
    policy.action_probability_array[policy.state_lookup[state]] = probabilities
  return policy


def trunk_of(cut: CutSetting, result: jobs_lib.JobResult) -> float:
  """The trunk exploitability of the job's final average policy at ``cut``."""
  tree = public_tree(cut)
  sequence = TreeEvaluator(tree.tree).sequence_policy(tabular(cut[0], result.solved.policy))
  return trunk_exploitability(tree, sequence)


def results_frame(sweep: Sweep, results: Sequence[jobs_lib.JobResult]) -> pd.DataFrame:
  """One row per (run, measuring point): exploitability, and at the final point the trunk
  exploitability and the run's extras."""
  rows = []
  trunks: Dict[Tuple[jobs_lib.Job, CutSetting], float] = {}
  for result in results:
    for run in sweep.jobs[result.job]:
      key = (result.job, run.cut)
      if key not in trunks:
        trunks[key] = trunk_of(run.cut, result) if result.job.solver != FULL_GAME else math.nan
      base = {"job": result.job.key, "part": run.part, "game": run.cut[0], "depth": run.cut[1],
              "leaves": run.leaves, "variant": run.variant, "label": run.label,
              "seed": run.seed, "round": run.round, **dict(run.extra)}
      for t, e in zip(result.solved.iterations, result.solved.curve):
        final = t == result.job.iterations
        rows.append(dict(base, iteration=t, exploitability=e,
                         openspiel=result.solved.openspiel if final else math.nan,
                         trunk=trunks[key] if final else math.nan,
                         q_call=_q_call(run.cut, result) if final else math.nan))
  return pd.DataFrame(rows)


def _q_call(cut: CutSetting, result: jobs_lib.JobResult) -> float:
  """Player 1's averaged probability of calling a bet holding Q (kuhn_poker, depth 1)."""
  if cut != (KUHN, 1):
    return math.nan
  return float(result.solved.policy[Q_FACING_BET][1])


def finals(frame: pd.DataFrame) -> pd.DataFrame:
  return frame[frame.trunk.notna() | frame.openspiel.notna()]


def with_exact_baseline(frame: pd.DataFrame) -> pd.DataFrame:
  """Adds to every final row the exact-leaves exploitability of its cut at the same T."""
  exact = finals(frame[(frame.leaves == "exact") & (frame.variant == "standard")])
  baseline = {(r.game, r.depth, r.iteration): r.exploitability
              for r in exact.itertuples(index=False)}
  frame = frame.copy()
  frame["exact_exploitability"] = [baseline.get((g, d, t), math.nan) for g, d, t in
                                   zip(frame.game, frame.depth, frame.iteration)]
  return frame
