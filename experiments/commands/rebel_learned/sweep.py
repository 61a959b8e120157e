"""The run's jobs: every search as a harness job (``Sweep``) and what it stands for (``Run``).

A search is a registered ``CFRAvgSolver`` entry (``solver_name``) whose ``leaf_solver`` option is
replaced by a description (``algorithms.rebel.leaves.specs``): a model file and its weights'
digest, the exact values plus a controlled perturbation, or the exact values themselves; below
the leaves the exact LP's continuation. ``build_sweep`` trains the models first and adds the jobs
of the four measurements.
"""

import dataclasses
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from algorithms.rebel.learning.value_network import PBSValueFunction
from experiments.commands.rebel_learned.artifacts import Store
from experiments.commands.rebel_learned.models import cut_data
from experiments.commands.rebel_learned.models import error_columns
from experiments.commands.rebel_learned.models import self_play_models
from experiments.commands.rebel_learned.models import supervised_models
from experiments.commands.rebel_learned.plan import CutSetting
from experiments.commands.rebel_learned.plan import Plan
from experiments.harness import jobs as jobs_lib

LP = {"name": "SequenceFormLPSolver"}
FULL_GAME = "cfr_avg"  # The registry's CFRAvgSolver without a cut: the engine's full-game CFR.


def value_function_leaves(value_function: Dict[str, Any]) -> Dict[str, Any]:
  """The leaf-solver description: ``value_function``'s values at every leaf (one-player leaves
  included: the experiment measures the values' error), the exact LP's continuation."""
  return {"name": "ValueFunctionLeafSolver", "value_function": value_function,
          "continuation": LP, "one_player_exact": False}


def model_leaves(model: PBSValueFunction) -> Dict[str, Any]:
  return value_function_leaves({"name": "PBSValueFunction", "path": model.path,
                                "sha256": model.digest()})


def perturbed_leaves(delta: float, seed: int) -> Dict[str, Any]:
  return value_function_leaves({"name": "PerturbedValueFunction", "delta": delta, "seed": seed,
                                "value_function": {"name": "ExactValueFunction",
                                                   "solver": LP}})


PERFECT_LEAVES = value_function_leaves({"name": "ExactValueFunction", "solver": LP})


@dataclasses.dataclass(frozen=True)
class Run:
  """What a job stands for in the tables.

  Attributes:
    part: "convergence", "error", "modified" or "self-play" (a job may serve several).
    cut: the (game, depth) it belongs to.
    leaves: "exact", "perfect", "learned", "perturbed", "Hedge" or "full-game CFR".
    variant: "standard" or "modified".
    label: the series' name (e.g. "delta=0.1", "steps=1000").
    seed: the model's seed (learned, self-play); None: the run's base seed.
    round: the self-play round, or -1.
    extra: the value function's errors etc.
  """

  part: str
  cut: CutSetting
  leaves: str
  variant: str = "standard"
  label: str = ""
  seed: Optional[int] = None
  round: int = -1
  extra: Tuple[Tuple[str, float], ...] = ()


class Sweep:
  """The jobs of a run and what each stands for (one job may stand for several runs), every job
  named by ``experiment`` and run with ``seed``."""

  def __init__(self, experiment: str, seed: int):
    self.experiment = experiment
    self.seed = seed
    self.jobs: Dict[jobs_lib.Job, List[Run]] = {}

  def add(self, run: Run, game: str, solver: str, iterations: int,
          leaf_solver: Optional[Dict[str, Any]] = None) -> None:
    job = jobs_lib.Job(
        self.experiment, game, solver, self.seed, iterations,
        measure_at=tuple(range(1, iterations + 1)),  # Every iteration (plan.py says why).
        keep_policy=True,
        options=jobs_lib.options_json({"leaf_solver": leaf_solver}) if leaf_solver else "")
    if run.seed is None:
      run = dataclasses.replace(run, seed=self.seed)
    self.jobs.setdefault(job, []).append(run)


def solver_name(depth: int, variant: str) -> str:
  """The registry entry of CFR-AVG at a depth limit (uniform averaging)."""
  return f"cfr_avg_mod_d{depth}" if variant == "modified" else f"cfr_avg_d{depth}"


def build_sweep(experiment: str, store: Store, plan: Plan, seed: int, learn: bool) -> Sweep:
  """The run's jobs and what each stands for, the models trained (or reused) first;
  ``experiment``: the command's name, each job's ``experiment``."""
  sweep = Sweep(experiment, seed)
  cut_list = list(dict.fromkeys(plan.cuts + plan.modified_cuts + ((plan.self_play_cut,)
                                                                    if learn else ())))
  data = {cut: cut_data(store, cut, plan, seed) for cut in cut_list}
  models: Dict[CutSetting, Dict[int, List[PBSValueFunction]]] = {}
  if learn:
    for cut in dict.fromkeys(plan.cuts + plan.modified_cuts):
      models[cut] = {s: supervised_models(store, data[cut], plan, seed, seed + s)
                     for s in range(plan.model_seeds)}
  t = plan.iterations
  for cut in plan.cuts:
    game, depth = cut
    d = data[cut]
    sweep.add(Run("convergence", cut, "full-game CFR"), game, FULL_GAME, t)
    exact_run = Run("convergence", cut, "exact")
    sweep.add(exact_run, game, solver_name(depth, "standard"), t)
    sweep.add(Run("convergence", cut, "perfect"), game, solver_name(depth, "standard"), t,
              PERFECT_LEAVES)
    for delta in plan.deltas:
      bound = delta * float(np.abs(d.tree.tree.utility[:, 0]).max())  # delta U.
      extra = error_columns(d, delta=delta, seed=seed) + (("bound", bound),)
      sweep.add(Run("error", cut, "perturbed", label=f"delta={delta:g}", extra=extra),
                game, solver_name(depth, "standard"), t, perturbed_leaves(delta, seed))
    for s, trained in models.get(cut, {}).items():
      for steps, model in zip(plan.steps, trained):
        extra = error_columns(d, model)
        runs = [Run("error", cut, "learned", label=f"steps={steps}", seed=seed + s, extra=extra)]
        if steps == plan.steps[-1]:
          runs.append(Run("convergence", cut, "learned", seed=seed + s, extra=extra))
        for run in runs:
          sweep.add(run, game, solver_name(depth, "standard"), t, model_leaves(model))
  hedge = {"name": "HedgeLeafSolver", "iterations": plan.hedge[0], "eta": plan.hedge[1]}
  for cut in plan.modified_cuts:
    game, depth = cut
    for variant in ("standard", "modified"):
      sweep.add(Run("modified", cut, "exact", variant), game, solver_name(depth, variant), t)
      sweep.add(Run("modified", cut, "Hedge", variant), game, solver_name(depth, variant), t,
                hedge)
      if learn:
        sweep.add(Run("modified", cut, "learned", variant), game, solver_name(depth, variant),
                  t, model_leaves(models[cut][0][-1]))
  if learn:
    cut = plan.self_play_cut
    d = data[cut]
    sweep.add(Run("self-play-reference", cut, "exact"), cut[0], solver_name(cut[1], "standard"),
              plan.eval_iterations)
    for s in range(plan.seeds):
      for r, model in enumerate(self_play_models(store, d.game, cut, plan, seed + s)):
        extra = error_columns(d, model) + (("examples", float(model.info.get("examples", 0))),)
        sweep.add(Run("self-play", cut, "learned", label="self-play", seed=seed + s, round=r,
                      extra=extra),
                  cut[0], solver_name(cut[1], "standard"), plan.eval_iterations,
                  model_leaves(model))
  return sweep
