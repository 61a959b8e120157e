"""CFR-AVG with learned leaf values vs exact leaves vs full-game CFR; exploitability vs value error.

For each game and cut (depth 1 and 2; a cut without a leaf is skipped):

1. supervised data at the cut's leaves (``pbs_value_data``: reaches ~ U(0, 1) per card, exact LP
   labels), a held-out set from another seed;
2. value functions: MLPs (2 x 256, LayerNorm, GELU, Huber) trained for several step budgets, so
   that their held-out errors differ; and the exact values plus a controlled smooth perturbation
   of size delta (``perturbed``), for a clean error axis;
3. for each: the error (``value_errors``: largest error of a counterfactual value at the PBS)
   mean and max over the held-out set and over the leaf PBSs exact CFR-AVG visits (``path_set``);
   exploitability (OpenSpiel's ``exploitability.exploitability``, confirmed by the
   engine's) of CFR-AVG's average policy after T iterations, the trunk's leaf values from the value
   function (``ValueLeafCFRAvgSolver``), the reported continuation from the exact LP at each
   iteration's leaf PBS; standard CFR-AVG (current opponent reach), modified (de-averaged) and
   CFR-D (beliefs of the current policy; the released ReBeL code's choice);
4. references: CFR-AVG with exact leaves and full-game CFR, same T;
5. at the final T, the trunk exploitability (``trunk_exploitability``: the trunk average completed
   by the best continuation), which does not depend on how the continuation is reported.

Run: ``python scripts/rebel_learned/learned_leaves.py [--quick] [--out DIR]`` (needs the
``learn`` extra). Prints markdown tables; writes ``learned_leaves.csv``.
"""

import argparse
import pathlib
import sys
import time

import numpy as np
import pandas as pd
import pyspiel
from open_spiel.python.algorithms import exploitability

import spiel_games  # pylint: disable=unused-import
from algorithms import CFRAvgSolver
from algorithms.atomic_file import atomic_write
from algorithms.leaf_solvers import SequenceFormLPSolver
from algorithms.pbs_value_data import Dataset, supervised_dataset
from algorithms.pbs_value_function import cut_of, deal_belief, value_errors
from algorithms.pbs_value_training import Trainer, TrainingOptions
from algorithms.trunk_exploitability import trunk_exploitability
from algorithms.value_leaf_solving import (ExactValueFunction, ValueFunctionLeafSolver,
                                           ValueLeafCFRAvgSolver)

GAMES = ("kuhn_poker", "kuhn_poker_ante(ante=2.0)", "kuhn_poker_ante(ante=2.0,simplified=true)")
# Algorithm -> (leaf_beliefs, variant) of CFRAvgSolver: CFR-AVG, ReBeL's modified CFR-AVG, and
# CFR-D (leaf beliefs from the current policy, as ReBeL's released Liar's Dice solver queries its
# value network).
ALGORITHMS = {"standard": ("average", "standard"), "modified": ("average", "modified"),
              "CFR-D": ("current", "standard")}
CUTS = ((GAMES[0], 1), (GAMES[0], 2), (GAMES[1], 1), (GAMES[2], 1))  # (GAMES[1], 2) left out: time.


class LastCall:
  """A leaf solver that remembers its last answer: the value function and the continuation of
  one CFR-AVG pass ask the exact solver about the same (leaf, belief) one after the other."""

  def __init__(self, solver):
    self.solver, self.key, self.solution = solver, None, None

  def __call__(self, leaf, belief):
    key = (leaf.public_state, belief.tobytes())
    if key != self.key:
      self.key, self.solution = key, self.solver(leaf, belief)
    return self.solution


class Perturbed:
  """Exact values plus delta (ante + bet) tanh(A [leaf, beta] + b), a fixed smooth function."""

  def __init__(self, cut, delta: float, exact, seed: int = 7):
    rng = np.random.default_rng(seed)
    self.cut, self.delta = cut, delta
    self.a = rng.normal(size=(cut.num_deals, cut.input_size)) * 3.0
    self.b = rng.normal(size=cut.num_deals)
    self.exact = ExactValueFunction(exact)

  def root_values(self, leaf, belief):
    index = self.cut.leaf_index(leaf)
    x = self.cut.features(np.array([index]), deal_belief(leaf, belief)[None])[0]
    noise = self.delta * self.cut.rules.max_utility * np.tanh(self.a @ x + self.b)
    return self.exact.root_values(leaf, belief) + noise[leaf.deals]


def held_out_error(value_function, tree, cut, held):
  predicted = np.zeros_like(held.values)
  for k, (index, belief) in enumerate(zip(held.leaf_index, held.beliefs)):
    leaf = tree.leaves[index]
    predicted[k, leaf.deals] = value_function.root_values(leaf, belief[leaf.deals])
  errors = value_errors(cut.rules, held.beliefs, predicted, held.values)
  return float(errors.mean()), float(errors.max())


def path_set(game, tree, depth, iterations):
  """The leaf PBSs that exact CFR-AVG visits in iterations T/2..T, labelled by the LP: the
  beliefs where the value function's error matters (the trunk's equilibrium makes the opponent
  indifferent there, which is where the exact values jump)."""
  solver = CFRAvgSolver(game, depth_limit=depth)
  leaf_index, beliefs = [], []
  for t in range(1, iterations + 1):
    solver.evaluate_and_update_policy()
    if t > iterations // 2:
      for index, leaf in enumerate(tree.leaves):
        leaf_index.append(index)
        beliefs.append(deal_belief(leaf, solver.last_leaf_beliefs()[leaf.public_state]))
  beliefs = np.array(beliefs)
  values = np.zeros_like(beliefs)
  lp = SequenceFormLPSolver()
  for k, (index, belief) in enumerate(zip(leaf_index, beliefs)):
    leaf = tree.leaves[index]
    values[k, leaf.deals] = lp(leaf, belief[leaf.deals]).root_values
  return Dataset(leaf_index=np.array(leaf_index), beliefs=beliefs, values=values)


def run_cfr(game, solver, marks):
  out = []
  for t in marks:
    solver.solve(t - solver.iteration)
    out.append(float(exploitability.exploitability(game, solver.average_policy())))
  assert abs(out[-1] - solver.exploitability()) < 1e-9  # OpenSpiel = the engine's.
  return out


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--quick", action="store_true")
  parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/rebel_learned"))
  parser.add_argument("--seed", type=int, default=0)
  args = parser.parse_args(argv)
  quick = args.quick
  marks = [10, 100] if quick else [10, 100, 1000]
  budgets = [100, 1000] if quick else [100, 1000, 3000]
  deltas = [0.01, 0.1] if quick else [0.003, 0.03, 0.1]
  cuts = CUTS[:2] if quick else CUTS
  n_train, n_held = (300, 100) if quick else (1000, 300)
  rows = []
  for game_string, depth in cuts:
    game = pyspiel.load_game(game_string)
    tree, cut = cut_of(game, depth)
    t0 = time.time()
    data = supervised_dataset(tree, n_train, seed=args.seed)
    held = supervised_dataset(tree, n_held, seed=args.seed + 1000)
    on_path = path_set(game, tree, depth, 200 if quick else 500)
    base = {"game": game_string, "depth": depth}

    def errors(value_function):
      return (held_out_error(value_function, tree, cut, held) +
              held_out_error(value_function, tree, cut, on_path))

    def record(kind, label, make_solver, err=(0.0,) * 4, variant="standard"):
      solver = make_solver(variant)
      start = time.time()
      curve = run_cfr(game, solver, marks)
      row = dict(base, kind=kind, label=label, variant=variant, err_mean=err[0], err_max=err[1],
                 path_err_mean=err[2], path_err_max=err[3], seconds=time.time() - start,
                 trunk=(trunk_exploitability(solver.public_tree, solver.engine.average())
                        if solver.public_tree is not None else float("nan")))
      row.update({f"T={t}": e for t, e in zip(marks, curve)})
      rows.append(row)
      print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in row.items()), flush=True)

    lp = LastCall(SequenceFormLPSolver())
    record("reference", "full-game CFR", lambda v: CFRAvgSolver(game))
    for variant, (beliefs, kind) in ALGORITHMS.items():
      record("reference", "exact leaves",
             lambda v, b=beliefs, k=kind: CFRAvgSolver(game, depth_limit=depth, leaf_beliefs=b,
                                                       variant=k), variant=variant)

    def with_values(value_function):
      return lambda v: ValueLeafCFRAvgSolver(
          game, depth_limit=depth, leaf_beliefs=ALGORITHMS[v][0], variant=ALGORITHMS[v][1],
          leaf_solver=ValueFunctionLeafSolver(value_function, lp))

    for delta in deltas:
      perturbed = Perturbed(cut, delta, lp)
      err = errors(perturbed)
      record("perturbed", f"delta={delta}", with_values(perturbed), err)
    trainer = Trainer(cut, TrainingOptions(seed=args.seed))
    for steps in budgets:
      trainer.fit(data, steps - trainer.steps_done)
      model = trainer.model()
      err = errors(model)
      for variant in ALGORITHMS if steps == budgets[-1] else ("standard",):
        record("learned", f"steps={steps}", with_values(model), err, variant)
    print(f"# {game_string} depth {depth}: {time.time() - t0:.0f}s", flush=True)
  frame = pd.DataFrame(rows)
  args.out.mkdir(parents=True, exist_ok=True)
  atomic_write(args.out / "learned_leaves.csv", lambda tmp: frame.to_csv(tmp, index=False))
  print(frame.to_string(index=False, float_format="{:.4g}".format))


if __name__ == "__main__":
  sys.exit(main())
