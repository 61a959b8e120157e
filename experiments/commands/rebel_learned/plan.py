"""What one run of the experiment computes: the cuts, the budgets (``Plan``, ``PLANS``) and the
options that override them (``plan_of``).

A cut (``CutSetting``) is a game and the depth at which CFR-AVG's search stops and takes leaf
values; ``cut_label`` and ``cut_slug`` name it in figures and in file names.
"""

import argparse
import dataclasses
from typing import Tuple

from experiments.harness import plotting

KUHN = "kuhn_poker"
ANTE = "kuhn_poker_ante(ante=2.0)"
SIMPLIFIED = "kuhn_poker_ante(ante=2.0,simplified=True)"
CutSetting = Tuple[str, int]  # (game string, depth limit): a game and where it is cut
# The tables' T. Every search is measured at every iteration: standard CFR-AVG's exploitability
# oscillates with a period of 10 to 25 iterations near T = 100 (kuhn_poker cut at 1, exact
# leaves: 0.0006 at T = 101, 0.0038 at 106), which a sparse grid would draw as isolated spikes.
TABLE_ITERATIONS = (10, 100, 1000)


@dataclasses.dataclass(frozen=True)
class Plan:
  """What one run computes (``PLANS``; ``--iterations``, ``--rounds``, ``--seeds`` override).

  Attributes:
    cuts: (game, depth) of measurements 1 and 2.
    iterations: T of every search (measurements 1-3).
    examples: supervised training PBSs per leaf; held_out: held-out PBSs per leaf.
    path_iterations: exact CFR-AVG iterations whose leaf PBSs in (T/2, T] form the on-path set.
    hidden: the network's hidden widths; steps: the training budgets (checkpoints of one run).
    model_seeds: supervised models per cut (a band in figure 1 when > 1).
    deltas: sizes of the controlled perturbation (units of the leaf's largest payoff U).
    modified_cuts: the cuts of measurement 3; hedge: (iterations, eta) of the Hedge leaves.
    self_play_cut, rounds, seeds, episodes, train_steps, search_iterations, target_iterations,
      eval_iterations: measurement 4 (``SelfPlayOptions``; eval: the search's T when measured).
  """

  cuts: Tuple[CutSetting, ...]
  iterations: int
  examples: int
  held_out: int
  path_iterations: int
  hidden: Tuple[int, ...]
  steps: Tuple[int, ...]
  model_seeds: int
  deltas: Tuple[float, ...]
  modified_cuts: Tuple[CutSetting, ...]
  hedge: Tuple[int, float]
  self_play_cut: CutSetting
  rounds: int
  seeds: int
  episodes: int
  train_steps: int
  search_iterations: int
  target_iterations: int
  eval_iterations: int


PLANS = {
    "quick": Plan(cuts=((KUHN, 2),), iterations=60, examples=100, held_out=50,
                  path_iterations=40, hidden=(32, 32), steps=(50, 300), model_seeds=1,
                  deltas=(0.03, 0.3), modified_cuts=((KUHN, 2),), hedge=(20, 20.0),
                  self_play_cut=(KUHN, 2), rounds=2, seeds=2, episodes=8, train_steps=100,
                  search_iterations=20, target_iterations=30, eval_iterations=40),
    "default": Plan(cuts=((KUHN, 1), (KUHN, 2), (ANTE, 1), (SIMPLIFIED, 1)), iterations=300,
                    examples=300, held_out=200, path_iterations=200, hidden=(64, 64),
                    steps=(100, 1000), model_seeds=1, deltas=(0.01, 0.1, 0.3),
                    modified_cuts=((KUHN, 1), (KUHN, 2)), hedge=(50, 20.0),
                    self_play_cut=(KUHN, 1), rounds=6, seeds=3, episodes=32, train_steps=300,
                    search_iterations=100, target_iterations=100, eval_iterations=100),
    "full": Plan(cuts=((KUHN, 1), (KUHN, 2), (ANTE, 1), (ANTE, 2), (SIMPLIFIED, 1)),
                 iterations=1000, examples=1000, held_out=300, path_iterations=500,
                 hidden=(256, 256), steps=(100, 1000, 3000), model_seeds=3,
                 deltas=(0.003, 0.01, 0.03, 0.1, 0.3),
                 modified_cuts=((KUHN, 1), (KUHN, 2), (ANTE, 1), (ANTE, 2), (SIMPLIFIED, 1)),
                 hedge=(50, 20.0), self_play_cut=(KUHN, 1), rounds=12, seeds=5, episodes=32,
                 train_steps=300, search_iterations=100, target_iterations=100,
                 eval_iterations=100),
}


def plan_of(args: argparse.Namespace, quick: bool) -> Tuple[str, Plan]:
  """The budget's name and plan, with the options' overrides.

  Raises:
    ValueError: for --full with --quick.
  """
  if args.full and quick:
    raise ValueError("--full and --quick exclude each other; choose one")
  name = "full" if args.full else "quick" if quick else "default"
  plan = PLANS[name]
  overrides = {k: v for k, v in (("iterations", args.iterations), ("rounds", args.rounds),
                                 ("seeds", args.seeds)) if v is not None}
  return name, dataclasses.replace(plan, **overrides)


def cut_label(cut: CutSetting) -> str:
  return f"{cut[0]}, depth {cut[1]}"


def cut_slug(cut: CutSetting) -> str:
  return f"{plotting.slug(cut[0])}-d{cut[1]}"
