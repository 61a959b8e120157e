"""ReBeL's agent playing hands: each seat searches, draws and acts as the agent does in a match.

A hand starts at the game root; chance deals by its probabilities. Each seat is its own copy of
the agent (its draws independent of the other seat's, as two agents in a match): it runs the
search at the root, draws an iteration with the probabilities of ``ReBeLAgent.plays`` and plays
the drawn policy for its own card at its decisions in the search's trunk; when the hand reaches
a leaf of its search, it searches again from the PBS of its draw there
(``ReBeLAgent.next_search``). ``play_hands`` counts the actions taken at every information set,
so the empirical frequencies estimate the agent's behaviour strategy (``behaviour``) at every
information set the hands reach: given that I is reached, the action at I is distributed as
X_i(I, a) / X_i(I), because the opponent's and chance's play does not depend on seat i's draws.
"""

from typing import Dict, List, Optional, Tuple

import numpy as np

from algorithms.rebel.agent.agent import Play
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.search_game import SearchGame
from algorithms.rebel.agent.search_game import SearchLeaf
from algorithms.tree.game_tree import CHANCE
from algorithms.tree.game_tree import TERMINAL


class _Seat:
  """One seat's agent during a hand: its search game, belief and drawn play."""

  def __init__(self, agent: ReBeLAgent, rng: np.random.Generator):
    self.agent, self.rng = agent, rng
    self.game: Optional[SearchGame] = None
    self.belief = np.ones(1)
    self.play: Optional[Play] = None

  def start(self, game: SearchGame, belief: np.ndarray) -> None:
    self.game, self.belief = game, belief
    plays = self.agent.plays(game, belief)
    k = self.rng.choice(len(plays), p=np.array([p.probability for p in plays]))
    self.play = plays[k]

  def move_on(self, leaf: SearchLeaf) -> None:
    self.start(*self.agent.next_search(self.game, leaf, self.belief, self.play))


def play_hands(agent: ReBeLAgent, num_hands: int, seed: int) -> np.ndarray:
  """Plays ``num_hands`` hands of the agent against itself (independent seats).

  Returns:
    Action counts (G,) in the full game's ``TreeArrays`` layout: how often each sequence's
    action was taken at its information set.
  """
  if isinstance(num_hands, bool) or not isinstance(num_hands, int) or num_hands < 1:
    raise ValueError(f"num_hands must be an integer >= 1, got {num_hands!r}")
  full, tree = agent.arrays, agent.arrays.tree
  rng = np.random.default_rng(seed)
  children: List[List[int]] = [[] for _ in range(tree.num_nodes)]
  for n in range(1, tree.num_nodes):
    children[tree.node_parent[n]].append(n)
  leaf_at: Dict[Tuple[int, str], Dict[int, SearchLeaf]] = {}
  local_of: Dict[Tuple[int, str], np.ndarray] = {}
  counts = np.zeros(full.num_sequences)
  seats = (_Seat(agent, rng), _Seat(agent, rng))
  for _ in range(num_hands):
    for seat in seats:
      seat.start(*agent.root())
    node = 0
    while tree.node_player[node] != TERMINAL:
      for seat in seats:
        key = (seat.game.depth, seat.game.public_state)
        if key not in leaf_at:
          leaf_at[key] = {int(n): leaf for leaf in seat.game.leaves for n in leaf.leaf.root_nodes}
        leaf = leaf_at[key].get(node)
        if leaf is not None:
          seat.move_on(leaf)
      player = int(tree.node_player[node])
      kids = children[node]
      if player == CHANCE:
        probs = tree.node_prob[kids]
        node = kids[rng.choice(len(kids), p=probs / probs.sum())]
        continue
      seat = seats[player]
      key = (seat.game.depth, seat.game.public_state)
      if key not in local_of:
        inverse = np.full(full.num_sequences, -1, dtype=np.int64)
        inverse[seat.game.full_seq[2:]] = np.arange(2, len(seat.game.full_seq))
        local_of[key] = inverse
      sequences = full.global_seq[player][tree.node_seq[kids, player]]
      probs = seat.play.policy[local_of[key][sequences]]
      k = rng.choice(len(kids), p=probs / probs.sum())
      counts[sequences[k]] += 1
      node = kids[k]
  return counts
