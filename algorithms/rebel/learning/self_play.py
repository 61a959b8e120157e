"""ReBeL self-play for a PBS value function on a depth-limited cut of a Kuhn game.

ReBeL's training loop (Brown, Bakhtin, Lerer, Gong, "Combining Deep Reinforcement Learning and
Search for Imperfect-Information Games", NeurIPS 2020, arXiv 2007.13544, Section 4 and
Algorithm 1), adapted to one cut of a small game. What is implemented:

* **Search with the current value function** at the root PBS: CFR-AVG (``CFRAvgSolver``)
  cut at ``depth_limit``, the trunk's leaf values from the current model (``PBSValueFunction``),
  for ``search_iterations`` = T iterations. Every episode starts at the same root PBS (the
  uniform deal) and the search is deterministic, so it is run once per round and its average
  trunk policy kept after every iteration.
* **Random iteration**: each episode stops the search at t drawn uniformly from {1, ..., T}
  (ReBeL's random-iteration rule, uniform as in its released self-play code) and follows the
  average trunk policy pibar^t, whose Bayes posterior is CFR-AVG's leaf PBS at iteration t.
* **Exploration**: one player per episode, chosen uniformly, takes a uniformly random action with
  probability ``exploration`` (0.25, the released Liar's Dice configuration) at each of its
  trunk decisions; the beliefs are updated with pibar^t as if it had played it (the released
  code updates beliefs with the search policy, not the exploratory one), so exploration changes
  which public states are visited, not the beliefs.
* **Targets**: at the leaf PBS reached, a search rooted there: ``target_solver`` (default
  ``CFRLeafSolver(100)``) on the leaf subgame at that belief; its per-deal root values are the
  training target of (leaf, belief), as ReBeL records the values of the search rooted at each
  PBS it visits. In Kuhn every leaf subgame of the depth-1 and depth-2 cuts ends within two
  actions, so that search runs to the end of the game and needs no value function itself: the
  targets here do not bootstrap (ReBeL's do, through leaves deeper in the game); the root PBS's
  own values are not recorded (the model is never asked about the root).
* **Learning**: the examples of all rounds so far form the replay buffer; after each round the
  network (``learning.training.Trainer``, Adam state kept) takes ``train_steps`` steps on it.

Everything is seeded (numpy ``default_rng(seed)`` for the episodes, the trainer's seed for the
network), so a run is reproducible.
"""

import dataclasses
from typing import List, Optional

import numpy as np
import pyspiel

from algorithms.cfr import tree_passes
from algorithms.rebel.cfr_avg import CFRAvgSolver
from algorithms.rebel.leaf_step import belief_from_reaches
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.training import Trainer
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.learning.value_network import deal_belief
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import CFRLeafSolver
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.tree.game_tree import CHANCE


@dataclasses.dataclass(frozen=True)
class SelfPlayOptions:
  """Self-play hyperparameters (module docstring)."""

  search_iterations: int = 100
  exploration: float = 0.25
  episodes_per_round: int = 32
  train_steps: int = 300
  target_iterations: int = 100
  seed: int = 0


class SelfPlay:
  """ReBeL self-play on one cut: ``run_round()`` plays, records targets and trains.

  Attributes:
    game, public_tree, cut: the game and its cut.
    trainer: the network being trained.
    buffer: every example recorded so far.
    rounds: the number of completed rounds.
  """

  def __init__(self, game: pyspiel.Game, depth_limit: int,
               options: SelfPlayOptions = SelfPlayOptions(),
               training: TrainingOptions = TrainingOptions(),
               target_solver: Optional[LeafSolver] = None):
    if not 0 <= options.exploration <= 1:
      raise ValueError(f"exploration must be in [0, 1], got {options.exploration}")
    self.game = game
    self.public_tree, self.domain = cut_of(game, depth_limit)
    self.options = options
    self.trainer = Trainer(self.domain, dataclasses.replace(training, seed=options.seed))
    self.target_solver = (target_solver if target_solver is not None
                          else CFRLeafSolver(options.target_iterations))
    self.rng = np.random.default_rng(options.seed)
    self.buffer: Optional[Dataset] = None
    self.rounds = 0
    tree = self.public_tree.tree
    self._children: List[List[int]] = [[] for _ in range(tree.num_nodes)]
    for n in range(1, tree.num_nodes):
      self._children[tree.node_parent[n]].append(n)
    self._leaf_of_root = {int(n): k for k, leaf in enumerate(self.public_tree.leaves)
                          for n in leaf.root_nodes}
    self._leaf_mask = self.public_tree.seq_leaf >= 0

  def model(self) -> PBSValueFunction:
    return self.trainer.model({"self_play_rounds": self.rounds,
                               "examples": 0 if self.buffer is None else len(self.buffer)})

  def search(self, model: PBSValueFunction) -> List[np.ndarray]:
    """CFR-AVG at the root with the model's leaf values; the trunk average after each iteration."""
    solver = CFRAvgSolver(self.game, depth_limit=self.domain.depth_limit,
                          leaf_solver=ValueFunctionLeafSolver(model))
    averages = []
    for _ in range(self.options.search_iterations):
      solver.evaluate_and_update_policy()
      averages.append(solver.engine.average())
    return averages

  def _walk_to_leaf(self, average: np.ndarray, explorer: int) -> Optional[int]:
    """Samples a path through the trunk; returns the leaf root node reached, or None (terminal)."""
    tree, arrays = self.public_tree.tree, self.public_tree.arrays
    node = 0
    while node not in self._leaf_of_root:
      children = self._children[node]
      if not children:
        return None  # A terminal history in the trunk.
      player = int(tree.node_player[node])
      if player == CHANCE:
        probs = tree.node_prob[children]
      elif player == explorer and self.rng.random() < self.options.exploration:
        probs = np.full(len(children), 1.0 / len(children))
      else:
        seqs = arrays.global_seq[player][tree.node_seq[children, player]]
        probs = average[seqs]
      node = children[self.rng.choice(len(children), p=probs / probs.sum())]
    return node

  def play_episode(self, averages: List[np.ndarray]):
    """One episode: random iteration, a sampled public path, the target at the leaf PBS.

    Returns (leaf index, deal belief, per-deal target values), or None if the path ended at a
    terminal history of the trunk.
    """
    t = int(self.rng.integers(1, len(averages) + 1))
    average = averages[t - 1]
    root = self._walk_to_leaf(average, explorer=int(self.rng.integers(0, 2)))
    if root is None:
      return None
    index = self._leaf_of_root[root]
    leaf = self.public_tree.leaves[index]
    # CFR-AVG's leaf PBS at iteration t: proportional to chance times both average trunk reaches.
    reach = tree_passes.realization(self.public_tree.arrays,
                                    np.where(self._leaf_mask, 1.0, average))
    belief = belief_from_reaches(leaf.root_chance, reach[leaf.root_seq], leaf.root_chance)
    values = np.zeros(self.domain.num_deals)
    values[leaf.deals] = self.target_solver(leaf, belief).root_values
    return index, deal_belief(leaf, belief), values

  def run_round(self) -> Dataset:
    """Plays ``episodes_per_round`` episodes with the current model, then trains on the buffer.

    Returns the round's new examples.
    """
    averages = self.search(self.model())
    examples = [e for e in (self.play_episode(averages)
                            for _ in range(self.options.episodes_per_round)) if e is not None]
    new = Dataset(leaf_index=np.array([e[0] for e in examples], dtype=np.int64),
                  beliefs=np.array([e[1] for e in examples]).reshape(-1, self.domain.num_deals),
                  values=np.array([e[2] for e in examples]).reshape(-1, self.domain.num_deals))
    self.buffer = new if self.buffer is None else Dataset.concatenate([self.buffer, new])
    if len(self.buffer):
      self.trainer.fit(self.buffer, self.options.train_steps)
    self.rounds += 1
    return new
