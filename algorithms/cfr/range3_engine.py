"""CFR with range vectors for three-player Kuhn poker: ``RangeEngine`` on ``CardTree3`` games.

The engine of ``range_kernel`` (its docstring derives the three-player terminal values with card
removal and states the passes, one for every number of players) for a batch of B games that
share one ``CardTree3`` but for their stakes (one deck, a grid of antes and bets). Its state,
update rules and policy accessors are ``range_engine.RangeEngine``'s, with alternating updates
(players 0, 1, 2 in turn, as OpenSpiel's CFR and the flat engine) or simultaneous ones.

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

from typing import Sequence

from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.range_engine import RangeEngine
from algorithms.tree.card_tree3 import CardTree3


class Range3Engine(RangeEngine):
  """The state of a three-player range-vector CFR run on B games with one betting tree.

  ``RangeEngine`` on ``CardTree3`` objects: ``solve``, ``restore``, ``average``, ``policy``,
  ``values`` / ``values_of`` ((BR_i, u_i) for i = 0, 1, 2), ``nash_conv`` / ``nash_conv_of``
  and ``exploitability`` (NashConv / 3).

  Attributes:
    trees: the B ``CardTree3`` objects (one deck; stakes may differ).
    rule: the ``UpdateRule``.
    regrets: (B, D N 2) cumulative counterfactual regrets R.
    cumulative: (B, D N 2) average-policy numerators S.
    sigma: (B, D N 2) current policies (regret matching of R, or of R + r for a predictive rule).
    iteration: (B,) int64, iteration t of each game's last pass.
  """

  def __init__(self, trees: Sequence[CardTree3], rule: UpdateRule):
    for tree in trees:
      if not isinstance(tree, CardTree3):
        raise ValueError(f"Range3Engine runs CardTree3 games (three-player Kuhn poker), got a "
                         f"{type(tree).__name__} of {tree.game}")
    super().__init__(trees, rule)
