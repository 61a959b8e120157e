"""The rebel-agent experiment's words: the caption of every table and figure of its report
section (``CAPTIONS``, from ``captions.md`` beside this file) and the sentences that introduce
measurements 3, 4, 6 and 7 and measurement 7's learned leaves, its templates filled from their
plans."""

from experiments.commands.rebel_agent import learned
from experiments.commands.rebel_agent.paper_learned import LearnedPlan
from experiments.commands.rebel_agent.paper_table import PaperPlan
from experiments.commands.rebel_agent.plan import StakesPlan
from experiments.commands.rebel_agent.self_play import SelfPlayPlan
from experiments.harness import templates

CAPTIONS = templates.load(__package__)


def ratios(values) -> str:
  return ", ".join(f"{r:g}" for r in values)


def self_play_intro(plan: SelfPlayPlan) -> str:
  """The text before measurement 3's table: the budget of every run."""
  return CAPTIONS.fill("self_play_intro", hidden=plan.hidden, rounds=plan.rounds,
                       episodes=plan.episodes, search_iterations=plan.search_iterations,
                       train_steps=plan.train_steps)


def paper_learned_intro(plan: LearnedPlan) -> str:
  """The text before measurement 7's learned-leaf table: the game, self-play and the estimate."""
  return CAPTIONS.fill(
      "paper_learned", game=plan.game, lookahead=plan.lookahead, iterations=plan.iterations,
      weighting=plan.weighting, rounds=plan.rounds, episodes=plan.episodes,
      self_play_iterations=plan.self_play_t,
      replicates=plan.replicates, seeds=plan.seeds)


def stakes_intro(plan: StakesPlan) -> str:
  """The text before measurement 4's table: the deck, the stakes and the models' training."""
  return CAPTIONS.fill(
      "stakes_intro", deck=plan.deck, lowest=min(plan.trained), highest=max(plan.trained),
      hidden=plan.hidden, steps=plan.steps, trained=ratios(plan.trained), examples=plan.examples,
      visits="; ".join(f"lookahead {d}, T = {ratios(ts)}" for d, ts in plan.visits),
      seen=ratios(plan.seen), unseen=ratios(plan.unseen))


def paper_intro(plan: PaperPlan) -> str:
  """The text before measurement 7's table: the search, each game's T and strategies, the leaves."""
  runs = "; ".join(f"{run.game}: T = {run.iterations}, {run.replicates} strategies"
                   for run in plan.runs)
  return CAPTIONS.fill("paper_intro", lookahead=plan.lookahead, weighting=plan.weighting,
                       tremble=plan.tremble, runs=runs, seeds=plan.seeds,
                       leaf_tolerance=plan.leaf_tolerance,
                       baseline_iterations=plan.baseline_iterations)


def learned_intro(plan: learned.LearnedPlan) -> str:
  """The text before measurement 6's table: the networks, their data and the rounds."""
  sampled = (" " + CAPTIONS.fill("learned_sampled", sampled=plan.sampled)) if plan.sampled else ""
  return CAPTIONS.fill(
      "learned_intro", rounds=plan.rounds, seeds=plan.seeds, lookahead=plan.lookahead,
      hidden=plan.hidden, steps=plan.steps, examples=plan.examples,
      visits=", ".join(map(str, plan.visits)), iterations=", ".join(map(str, plan.iterations)),
      hands=plan.hands, sampled=sampled)
