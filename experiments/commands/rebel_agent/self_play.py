"""Measurement 3: which value targets train the better agent on the same budget.

Two self-play runs per seed on ``kuhn_poker``, the agent's lookahead 1 (models for the cuts at
depth 1 and 2), the same rounds, episodes per round, search iterations and Adam steps per model:

* bootstrapped (``learning.bootstrap.BootstrapSelfPlay``, ReBeL's Algorithm 1): the target at a
  visited PBS is the search's own mean root value, with the next cut's model at its leaves;
* CFR(k) at the leaf (``learning.self_play.SelfPlay``, one run per cut, as rebel-learned): the
  target at the visited leaf PBS is a CFR solve of the leaf subgame, no bootstrapping.

One seed per call (``self_play_frame``), so that the experiment runs the seeds as separate tasks.
After every round the agent with the current models (``agent.values_by_cut.ByLeaf``) is
measured exactly (``agent_row``) at T = ``eval_iterations``; after the last round, at every T of
``final_iterations``.
"""

import dataclasses
from typing import List

import pandas as pd

from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.bootstrap import BootstrapSelfPlay
from algorithms.rebel.learning.self_play import SelfPlay
from algorithms.rebel.learning.self_play import SelfPlayOptions
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from experiments.commands.rebel_agent.measure import agent_row
from experiments.harness import game_loader

GAME = "kuhn_poker"
LOOKAHEAD = 1
BOOTSTRAPPED, CFR_TARGETS = "bootstrapped (search root values)", "CFR(k) at the leaf PBS"


@dataclasses.dataclass(frozen=True)
class SelfPlayPlan:
  """Rounds, seeds and per-round budget of measurement 3 (the same for both kinds)."""

  rounds: int
  seeds: int
  episodes: int
  search_iterations: int
  train_steps: int
  target_iterations: int
  hidden: tuple
  eval_iterations: int
  final_iterations: tuple


def self_play_frame(plan: SelfPlayPlan, seed: int, max_searches: int) -> pd.DataFrame:
  """Rows (targets, seed, round, iterations, exploitability) of one seed's two runs (the
  measurement's seeds are 0 to ``plan.seeds`` - 1)."""
  game = game_loader.load_game(GAME)
  rows: List[dict] = []
  training = TrainingOptions(hidden=plan.hidden, seed=seed)
  options = SelfPlayOptions(search_iterations=plan.search_iterations,
                            episodes_per_round=plan.episodes, train_steps=plan.train_steps,
                            target_iterations=plan.target_iterations, seed=seed)
  bootstrap = BootstrapSelfPlay(game, LOOKAHEAD, options, training)
  per_cut = [SelfPlay(game, depth, options, training) for depth in bootstrap.depths]
  for round_ in range(1, plan.rounds + 1):
    bootstrap.run_round()
    for run in per_cut:
      run.run_round()
    last = round_ == plan.rounds
    for targets, models in ((BOOTSTRAPPED, list(bootstrap.models().values())),
                            (CFR_TARGETS, [run.model() for run in per_cut])):
      solver = ValueFunctionLeafSolver(ByLeaf(models), split_ties=splits_ties())
      for t in plan.final_iterations if last else (plan.eval_iterations,):
        row = agent_row(GAME, LOOKAHEAD, t, solver, max_searches)
        rows.append({"targets": targets, "seed": seed, "round": round_, "iterations": t,
                     "exploitability": row["exploitability"]})
  return pd.DataFrame(rows)
