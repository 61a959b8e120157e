"""ReBeL's self-play with bootstrapped value targets, for the agent's cuts (Algorithm 1).

Brown, Bakhtin, Lerer, Gong, "Combining deep reinforcement learning and search for
imperfect-information games", NeurIPS 2020, arXiv 2007.13544, Algorithm 1 (SELFPLAY): from the
root PBS, search (T iterations of CFR-AVG with the network's values at the leaves), add
{beta_r, v(beta_r)} to the value network's data, where v(beta_r) is the mean over the
iterations of ComputeEV(G, pi^t), the search's own root values with the network at its leaves
(``agent.search.SearchRecord.root_values``); sample an iteration, follow its policy through the
search's trunk to a leaf (with exploration), and search again from that leaf's PBS, until the
game ends. The targets bootstrap: a search at depth k takes its leaf values from the model of
depth k + d, so the model of depth k learns from the model below it (at Kuhn's last leaves the
search reaches the end of the game and its values are exact).

Here the agent's cuts are those of ``agent.agent.ReBeLAgent`` with lookahead d: one
``PBSValueFunction`` per depth d, 2d, ... that has a leaf (ReBeL's single network takes the
public state as an input; here each cut has its own, joined by ``agent.values_by_cut.ByLeaf``).
The episode's play is the agent's (``ReBeLAgent.plays``: the drawn iteration's matched policy and
its PBS at the leaf); exploration as in ``self_play``: one player per episode, chosen uniformly,
takes a uniformly random action with probability ``exploration`` at each of its decisions, the
beliefs updated as if it had played the drawn policy. Each round plays ``episodes_per_round``
episodes with the current models, then trains each model on its own replay buffer (every example
so far) for ``train_steps`` steps (``training.Trainer``, Adam state kept). Seeded: a run is
reproducible.

ReBeL's agent asks its network at every leaf and has no exact value anywhere (``one_player_exact``
False, the default; True answers leaves where one player acts by the exact best response, this
project's shortcut). The models have ReBeL's layout by default, one value per player and card
(``leaf_domain.LeafDomain.outputs``), and the targets are each player's root values.

Where this follows the paper and the released code, and where it does not:

* the search is the test-time agent's (CFR-D with linear averaging; the draw of the iteration with
  P(t) proportional to t, as the released code's evaluation draws it); the paper's Algorithm 1
  writes a uniform draw of t and a warm start from a policy network, which this has not;
* exploration: the released Liar's Dice configuration's ``random_action_prob: 0.25`` (one player
  per episode explores, as in ``self_play``);
* the replay buffer keeps every example (the released code's holds 2,000,000, more than a run
  here makes), and the loss is the released configuration's Huber loss;
* one network per cut instead of one network with the public state as an input.

``labeller`` swaps the targets for a leaf solver's labels at the same visited PBSs: the
supervised diagnostic (DAgger on self-play's own PBSs), the bound that bootstrapping is measured
against on the same episodes. ``self_play.SelfPlay`` is a third kind (a CFR(k) solve of the
visited leaf PBS, trained one cut at a time). All take ``self_play.SelfPlayOptions``, so a
comparison runs them on the same budget; ``target_iterations`` is ``SelfPlay``'s alone.
"""

import dataclasses
from typing import Dict, List, Optional

import numpy as np
import pyspiel

from algorithms.rebel import leaf_step
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.search import run_search
from algorithms.rebel.agent.search_game import SearchGame
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.self_play import SelfPlayOptions
from algorithms.rebel.learning.training import Trainer
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.learning.value_network import deal_belief
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.tree.game_tree import CHANCE
from algorithms.tree.game_tree import TERMINAL


class BootstrapSelfPlay:
  """Algorithm 1 on the agent's cuts: ``run_round()`` plays, records targets and trains.

  Args:
    game: the game; lookahead: the agent's d.
    options: episodes, search iterations, exploration, Adam steps per round, seed.
    training: the networks' options.
    outputs: the models' layout (``leaf_domain.OUTPUTS``): ReBeL's "infostate" (one value per
      player and card) or "deal".
    one_player_exact: the exact best response at leaves where one player acts below (this
      project's shortcut, ``ValueFunctionLeafSolver``); False: the network at every leaf, as
      ReBeL, and no exact value anywhere (the end of the game aside).
    labeller: None for Algorithm 1's bootstrapped targets; a leaf solver (e.g. the exact LP)
      for the supervised diagnostic: the same episodes, each visited PBS labelled by that
      solver's values instead of the search's (DAgger on self-play's PBSs: how far the
      bootstrapped targets stay from labels without error).
    weighting: the agent's averaging (``ReBeLAgent``'s option): "linear" (the default) or
      "linear_cfr" (ReBeL's released evaluation), in self-play's searches and ``agent``'s.
    tremble: the agent's tremble (``ReBeLAgent``'s option), in self-play's searches and
      ``agent``'s.

  Attributes:
    game: the game; depths: the cuts' depths d, 2d, ...; trainers, buffers: per depth.
    rounds: the completed rounds.
  """

  def __init__(self, game: pyspiel.Game, lookahead: int = 1,
               options: Optional[SelfPlayOptions] = None,
               training: TrainingOptions = TrainingOptions(), outputs: str = "infostate",
               one_player_exact: bool = False, labeller: Optional[LeafSolver] = None,
               weighting: str = "linear", tremble: float = leaf_step.TREMBLE):
    options = options if options is not None else SelfPlayOptions()
    if not 0 <= options.exploration <= 1:
      raise ValueError(f"exploration must be in [0, 1], got {options.exploration}")
    self.game = game
    self.lookahead = lookahead
    self.options = options
    self.one_player_exact = bool(one_player_exact)
    self.labeller = labeller
    self.weighting = weighting
    self.tremble = tremble
    self.depths: List[int] = []
    self.trainers: Dict[int, Trainer] = {}
    depth = lookahead
    while True:
      try:
        _, domain = cut_of(game, depth, outputs=outputs)
      except ValueError:  # No leaf at this depth: the game ends above it.
        break
      self.depths.append(depth)
      self.trainers[depth] = Trainer(domain, dataclasses.replace(training,
                                                              seed=options.seed + depth))
      depth += lookahead
    if not self.depths:
      raise ValueError(f"{game}: no leaf at depth {lookahead}, nothing to learn")
    self.buffers: Dict[int, Optional[Dataset]] = {d: None for d in self.depths}
    self.rng = np.random.default_rng(options.seed)
    self.rounds = 0
    self._searches: Dict[tuple, tuple] = {}  # This round's searches (``_search``).

  def models(self) -> Dict[int, PBSValueFunction]:
    """The current model of every depth."""
    return {d: self.trainers[d].model({"bootstrap_rounds": self.rounds}) for d in self.depths}

  def agent(self, iterations: int, cache_size: int = 0) -> ReBeLAgent:
    """ReBeL's agent with the current models' values at its leaves (``cache_size``: the
    agent's, searches it keeps)."""
    solver = ValueFunctionLeafSolver(ByLeaf(list(self.models().values())),
                                     one_player_exact=self.one_player_exact,
                                     split_ties=splits_ties())
    return ReBeLAgent(self.game, lookahead=self.lookahead, iterations=iterations,
                      leaf_solver=solver, weighting=self.weighting, tremble=self.tremble,
                      cache_size=cache_size)

  def play_episode(self, agent: ReBeLAgent) -> List[tuple]:
    """One episode from the root to the end of the game; its (depth, leaf index, deal belief,
    per-deal values of each player (D, 2)) examples, one per search below the root."""
    examples = []
    explorer = int(self.rng.integers(0, 2))
    game, belief = agent.root()
    while True:
      record, plays = self._search(agent, game, belief)
      if game.depth > 0:
        examples.append(self._example(agent, game, belief, record.root_values))
      if not game.leaves:
        return examples
      play = plays[self.rng.choice(len(plays), p=np.array([p.probability for p in plays]))]
      leaf = self._walk(agent, game, belief, play.policy, explorer)
      if leaf is None:
        return examples
      game, belief = agent.next_search(game, leaf, belief, play)

  def _search(self, agent: ReBeLAgent, game: SearchGame, belief: np.ndarray) -> tuple:
    """The search at a PBS and its plays, each computed once per round: with the round's models
    fixed a search is a function of its public state and belief (every episode starts with the
    same root search, and the searches below start from one of its T iterates). Keyed by the
    agent too, so that a call with another agent (other models) never reads this round's."""
    key = (agent, game.depth, game.public_state, belief.tobytes())  # The agent by identity.
    if key not in self._searches:
      record = run_search(game, belief, agent.iterations, agent.leaf_solver, agent.rule,
                          agent.leaf_beliefs, agent.tremble)
      self._searches[key] = (record, agent.plays_from(record))
    return self._searches[key]

  def _example(self, agent: ReBeLAgent, game: SearchGame, belief: np.ndarray,
               values: np.ndarray) -> tuple:
    leaf = next(z for z in agent.cuts.cut(game.depth).leaves
                if z.public_state == game.public_state)
    if self.labeller is not None:  # The search's roots are the cut leaf's, in order.
      values = leaf_step.player_values(self.labeller(leaf, belief).root_values,
                                       float(leaf.tree.utility_sum))
    target = np.zeros((self.trainers[game.depth].domain.num_deals, 2))
    target[leaf.deals] = values
    index = self.trainers[game.depth].domain.leaf_index(leaf)
    return game.depth, index, deal_belief(leaf, belief), target

  def _walk(self, agent: ReBeLAgent, game: SearchGame, belief: np.ndarray, policy: np.ndarray,
            explorer: int):
    """A root drawn from the belief, then the trunk's actions by ``policy`` (the explorer
    uniform with probability ``exploration``) and chance; the search leaf reached, or None."""
    full, tree = agent.arrays, agent.arrays.tree
    leaf_of = {int(n): z for z in game.leaves for n in z.leaf.root_nodes}
    local = np.full(full.num_sequences, -1, dtype=np.int64)
    local[game.full_seq[2:]] = np.arange(2, len(game.full_seq))
    node = int(game.root_nodes[self.rng.choice(game.num_roots, p=belief)])
    while node not in leaf_of:
      kids = np.flatnonzero(tree.node_parent == node)
      player = int(tree.node_player[node])
      if player == TERMINAL:
        return None
      if player == CHANCE:
        probs = tree.node_prob[kids]
      elif player == explorer and self.rng.random() < self.options.exploration:
        probs = np.ones(len(kids))
      else:
        probs = policy[local[full.global_seq[player][tree.node_seq[kids, player]]]]
      node = int(kids[self.rng.choice(len(kids), p=probs / probs.sum())])
    return leaf_of[node]

  def run_round(self) -> Dict[int, int]:
    """Plays ``episodes_per_round`` episodes with the current models, then trains each model on
    its buffer. Returns the number of new examples per depth."""
    agent = self.agent(self.options.search_iterations)
    self._searches = {}
    new: Dict[int, list] = {d: [] for d in self.depths}
    for _ in range(self.options.episodes_per_round):
      for depth, index, beliefs, values in self.play_episode(agent):
        new[depth].append((index, beliefs, values))
    for depth, rows in new.items():
      if not rows:
        continue
      part = Dataset(leaf_index=np.array([r[0] for r in rows], dtype=np.int64),
                     beliefs=np.array([r[1] for r in rows]),
                     values=np.array([r[2] for r in rows]))
      buffer = self.buffers[depth]
      self.buffers[depth] = part if buffer is None else Dataset.concatenate([buffer, part])
    for depth in self.depths:
      if self.buffers[depth] is not None:
        self.trainers[depth].fit(self.buffers[depth], self.options.train_steps)
    self.rounds += 1
    return {d: len(rows) for d, rows in new.items()}
