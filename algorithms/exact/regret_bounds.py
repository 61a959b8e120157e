"""Regret matching's and CFR's worst-case regret bounds.

Regret matching (Hart and Mas-Colell, "A simple adaptive procedure leading to correlated
equilibrium", Econometrica 2000) at one decision with |A| actions and payoffs of range Delta has
average regret at most Delta sqrt(|A|) / sqrt(T) after T rounds against any opponents
(Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
information", NeurIPS 2007, Theorem 3, for the immediate counterfactual regret of an information
set): ``regret_matching_bound``.

CFR (the same paper, Theorem 4): when every information set of player i minimizes its
immediate counterfactual regret by regret matching, i's average overall regret after T
iterations is at most

  R_i^T / T <= Delta_i |I_i| sqrt(|A_i|) / sqrt(T),

with Delta_i = max_z u_i(z) - min_z u_i(z) the range of i's utility, |I_i| the number of i's
information sets and |A_i| the most actions i has at one of them (CFR as the paper states it:
both players update simultaneously, every iteration weighs the same).

From average regret to NashConv (the paper's Section 3, here as an equality): the average policy
sigma-bar plays the mixture of the iterates sigma^1..sigma^T (Zinkevich et al. weight each
iterate's action probabilities by its reach, which makes sigma-bar_i realization-equivalent to
the uniform mixture), and u_i is linear in the opponent's mixture, so

  max_{sigma'_i} u_i(sigma'_i, sigma-bar_{-i}) = (1/T) sum_t u_i(sigma^t) + R_i^T / T.

Summing over the two players, with u_0 + u_1 = c constant and u_0(sigma-bar) + u_1(sigma-bar) = c,

  NashConv(sigma-bar) = sum_i [max_{sigma'_i} u_i(sigma'_i, sigma-bar_{-i}) - u_i(sigma-bar)]
                      = (R_0^T + R_1^T) / T
                     <= Delta (|I_0| + |I_1|) sqrt(|A|) / sqrt(T),

bounding every Delta_i by Delta = max utility - min utility of the game and every |A_i| by its
number of distinct actions |A|. Exploitability, OpenSpiel's NashConv / 2, is at most half this.
A worst case over all games of the same size, it is loose: on Kuhn poker with ante 2 and bet 1
after T = 2000 it is 2.28, about 1000 times CFR's measured NashConv (``docs/tutorial.ipynb``,
section 2).
"""

import math
from typing import Union

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.tree import game_tree


def regret_matching_bound(payoff_range: float, actions: int,
                          iterations: Union[int, np.ndarray]) -> Union[float, np.ndarray]:
  """Regret matching's bound on average regret after T = ``iterations`` rounds,
  Delta sqrt(|A|) / sqrt(T) (Zinkevich et al. 2007, Theorem 3; see the module docstring).

  Args:
    payoff_range: Delta, the largest minus the smallest payoff of the player.
    actions: |A| >= 1, the player's number of actions.
    iterations: T >= 1, or an array of them (the bound of each).

  Returns:
    The bound (an array for an array of T).
  """
  t = np.asarray(iterations, dtype=float)
  if actions < 1 or np.any(t < 1):
    raise ValueError(f"the regret-matching bound needs actions >= 1 and iterations >= 1, got "
                     f"{actions} actions and iterations {iterations}")
  bound = payoff_range * math.sqrt(actions) / np.sqrt(t)
  return float(bound) if bound.ndim == 0 else bound


def cfr_nash_conv_bound(game: pyspiel.Game, iterations: int) -> float:
  """CFR's bound on the NashConv of its average policy after T = ``iterations`` iterations,
  Delta (|I_0| + |I_1|) sqrt(|A|) / sqrt(T) (Zinkevich et al. 2007, Theorem 4, summed over both
  players; see the module docstring).

  Args:
    game: a two-player zero-sum (or constant-sum) game.
    iterations: T >= 1.

  Returns:
    The bound, with |I_0| + |I_1| the information states of OpenSpiel's ``TabularPolicy``,
    Delta = ``max_utility() - min_utility()`` and |A| = ``num_distinct_actions()``.

  Raises:
    ValueError: if the game is not two-player zero- or constant-sum (the derivation needs it), or
      iterations < 1.
  """
  game_tree.check_two_player_fixed_sum(game, "CFR's NashConv bound")
  if iterations < 1:
    raise ValueError(f"CFR's NashConv bound needs iterations >= 1, got {iterations}")
  infosets = len(policy_lib.TabularPolicy(game).state_lookup)  # |I_0| + |I_1|.
  delta = game.max_utility() - game.min_utility()
  # Theorem 4: every information set's regret-matching bound, summed.
  return infosets * regret_matching_bound(delta, game.num_distinct_actions(), iterations)
