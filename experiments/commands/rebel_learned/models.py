"""Each cut's data sets and value-function models, and their value errors.

The data sets (training, held-out, on-path) are LP-labelled leaf PBSs; the models are the
supervised networks after each training budget and ReBeL's self-play models after each round,
all kept in the ``Store``. ``errors`` measures a model, or the exact values plus a smooth
perturbation, by ``value_errors`` (the largest error of a counterfactual value at the PBS).
"""

import dataclasses
from typing import List, Optional, Tuple

import numpy as np
import pyspiel

from algorithms import CFRAvgSolver
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.dataset import supervised_dataset
from algorithms.rebel.learning.self_play import SelfPlay
from algorithms.rebel.learning.self_play import SelfPlayOptions
from algorithms.rebel.learning.training import Trainer
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.value_network import LeafDomain
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.learning.value_network import deal_belief
from algorithms.rebel.learning.value_network import value_errors
from algorithms.rebel.leaves.leaf_values import smooth_perturbation
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.rebel.public_tree import PublicTree
from experiments.commands.rebel_learned.artifacts import Store
from experiments.commands.rebel_learned.plan import CutSetting
from experiments.commands.rebel_learned.plan import Plan
from experiments.commands.rebel_learned.plan import cut_slug
from experiments.harness import game_loader


def on_path_dataset(game: pyspiel.Game, tree: PublicTree, depth: int,
                    iterations: int) -> Dataset:
  """The leaf PBSs exact CFR-AVG visits in iterations (T/2, T], labelled by the LP: the beliefs
  where the value function's error matters (the equilibrium trunk makes the opponent
  indifferent there, where the exact values have a kink)."""
  solver = CFRAvgSolver(game, depth_limit=depth)
  leaf_index, beliefs = [], []
  for t in range(1, iterations + 1):
    solver.evaluate_and_update_policy()
    if t > iterations // 2:
      for index, leaf in enumerate(tree.leaves):
        leaf_index.append(index)
        beliefs.append(deal_belief(leaf, solver.last_leaf_beliefs()[leaf.public_state]))
  lp = SequenceFormLPSolver()
  beliefs = np.array(beliefs)
  values = np.zeros_like(beliefs)
  for k, (index, belief) in enumerate(zip(leaf_index, beliefs)):
    leaf = tree.leaves[index]
    values[k, leaf.deals] = lp(leaf, belief[leaf.deals]).root_values
  return Dataset(np.array(leaf_index, dtype=np.int64), beliefs, values)


@dataclasses.dataclass
class CutData:
  """A cut's public tree, its value functions' leaf domain and its data sets."""

  cut: CutSetting
  game: pyspiel.Game
  tree: PublicTree
  domain: LeafDomain
  train: Dataset
  held_out: Dataset
  on_path: Dataset


def cut_data(store: Store, cut: CutSetting, plan: Plan, seed: int) -> CutData:
  game = game_loader.load_game(cut[0])
  tree, domain = cut_of(game, cut[1])
  slug = cut_slug(cut)
  train = store.dataset(f"{slug}-train", {"examples": plan.examples, "seed": seed},
                        lambda: supervised_dataset(tree, plan.examples, seed=seed))
  held = store.dataset(f"{slug}-held-out", {"examples": plan.held_out, "seed": seed + 1000},
                       lambda: supervised_dataset(tree, plan.held_out, seed=seed + 1000))
  path = store.dataset(f"{slug}-on-path", {"iterations": plan.path_iterations},
                       lambda: on_path_dataset(game, tree, cut[1], plan.path_iterations))
  return CutData(cut, game, tree, domain, train, held, path)


def supervised_models(store: Store, data: CutData, plan: Plan, data_seed: int,
                      seed: int) -> List[PBSValueFunction]:
  """One network (weights and batches from ``seed``) trained on the cut's data (drawn from
  ``data_seed``), saved after each budget of ``plan.steps``."""
  recipe = {"kind": "supervised", "examples": plan.examples, "data_seed": data_seed,
            "hidden": list(plan.hidden), "steps": list(plan.steps), "seed": seed}
  names = [f"{cut_slug(data.cut)}-supervised-s{seed}-steps{n}" for n in plan.steps]

  def train() -> List[PBSValueFunction]:
    trainer = Trainer(data.domain, TrainingOptions(hidden=plan.hidden, seed=seed))
    out = []
    for steps in plan.steps:
      trainer.fit(data.train, steps - trainer.steps_done)
      out.append(trainer.model({"examples": len(data.train)}))
    return out

  return store.models(names, recipe, train)


def self_play_models(store: Store, game: pyspiel.Game, cut: CutSetting, plan: Plan,
                     seed: int) -> List[PBSValueFunction]:
  """ReBeL self-play on ``cut``: the model before training and after every round."""
  options = SelfPlayOptions(search_iterations=plan.search_iterations,
                            episodes_per_round=plan.episodes, train_steps=plan.train_steps,
                            target_iterations=plan.target_iterations, seed=seed)
  recipe = {"kind": "self-play", "options": dataclasses.asdict(options),
            "hidden": list(plan.hidden), "rounds": plan.rounds}
  names = [f"{cut_slug(cut)}-self-play-s{seed}-r{r}" for r in range(plan.rounds + 1)]

  def train() -> List[PBSValueFunction]:
    play = SelfPlay(game, cut[1], options, TrainingOptions(hidden=plan.hidden))
    out = [play.model()]
    for _ in range(plan.rounds):
      play.run_round()
      out.append(play.model())
    return out

  return store.models(names, recipe, train)


def errors(data: CutData, dataset: Dataset, model: Optional[PBSValueFunction] = None,
           delta: float = 0.0, seed: int = 0) -> Tuple[float, float]:
  """(mean, max) over ``dataset`` of the value error (``value_errors``) of ``model``, or without
  one of the exact values plus ``smooth_perturbation(delta, seed)`` (the labels are the LP's)."""
  if model is not None:
    predicted = model.predict(dataset.leaf_index, dataset.beliefs)
  else:
    predicted = dataset.values.copy()
    for k, (index, belief) in enumerate(zip(dataset.leaf_index, dataset.beliefs)):
      leaf = data.tree.leaves[index]
      predicted[k, leaf.deals] += smooth_perturbation(leaf, belief[leaf.deals], delta, seed)
  found = value_errors(data.domain.rules, dataset.beliefs, predicted, dataset.values)
  return float(found.mean()), float(found.max())


def error_columns(data: CutData, model: Optional[PBSValueFunction] = None, delta: float = 0.0,
                  seed: int = 0) -> Tuple[Tuple[str, float], ...]:
  """The held-out and on-path errors as ``Run.extra`` columns."""
  held = errors(data, data.held_out, model, delta, seed)
  path = errors(data, data.on_path, model, delta, seed)
  return (("err_mean", held[0]), ("err_max", held[1]), ("path_err_mean", path[0]),
          ("path_err_max", path[1]))
