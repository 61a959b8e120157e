"""The leaf solvers of the experiment, for the agent and for the stitched policy, and the learned
value functions they use (trained here on LP-labelled leaf PBSs, saved in ``models/``).

A learned value function is one ``PBSValueFunction`` per cut (``learning.value_network``),
trained as in rebel-learned (``learning.dataset.supervised_dataset``, ``learning.training``):
the agent's searches from the root cut after d actions reach leaves at d, 2d, ..., so the agent
gets the models of all those cuts joined (``agent.values_by_cut.ByLeaf``); the stitched policy
(``CFRAvgSolver`` at depth d) gets the depth-d model with the exact LP's continuation.
"""

import dataclasses
import pathlib
from typing import Dict, List, Optional

from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.dataset import supervised_dataset
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.training import train
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.leaves.hedge import HedgeLeafSolver
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import CFRLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from experiments.commands.rebel_agent.plan import CFR_K
from experiments.commands.rebel_agent.plan import EXACT
from experiments.commands.rebel_agent.plan import HEDGE
from experiments.commands.rebel_agent.plan import LEARNED
from experiments.commands.rebel_agent.plan import Plan
from experiments.harness import game_loader
from experiments.harness import plotting


def leaf_depths(game_string: str, lookahead: int) -> List[int]:
  """The depths d, 2d, ... at which the agent's searches have leaves."""
  game = game_loader.load_game(game_string)
  depths = []
  depth = lookahead
  while True:
    try:
      cut_of(game, depth)
    except ValueError:  # No leaf left: the game ends within this cut.
      return depths
    depths.append(depth)
    depth += lookahead


@dataclasses.dataclass
class Models:
  """Trained value functions by (game, depth), trained once and saved in ``folder``."""

  folder: pathlib.Path
  plan: Plan
  seed: int
  trained: Dict[tuple, PBSValueFunction] = dataclasses.field(default_factory=dict)

  def model(self, game_string: str, depth: int) -> PBSValueFunction:
    key = (game_string, depth)
    if key not in self.trained:
      game = game_loader.load_game(game_string)
      tree, domain = cut_of(game, depth)
      data = supervised_dataset(tree, self.plan.examples, self.seed)
      options = TrainingOptions(hidden=self.plan.hidden, steps=self.plan.steps, seed=self.seed)
      model = train(domain, data, options, {"game": game_string, "depth": depth})
      self.folder.mkdir(parents=True, exist_ok=True)
      model.save(str(self.folder / f"{plotting.slug(game_string)}-d{depth}.npz"))
      self.trained[key] = model
    return self.trained[key]


def build(kind: str, game_string: str, lookahead: int, plan: Plan, models: Optional[Models],
          stitched: bool):
  """The leaf solver ``kind`` for the agent (``stitched=False``) or for ``CFRAvgSolver``."""
  if kind == EXACT:
    return None  # The agent's (``agent.agent.splits_ties``) or CFRAvgSolver's own exact LP.
  if kind == CFR_K:
    return CFRLeafSolver(plan.cfr_k)
  if kind == HEDGE:
    return HedgeLeafSolver(*plan.hedge)
  if kind != LEARNED or models is None:
    raise ValueError(f"leaf solver {kind!r} is not available")
  if stitched:
    return ValueFunctionLeafSolver(models.model(game_string, lookahead), SequenceFormLPSolver())
  return ValueFunctionLeafSolver(ByLeaf([models.model(game_string, depth)
                                         for depth in leaf_depths(game_string, lookahead)]),
                                 split_ties=splits_ties())
