"""ReBeL self-play training curve: value error and search exploitability against training.

For several seeds, ``algorithms.rebel_self_play.SelfPlay`` on one cut; after every round: the
model's value error (``value_errors``, mean over the held-out set of the supervised data's
distribution, and over the leaf PBSs exact CFR-AVG visits), and the exploitability (OpenSpiel's)
of CFR-AVG after ``--eval-iterations`` with the model's leaf values (LP continuation for the
reported policy, as in learned_leaves.py). Prints the mean and the [min, max] band over the seeds
per round; writes ``self_play.csv``.

Run: ``python scripts/rebel_learned/self_play_curve.py [--quick] [--game G] [--depth K]``.
"""

import argparse
import pathlib
import sys

import numpy as np
import pandas as pd
import pyspiel
from open_spiel.python.algorithms import exploitability

import spiel_games  # pylint: disable=unused-import
from algorithms.atomic_file import atomic_write
from algorithms.leaf_solvers import SequenceFormLPSolver
from algorithms.pbs_value_data import supervised_dataset
from algorithms.rebel_self_play import SelfPlay, SelfPlayOptions
from algorithms.value_leaf_solving import ValueFunctionLeafSolver, ValueLeafCFRAvgSolver
from learned_leaves import held_out_error, path_set  # Same folder.


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--quick", action="store_true")
  parser.add_argument("--game", default="kuhn_poker")
  parser.add_argument("--depth", type=int, default=1)
  parser.add_argument("--seeds", type=int, default=3)
  parser.add_argument("--rounds", type=int, default=12)
  parser.add_argument("--eval-iterations", type=int, default=100)
  parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/rebel_learned"))
  args = parser.parse_args(argv)
  rounds, seeds = (3, 2) if args.quick else (args.rounds, args.seeds)
  game = pyspiel.load_game(args.game)
  rows = []
  for seed in range(seeds):
    play = SelfPlay(game, args.depth, SelfPlayOptions(seed=seed))
    held = supervised_dataset(play.public_tree, 100 if args.quick else 300, seed=1000)
    on_path = path_set(game, play.public_tree, args.depth, 100 if args.quick else 400)
    lp = SequenceFormLPSolver()
    for r in range(rounds + 1):
      if r:
        play.run_round()
      model = play.model()
      err = held_out_error(model, play.public_tree, play.cut, held)
      path_err = held_out_error(model, play.public_tree, play.cut, on_path)
      solver = ValueLeafCFRAvgSolver(game, depth_limit=args.depth,
                                     leaf_solver=ValueFunctionLeafSolver(model, lp))
      solver.solve(args.eval_iterations)
      row = {"seed": seed, "round": r, "examples": 0 if play.buffer is None else len(play.buffer),
             "train_steps": play.trainer.steps_done, "err_mean": err[0], "err_max": err[1],
             "path_err_mean": path_err[0], "path_err_max": path_err[1],
             "exploitability": float(exploitability.exploitability(game,
                                                                   solver.average_policy()))}
      rows.append(row)
      print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in row.items()), flush=True)
  frame = pd.DataFrame(rows)
  args.out.mkdir(parents=True, exist_ok=True)
  atomic_write(args.out / "self_play.csv", lambda tmp: frame.to_csv(tmp, index=False))
  band = frame.groupby("round").agg(
      steps=("train_steps", "first"), examples=("examples", "mean"),
      err_mean=("err_mean", "mean"), path_err=("path_err_mean", "mean"),
      exploit_mean=("exploitability", "mean"), exploit_min=("exploitability", "min"),
      exploit_max=("exploitability", "max"))
  print(band.to_string(float_format="{:.4g}".format))


if __name__ == "__main__":
  sys.exit(main())
