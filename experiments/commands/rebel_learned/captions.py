"""The report's text: the section's opening paragraph, built from the plan (``intro``), and the
captions of the four figures (``CAPTIONS``), with the explanations and the literature they cite;
the words are in ``captions.md`` beside this file."""

from experiments.commands.rebel_learned.artifacts import Store
from experiments.commands.rebel_learned.plan import Plan
from experiments.harness import templates

CAPTIONS = templates.load(__package__)


def intro(experiment: str, plan: Plan, budget: str, store: Store, learn: bool) -> str:
  """The opening paragraph: the budget, the networks and data sets, what was computed or reused
  (``experiment``: the command's name, for the long version's command line)."""
  text = CAPTIONS.fill(
      "intro", budget=budget, iterations=plan.iterations,
      hidden=" x ".join(map(str, plan.hidden)), examples=plan.examples,
      steps=", ".join(map(str, plan.steps)), held_out=plan.held_out,
      path_first=plan.path_iterations // 2 + 1, path_last=plan.path_iterations,
      model_seeds=plan.model_seeds, seeds=plan.seeds, rounds=plan.rounds, episodes=plan.episodes,
      train_steps=plan.train_steps, eval_iterations=plan.eval_iterations,
      computed=store.computed, reused=store.reused, experiment=experiment)
  return text if learn else f"{text} {CAPTIONS['no_torch']}"
