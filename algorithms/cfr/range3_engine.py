"""CFR with range vectors for three-player Kuhn poker: the state of a run, its policies and values.

The engine of ``range3_kernel`` (its docstring derives the terminal values with card removal
and states the passes) for a batch of B games that share one ``CardTree3`` but for their stakes
(one deck, a grid of antes and bets). Its state is the flat engine's, ``cfr_engine.CFREngine``,
per game: cumulative regrets R, average numerators S and the current policy sigma, each
(B, D N 2) with information set (d, c) at entries 2 (d N + c) and 2 (d N + c) + 1; the same
``UpdateRule`` drives both engines through the same per-block functions of ``cfr_kernel``, with
alternating updates (players 0, 1, 2 in turn, as OpenSpiel's CFR and the flat engine) or
simultaneous ones.

CFR has no equilibrium guarantee with three players (Abou Risk and Szafron, "Using
counterfactual regret minimization to create competitive multiplayer poker agents", AAMAS 2010;
``cfr_engine``): the engine runs the same updates and NashConv measures what they reach.

Exact evaluation is range-vector too (Johanson, Waugh, Bowling, Zinkevich, "Accelerating best
response calculation in large extensive games", IJCAI 2011): each player's best response to the
other two in one pass over the public tree, O(N |tree|) per player. NashConv = sum_i (BR_i - u_i)
with u_i the players' expected payoffs (which sum to 0: the game is zero-sum), as OpenSpiel's
``exploitability.nash_conv``; OpenSpiel's ``exploitability`` is NashConv / 3 here.

Policies leave the engine as ``range_engine.CardPolicy`` (any deck) and as OpenSpiel's
``TabularPolicy`` through ``range_engine.RangeLayout``, which needs of its tree only the game,
D, N and one representative state per information set, all of which ``CardTree3`` offers.
"""

from typing import Optional, Sequence, Tuple

import numpy as np

from algorithms.cfr import range3_kernel
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.range3_kernel import CardTables3
from algorithms.cfr.range_engine import RangeEngine
from algorithms.tree.card_tree3 import NUM_PLAYERS
from algorithms.tree.card_tree3 import CardTree3
from algorithms.tree.sequence_form import Blocks
from spiel_games.kuhn_rules import ACTION_CHARS


def card_tables3(tree: CardTree3) -> CardTables3:
  """The kernel's tables of ``tree``.

  A player's last sequence before a history is 2 d + a of its last action there (node d,
  action a), or 2 D, the empty sequence, before its first.
  """
  node_of = {h: d for d, h in enumerate(tree.histories)}
  empty = 2 * tree.num_nodes

  def last_sequence(history: str, player: int) -> int:
    own = [2 * node_of[history[:m]] + ACTION_CHARS.index(history[m]) for m in range(len(history))
           if tree.node_player[node_of[history[:m]]] == player]
    return own[-1] if own else empty

  return CardTables3(
      node_player=tree.node_player, child=tree.child,
      node_sequence=np.array([last_sequence(h, p) for h, p in zip(tree.histories,
                                                                   tree.node_player)],
                             dtype=np.int64),
      terminal_sequence=np.array([[last_sequence(z, p) for z in tree.terminals]
                                  for p in range(NUM_PLAYERS)], dtype=np.int64),
      in_hand=np.ascontiguousarray(tree.in_hand, dtype=np.bool_),
      contribution=np.ascontiguousarray(tree.contribution, dtype=np.float64),
      num_cards=int(tree.num_cards))


class Range3Engine(RangeEngine):
  """The state of a three-player range-vector CFR run on B games with one betting tree.

  ``RangeEngine``'s state and its policy accessors (``restore``, ``average``, ``policy``,
  ``nash_conv``), with three players' tables, passes and values.

  Attributes:
    trees: the B ``CardTree3`` objects (one deck; stakes may differ).
    rule: the ``UpdateRule``.
    regrets: (B, D N 2) cumulative counterfactual regrets R.
    cumulative: (B, D N 2) average-policy numerators S.
    sigma: (B, D N 2) current policies (regret matching of R, or of R + r for a predictive rule).
    iteration: (B,) int64, iteration t of each game's last pass.
  """

  def __init__(self, trees: Sequence[CardTree3], rule: UpdateRule):  # pylint: disable=super-init-not-called
    # Not RangeEngine.__init__, which builds two-player tables; the same state otherwise.
    if not trees:
      raise ValueError("Range3Engine needs at least one CardTree3")
    for tree in trees[1:]:
      if tree.histories != trees[0].histories or tree.num_cards != trees[0].num_cards:
        raise ValueError(f"games {trees[0].game} and {tree.game} differ in more than stakes; "
                         "a batch needs one deck")
    self.trees = tuple(trees)
    self.rule = rule
    self._kernel_rule = rule.kernel_rule()
    self._tables = [card_tables3(tree) for tree in self.trees]
    size = trees[0].num_nodes * trees[0].num_cards * 2
    self._blocks = Blocks.from_sizes(np.full(size // 2, 2))  # one block of 2 actions per (d, c)
    self.regrets, self.cumulative = np.zeros((2, len(trees), size))
    self.sigma = np.full((len(trees), size), 0.5)  # regret matching of R = 0: uniform
    self.iteration = np.zeros(len(trees), dtype=np.int64)

  def solve(self, iterations: int, games: Optional[Sequence[int]] = None) -> None:
    """``iterations`` CFR iterations of each listed game (all if None), one compiled call each."""
    if iterations < 0:
      raise ValueError(f"iterations must be >= 0, got {iterations}")
    for b in self._games(games):
      range3_kernel.iterations(self._tables[b], self._kernel_rule, self.sigma[b],
                               self.regrets[b], self.cumulative[b], int(self.iteration[b]),
                               int(iterations))
      self.iteration[b] += int(iterations)

  def values(self, game: int = 0, average: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """(best-response values (3,), expected payoffs (3,)) of game ``game``'s policy."""
    return self.values_of(self.average(game) if average else self.sigma[game], game)

  def values_of(self, policy: np.ndarray, game: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """(BR_i, u_i), i = 0, 1, 2, of a flat policy (D N 2,) in game ``game``
    (``range3_kernel.policy_values``)."""
    return range3_kernel.policy_values(self._tables[game],
                                       np.ascontiguousarray(policy, dtype=np.float64))

  def nash_conv_of(self, policy: np.ndarray, game: int = 0) -> float:
    """NashConv = sum_i (BR_i - u_i) of a flat policy (D N 2,) in game ``game``."""
    best, expected = self.values_of(policy, game)
    return float(np.sum(best - expected))

  def exploitability(self, game: int = 0, average: bool = True) -> float:
    """OpenSpiel's exploitability, (sum_i BR_i - 0) / 3 = NashConv / 3 (zero-sum)."""
    return self.nash_conv(game, average) / NUM_PLAYERS
