"""Exact expectiminimax of ``kuhn_poker_referee`` with memoization on public belief states.

The public-referee game (ReBeL's discrete representation; Brown et al., NeurIPS 2020,
arXiv 2007.13544, Section 3) is a perfect-information game whose state is a public belief state
(PBS). Its value for player 0 satisfies the expectiminimax recursion

    V(h, beta) = sum_d beta(d) u_0(h, d)                             if h is terminal,
    V(h, beta) = max_a (or min_a for player 1) sum_{x in {p, b}} P(x | a, beta) V(hx, beta_{a,x})
                                                                        otherwise,

where a ranges over the announcements (k_c / grid for every card c), P(x | a, beta) is the
referee's probability of base action x and beta_{a,x} the Bayes-updated belief.

Implementation. Beliefs are carried as unnormalised non-negative integer weights w (the initial
belief is uniform, and every update multiplies the weight of deal d by k or grid - k), so PBSs are
compared exactly. With

    T(h, w) = grid ** (L - |h|) * S * sum(w) * V(h, w / sum(w)),

where L is the maximum number of decisions and S the least common denominator of the returns,
the recursion becomes integer-valued and positively homogeneous:

    T(h, w) = grid ** (L - |h|) * (w . S u_0(h, .))                       at a terminal h,
    T(h, w) = max_a / min_a  [ T(hb, w * k_a) + T(hp, w * (grid - k_a)) ]   otherwise,
    T(h, g w) = g T(h, w),

so T is memoized on (h, w / gcd(w)): two routes to the same PBS hit the same entry. All
announcements of a node are evaluated at once with numpy; a child whose weights are all zero
(a referee outcome of probability zero) is pruned. Integers are int64 when a bound on |T| allows,
Python integers otherwise, so the result is an exact Fraction.
"""

import argparse
import fractions
import math
import numbers
import sys
import time
from typing import Dict, Optional, Sequence, Tuple

import numpy as np
import pyspiel

from spiel_games import kuhn_poker_referee
from spiel_games.kuhn_rules import KuhnRules
from spiel_games.public_belief_state import PublicBeliefState

Fraction = fractions.Fraction

_INT64_SAFE = 2**62


class PbsMinimax:
  """Exact memoized expectiminimax solver of ``kuhn_poker_referee(rules, grid)``.

  One instance keeps its memo across queries, so solving many PBSs of one game shares work.
  """

  def __init__(self, rules: KuhnRules, grid: int):
    if not isinstance(grid, numbers.Integral) or isinstance(grid, bool) or grid < 1:
      raise ValueError(f"grid must be an integer >= 1, got {grid!r}")
    self.rules = rules
    self.grid = int(grid)
    self._length = rules.max_game_length
    deals = np.array(rules.deals())
    table = kuhn_poker_referee.announcement_table(self.grid, rules.deck_size)
    # _bet_numerators[i][a, d]: grid * P(bet | announcement a, card of player i in deal d).
    self._bet_numerators = [table[:, deals[:, i]] for i in (0, 1)]
    returns = {h: [Fraction(rules.returns(h, deal)[0]) for deal in rules.deals()]
               for h in rules.terminal_histories}
    self._scale = math.lcm(*(r.denominator for rs in returns.values() for r in rs))
    self._returns = {h: [int(r * self._scale) for r in rs] for h, rs in returns.items()}
    self._max_return = max(abs(r) for rs in self._returns.values() for r in rs)
    self._dtype = np.int64
    self._memo: Dict[Tuple[str, Tuple[int, ...]], Tuple[int, int]] = {}

  @classmethod
  def from_game(cls, game: pyspiel.Game) -> "PbsMinimax":
    """The solver of a loaded ``kuhn_poker_referee`` game."""
    return cls(game.rules, game.grid)

  @property
  def num_memoized(self) -> int:
    """Number of distinct decision PBSs solved so far."""
    return len(self._memo)

  def value(self, pbs: PublicBeliefState) -> Fraction:
    """Player 0's exact expectiminimax value of ``pbs``."""
    return self.solve(pbs)[0]

  def best_announcement(self, pbs: PublicBeliefState) -> int:
    """An optimal announcement (action id) of the player to act at ``pbs`` (smallest id)."""
    return self.solve(pbs)[1]

  def solve(self, pbs: PublicBeliefState) -> Tuple[Fraction, int]:
    """(player 0's value, an optimal announcement or -1 at a terminal PBS)."""
    if pbs.rules != self.rules:
      raise ValueError(f"PBS rules {pbs.rules} differ from the solver's {self.rules}")
    denominator = math.lcm(*(b.denominator for b in pbs.belief))
    weights = tuple(int(b * denominator) for b in pbs.belief)
    weights = tuple(x // math.gcd(*weights) for x in weights)
    bound = 2 * len(weights) * max(weights) * self.grid**self._length * self._max_return
    self._dtype = np.int64 if bound < _INT64_SAFE else object
    history = pbs.history
    if pbs.is_terminal:
      t, action = self._terminal(history, np.array(weights, dtype=self._dtype)), -1
    else:
      t, action = self._decision(history, weights)
    depth_factor = self.grid**(self._length - len(history))
    return Fraction(int(t), depth_factor * self._scale * sum(weights)), action

  def _terminal(self, history: str, weights: np.ndarray) -> np.ndarray:
    """T(h, w) of a terminal h, for w of shape (D,) or a batch of shape (A, D)."""
    returns = np.array(self._returns[history], dtype=self._dtype)
    return (weights @ returns) * self.grid**(self._length - len(history))

  def _children(self, history: str, weights: np.ndarray) -> np.ndarray:
    """T(history, row) for every row of ``weights`` (A, D); zero rows give 0 (pruned)."""
    if self.rules.is_terminal(history):
      return self._terminal(history, weights)
    out = np.zeros(len(weights), dtype=object)
    gcds = np.gcd.reduce(weights, axis=1)
    for row, g in enumerate(gcds):
      if g:
        out[row] = int(g) * self._decision(history, tuple((weights[row] // g).tolist()))[0]
    return out

  def _decision(self, history: str, weights: Tuple[int, ...]) -> Tuple[int, int]:
    """(T(h, w), best announcement) at a decision history h, w canonical (gcd 1)."""
    key = (history, weights)
    if key in self._memo:
      return self._memo[key]
    player = self.rules.current_player(history)
    w = np.array(weights, dtype=self._dtype)
    bet = self._bet_numerators[player].astype(self._dtype, copy=False)
    totals = (self._children(history + "b", w * bet) +
              self._children(history + "p", w * (self.grid - bet)))
    best = int(np.argmax(totals) if player == 0 else np.argmin(totals))
    self._memo[key] = (int(totals[best]), best)
    return self._memo[key]


def root_value(game: pyspiel.Game) -> Fraction:
  """Player 0's exact value of a ``kuhn_poker_referee`` game."""
  return PbsMinimax.from_game(game).value(PublicBeliefState.initial(game.rules))


def main(argv: Optional[Sequence[str]] = None) -> int:
  """``python -m algorithms.exact.pbs_minimax GAME...``: exact values of referee games."""
  parser = argparse.ArgumentParser(description=main.__doc__)
  parser.add_argument("games", nargs="+", help='e.g. "kuhn_poker_referee(grid=4)"')
  args = parser.parse_args(argv)
  for spec in args.games:
    try:
      game = pyspiel.load_game(spec)
    except (ValueError, pyspiel.SpielError) as error:
      print(f"error: cannot load {spec!r}: {error}", file=sys.stderr)
      return 2
    if game.get_type().short_name != kuhn_poker_referee.SHORT_NAME:
      print(f"error: {spec!r} is not a kuhn_poker_referee game", file=sys.stderr)
      return 2
    start = time.perf_counter()
    solver = PbsMinimax.from_game(game)
    value = solver.value(PublicBeliefState.initial(game.rules))
    seconds = time.perf_counter() - start
    print(f"{game}: value {value} = {float(value):.6f}, {solver.num_memoized} PBSs, "
          f"{seconds:.2f} s")
  return 0


if __name__ == "__main__":
  raise SystemExit(main())
