"""Measurement 7's learned leaves: ReBeL's agent with its value networks trained by self-play,
against the exact-leaf agent, on Liar's Dice.

The issue's target: on ``liars_dice(numdice=1,dice_sides=4)`` the agent whose every leaf is
answered by a value network trained by ReBeL's self-play (Brown, Bakhtin, Lerer, Gong, NeurIPS
2020, arXiv 2007.13544, Algorithm 1: ``learning.bootstrap.BootstrapSelfPlay``, ReBeL's
"infostate" layout, the network at every leaf and no exact value anywhere) is at most twice as
exploitable as the agent with exact leaves (``paper_table.agent_seed``: the forest solver to a
stated gap), median over seeds. Per seed (``learned_seed``):

* self-play seeded by the seed: ``rounds`` rounds of ``episodes`` episodes of searches with T
  iterations, each round followed by ``train_steps`` Adam steps of each depth's network on its
  replay buffer (one network per cut: depths d, 2d, ...);
* the learned agent and the exact-leaf agent (same game, lookahead, T and averaging: by default
  Linear CFR, as measurement 7 runs ReBeL's released evaluation) measured by the same
  estimator with the same seed: ``estimate_exploitability(agent, replicates, exact_levels=0,
  seed)``, its plug-in (the paper's protocol: the exploitability of the average of
  ``replicates`` sampled strategies, biased upward) and the lower end of its 95% interval
  (at most the agent's own exploitability); the plug-in is checked against OpenSpiel's
  exploitability of the same policy (``reference``).

Rows: game, seed, kind ("learned" or "exact"), iterations (the agents' T), exploitability (plug-in),
lower_bound, reference, cpu_seconds (self-play's for "learned": its training; the estimate's in
``estimate_seconds``), episodes (self-play's, 0 for "exact"), searches (the estimate's). ``ratios``
puts each seed's learned/exact ratio of the plug-in (the target's) beside both lower bounds, with
their medians (a ratio of lower bounds is not formed: a lower bound can be near 0 or below it).
"""

import dataclasses
import time
from typing import Dict, List, Optional, Tuple

from open_spiel.python.algorithms import exploitability
import pandas as pd

from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.agent.estimate import estimate_exploitability
from algorithms.rebel.learning.bootstrap import BootstrapSelfPlay
from algorithms.rebel.learning.self_play import SelfPlayOptions
from algorithms.rebel.learning.training import TrainingOptions
from experiments.commands.rebel_agent import paper_table
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness.checks import Check

LEARNED, EXACT = "learned", "exact"
CACHE_SIZE = 1_000_000  # Searches the measured agent keeps (``paper_table.agent_seed``'s).


@dataclasses.dataclass(frozen=True)
class LearnedPlan:
  """The budget of one seed.

  Attributes:
    game, lookahead, iterations: the measured agents' game, d and T.
    self_play_iterations: self-play's T; None, the agents' (the paper's runs use one T for
      both; a smaller one here trains at a fraction of the cost of searches at the paper's).
    replicates: the estimate's sampled strategies (and as many for its fit).
    rounds, episodes, train_steps: self-play's rounds, episodes per round, Adam steps per round.
    hidden: the networks' hidden widths; batch_size: their minibatch.
    exploration: self-play's exploring player's random-action probability.
    weighting, tremble: both agents' averaging and tremble (``ReBeLAgent``), self-play's
      searches included.
    leaf_tolerance, leaf_max_iterations, leaves: the exact leaves' (``paper_table.PaperPlan``).
  """

  game: str = paper_table.LD_1X4
  lookahead: int = 2
  iterations: int = 16
  self_play_iterations: Optional[int] = None
  replicates: int = 32
  rounds: int = 200
  episodes: int = 32
  train_steps: int = 200
  hidden: Tuple[int, ...] = (128, 128)
  batch_size: int = 128
  exploration: float = 0.25
  weighting: str = paper_table.PLANS["default"].weighting
  tremble: float = paper_table.PLANS["default"].tremble
  leaves: str = paper_table.PLANS["default"].leaves
  leaf_tolerance: float = paper_table.PLANS["default"].leaf_tolerance
  leaf_max_iterations: int = paper_table.PLANS["default"].leaf_max_iterations
  seeds: int = 5
  target_ratio: Optional[float] = 2.0

  def __post_init__(self):
    if self.self_play_iterations is not None and self.self_play_iterations < 1:
      raise ValueError(f"self_play_iterations must be None or at least 1, not "
                       f"{self.self_play_iterations}")

  @property
  def self_play_t(self) -> int:
    """Self-play's T: ``self_play_iterations``, or the agents' when None."""
    return self.iterations if self.self_play_iterations is None else self.self_play_iterations


# The target on 1 die of 4 faces runs with --full (about 4 CPU minutes of self-play per
# seed); the quick budget runs a tiny plan on 1 die of 2 faces, without a target, so that the
# wiring is exercised; the main job runs none.
PLANS: Dict[str, Optional[LearnedPlan]] = {
    "quick": LearnedPlan(game="liars_dice(numdice=1,dice_sides=2)", iterations=4, replicates=3,
                         rounds=2, episodes=4, train_steps=5, hidden=(8, 8), batch_size=16,
                         seeds=2, target_ratio=None),
    "default": None,
    "full": LearnedPlan(),
}


def learned_seed(plan: LearnedPlan, seed: int) -> List[Dict[str, object]]:
  """The learned and the exact-leaf agents' rows for one seed (module docstring)."""
  game = game_loader.load_game(plan.game)
  start = time.process_time()
  play = BootstrapSelfPlay(
      game, lookahead=plan.lookahead,
      options=SelfPlayOptions(search_iterations=plan.self_play_t, exploration=plan.exploration,
                              episodes_per_round=plan.episodes, train_steps=plan.train_steps,
                              seed=seed),
      training=TrainingOptions(hidden=plan.hidden, batch_size=plan.batch_size),
      outputs="infostate", weighting=plan.weighting, tremble=plan.tremble)
  for _ in range(plan.rounds):
    play.run_round()
  training_seconds = time.process_time() - start
  agent = play.agent(plan.iterations, cache_size=CACHE_SIZE)
  start = time.process_time()
  estimate = estimate_exploitability(agent, replicates=plan.replicates, exact_levels=0, seed=seed)
  seconds = time.process_time() - start
  reference = exploitability.exploitability(game, tabular_policy(agent, estimate.behaviour))
  learned = {"game": plan.game, "seed": seed, "kind": LEARNED, "iterations": plan.iterations,
             "exploitability": float(estimate.plug_in),
             "lower_bound": float(estimate.interval[0]), "reference": float(reference),
             "cpu_seconds": training_seconds, "estimate_seconds": seconds,
             "episodes": plan.rounds * plan.episodes, "searches": agent.searches_run}
  exact = paper_table.agent_seed(plan.game, plan.lookahead, plan.iterations, plan.replicates,
                                 seed, plan.leaf_tolerance, plan.leaf_max_iterations,
                                 plan.weighting, plan.tremble, plan.leaves,
                                 hands=0)  # Its time per hand is not reported: not timed.
  return [learned, {"game": plan.game, "seed": seed, "kind": EXACT, "iterations": plan.iterations,
                    "exploitability": exact["exploitability"],
                    "lower_bound": exact["lower_bound"], "reference": exact["reference"],
                    "cpu_seconds": 0.0, "estimate_seconds": exact["cpu_seconds"],
                    "episodes": 0, "searches": exact["searches"]}]


def learned_task(seed: int, **fields) -> pd.DataFrame:
  """``learned_seed``'s rows as a frame, for the plan with these fields (a task's arguments are
  plain values)."""
  return pd.DataFrame(learned_seed(LearnedPlan(**dict(fields, hidden=tuple(fields["hidden"]))),
                                   seed))


def ratios(rows: pd.DataFrame) -> pd.DataFrame:
  """Per game and seed, learned / exact of the plug-in, and both lower bounds; then a row per
  game with the medians over its seeds (seed "median")."""
  keys = ["game", "seed"]
  by_kind = {kind: rows[rows.kind == kind].set_index(keys) for kind in (LEARNED, EXACT)}
  learned, exact = by_kind[LEARNED], by_kind[EXACT].loc[by_kind[LEARNED].index]
  out = pd.DataFrame({"learned": learned.exploitability, "exact": exact.exploitability,
                      "ratio": learned.exploitability / exact.exploitability,
                      "learned lower bound": learned.lower_bound,
                      "exact lower bound": exact.lower_bound}).reset_index()
  medians = out.groupby("game", sort=False).median(numeric_only=True).reset_index()
  medians["seed"] = "median"
  return pd.concat([out.astype({"seed": object}), medians[out.columns]], ignore_index=True)


def learned_checks(plan: LearnedPlan, rows: pd.DataFrame, table: pd.DataFrame) -> List[Check]:
  """Each plug-in against OpenSpiel's exploitability of the same policy; with a target, the
  median learned / exact ratio at most ``target_ratio``."""
  out = [checks.same_number(f"measurement 7, learned leaves, {r.game} seed {r.seed} {r.kind}: "
                            "exploitability", r.exploitability, r.reference,
                            "OpenSpiel's exploitability") for r in rows.itertuples()]
  if plan.target_ratio is not None:
    median = table[table.seed == "median"].ratio.iloc[0]
    out.append(checks.at_most(f"measurement 7, learned leaves, {plan.game}: median learned / "
                              "exact", median, plan.target_ratio, "the issue's target"))
  return out
