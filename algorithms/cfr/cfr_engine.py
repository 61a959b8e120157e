"""CFR iterations on the flat sequence-form arrays of a ``GameTree``, run by a compiled kernel.

One iteration of vanilla CFR (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in
games with incomplete information", NeurIPS 2007) for n players, reordered into whole-array
passes over the global layout (``tree_layout.TreeArrays``). A pass updating player i against
the current policy sigma:

1. realization plans, top-down over information-set depth levels:
   x[(I, a)] = x[parent(I)] sigma(I, a), x[empty_p] = 1 for every player p;
2. terminal counterfactual values of player i:
   c_i[s] = sum_{z: seq_i(z) = s} u_i(z) pi_c(z) prod_{j != i} x[seq_j(z)];
3. bottom-up over levels: q(I, a) = c_i[(I, a)] + sum_{J: parent(J) = (I, a)} v(J),
   v(I) = sum_a sigma(I, a) q(I, a);
4. regrets R(I, a) += q(I, a) - v(I) (q and v are counterfactual: they already carry the
   other players' and chance's reach), average numerators S(I, a) += w_t x[(I, a)] with
   w_t = t^gamma;
5. RM+ clipping / discounting, then sigma = regret matching of R (of R + r with r = q - v, the
   pass's instantaneous regrets, for the predictive rules PCFR+ and PDCFR+).

With alternating updates an iteration is one pass per player, 0, 1, ..., n - 1, each against
the policy refreshed after the previous player's pass; with simultaneous updates one pass
updates every player from the same policy (steps 2-4 summed over i). This is OpenSpiel's
``cfr._CFRSolver`` up to the order of floating-point operations. OpenSpiel accumulates the
average numerators once per history of an information set, i.e. N(I) x_i(I, a) with N(I) the
number of histories in I; the factor is constant per information set and cancels in the
normalised average policy.

The passes run in ``cfr_kernel`` (numba). The engine offers three kinds of pass:

* full-width exact passes: ``solve(n)`` runs n iterations in one compiled call, ``iterate()``
  one;
* full-width passes whose step 2 comes from a Python hook (``TerminalValues``), called once per
  pass with the plans x: ``iterate(hook)``, ``update(player, hook)``;
* chance-sampled passes over the sampled subtree only: ``iterate_sampled(tables, draws)``
  (``chance_sampling`` builds the tables and draws the numbers).

Guarantees. Each player's counterfactual regrets bound its overall regret in any game
(Zinkevich et al. 2007, Theorem 3), so in a two-player zero-sum (or constant-sum) game the
average policy converges to a Nash equilibrium (their Theorem 2). With more players or
general-sum utilities CFR runs unchanged but that conclusion does not hold: the average policy
carries no equilibrium guarantee and NashConv measures what it reaches (Abou Risk and Szafron,
"Using counterfactual regret minimization to create competitive multiplayer poker agents",
AAMAS 2010).
"""

from typing import Callable, NamedTuple, Optional, Tuple

import numpy as np

from algorithms.cfr import cfr_kernel
from algorithms.cfr import fused_kernel
from algorithms.cfr import regret_matching as rm
from algorithms.cfr import sampled_kernel
from algorithms.cfr import tree_passes
from algorithms.cfr.sampled_kernel import SampleTables
from algorithms.cfr.update_rules import UpdateRule
from algorithms.tree.tree_layout import TreeArrays


class PassValues(NamedTuple):
  """What a ``TerminalValues`` hook returns for one pass.

  Attributes:
    values: terminal counterfactual values c (G,) of the updated player(s), the input of the
      backup (step 3); e.g. ``tree_passes.terminal_values`` with other terminal weights.
    average_reach: own-reach weights (G,) of which the updated players' part enters the average
      numerators, S += w_t average_reach; the pass's realization plans x if None.
  """

  values: np.ndarray
  average_reach: Optional[np.ndarray] = None


# A hook called once per pass with the realization plans x (G,) of the current policy and the
# updated player (None: every player); returns that pass's ``PassValues``.
TerminalValues = Callable[[np.ndarray, Optional[int]], PassValues]


def sequence_policy(arrays: TreeArrays, values: np.ndarray, average: bool) -> np.ndarray:
  """A policy (G,) in the sequence layout of ``arrays``, 1 on the empty sequences.

  ``average``: sigma_bar(I, a) = S(I, a) / sum_b S(I, b) of the numerators ``values``; else
  regret matching of the regrets ``values``, sigma(I, a) = R+(I, a) / sum_b R+(I, b); uniform
  where the sum is 0 either way.
  """
  n = arrays.num_players
  out = np.ones(arrays.num_sequences)  # 1 on the empty sequences
  rule = rm.normalize_average if average else rm.regret_matching
  out[n:] = rule(values[n:], arrays.blocks)
  return out


class CFREngine:
  """The state of a CFR run on ``TreeArrays`` and its update.

  Attributes:
    arrays: the ``TreeArrays``.
    rule: the ``UpdateRule``.
    regrets: cumulative counterfactual regrets R (G,), 0 on the empty sequences.
    cumulative: average-policy numerators S (G,).
    sigma: current policy (G,): regret matching of ``regrets``, 1 on the empty sequences.
    iteration: the iteration t of the last pass (0 before the first).
  """

  def __init__(self, arrays: TreeArrays, rule: UpdateRule):
    self.arrays = arrays
    self.rule = rule
    g = arrays.num_sequences
    self.memory = rule.memory(g)  # the rule's state (APCFR+'s, ``rule_kernel``)
    self._kernel_rule = rule.kernel_rule()
    self.regrets = np.zeros(g)
    self.cumulative = np.zeros(g)
    self.sigma = np.ones(g)  # 1 on the empty sequences
    self.iteration = 0
    self._refresh_policy()  # R = 0: sigma uniform

  def _refresh_policy(self) -> None:
    """Sets sigma = regret matching of the cumulative regrets (Hart and Mas-Colell 2000)."""
    n = self.arrays.num_players
    # sigma(I, a) = R+(I, a) / sum_b R+(I, b), uniform where the sum is 0.
    self.sigma[n:] = rm.regret_matching(self.regrets[n:], self.arrays.blocks)

  def restore(self, iteration: int, regrets: np.ndarray, cumulative: np.ndarray) -> None:
    """Sets the state after ``iteration`` iterations (e.g. from a checkpoint).

    The current policy is regret matching of ``regrets``, as after any update of a
    non-predictive rule. A predictive rule's policy after an update, regret matching of R + m,
    also depends on the prediction m (the last pass's instantaneous regrets), which R does not
    hold: here it is the policy of m = 0 (PRM+'s first prediction); the solvers' checkpoints
    store the current policy and set ``sigma`` after ``restore``.
    """
    self.iteration = int(iteration)
    self.regrets[:] = regrets
    self.cumulative[:] = cumulative
    self._refresh_policy()

  def passes(self) -> Tuple[Optional[int], ...]:
    """The updated player of each pass of an iteration: 0..n-1, or (None,) if simultaneous."""
    if self.rule.alternating_updates:
      return tuple(range(self.arrays.num_players))
    return (None,)

  def plans(self) -> np.ndarray:
    """The realization plans x (G,) of the current policy (step 1)."""
    return tree_passes.realization(self.arrays, self.sigma)

  def solve(self, iterations: int) -> None:
    """``iterations`` exact full-width iterations in one compiled call.

    ``fused_kernel.fused_iterations``: the numbers of ``cfr_kernel.exact_iterations`` bit for
    bit, with a pass's terminal values and backup in one sweep.
    """
    if iterations < 0:
      raise ValueError(f"iterations must be >= 0, got {iterations}")
    a = self.arrays
    fused_kernel.fused_iterations(a.sweep, self._kernel_rule, a.weighted_utility, self.sigma,
                                  self.regrets, self.cumulative, self.memory, self.iteration,
                                  int(iterations))
    self.iteration += int(iterations)  # t of the last pass

  def iterate(self, terminal_values: Optional[TerminalValues] = None) -> None:
    """One CFR iteration: t += 1, then ``update`` for every pass of ``passes()``.

    Args:
      terminal_values: the hook of every pass (see ``update``); the exact pass if None.
    """
    if terminal_values is None:
      self.solve(1)
      return
    self.iteration += 1  # t += 1
    for player in self.passes():
      self.update(player, terminal_values)

  def update(self, player: Optional[int],
             terminal_values: Optional[TerminalValues] = None) -> None:
    """One full-width pass of iteration t = ``iteration`` updating ``player`` against ``sigma``.

    R += r with r(I, a) = q(I, a) - v(I) on the player's sequences, S += w_t x on them, RM+
    clipping and discounting as the rule asks, then sigma = regret matching of R (of R + r for
    a predictive rule).

    Args:
      player: the updated player, or None for every player from the same policy.
      terminal_values: ``hook(x, player) -> PassValues``, called once with the plans x of the
        current policy, replacing step 2 (and the reach the average accumulates); values on
        other players' sequences are ignored. None for the exact terminal values
        c_i[s] = sum_{z: seq_i(z) = s} u_i(z) pi_c(z) prod_{j != i} x[seq_j(z)].
    """
    a = self.arrays
    x = self.plans()  # Step 1: x[(I, a)] = x[parent(I)] sigma(I, a), top-down.
    # Step 2: c_i[s] = sum_{z: seq_i(z) = s} u_i(z) pi_c(z) prod_{j != i} x[seq_j(z)].
    if terminal_values is None:
      c, average_reach = tree_passes.terminal_values(a, x, a.weighted_utility, player), x
    else:  # The hook's values replace step 2.
      c, average_reach = terminal_values(x, player)
      if average_reach is None:
        average_reach = x  # S += w_t x, x[(I, a)] = pi_i(I) sigma(I, a)
    # Steps 3-5: q, v bottom-up; R += q - v; S += w_t average_reach; clip, discount; sigma.
    cfr_kernel.hook_update(
        a.kernel, self._kernel_rule, self.iteration, np.array(c, dtype=np.float64),
        np.ascontiguousarray(average_reach, dtype=np.float64),
        -1 if player is None else int(player), self.sigma, self.regrets, self.cumulative,
        self.memory)

  def iterate_sampled(self, tables: SampleTables, draws: np.ndarray) -> None:
    """Chance-sampled iterations over the sampled subtrees only, in one compiled call.

    One pass per row of ``draws`` (``len(passes())`` rows per iteration): the sampled
    histories' terminal values at weight u_i(z), and the update of the visited information sets
    of the updated player(s), whose average numerators gain w_t x times the number of visited
    histories (``sampled_kernel.sampled_iterations``).

    Args:
      tables: the tree's chance segments (``chance_sampling.ChanceSampler.tables``).
      draws: (iterations * len(passes()), D) uniform numbers in [0, 1), D the number of
        chance depths.

    Raises:
      ValueError: for a discounted or predictive rule (both are defined for full-width passes)
        or a number of rows that is not a whole number of iterations.
    """
    if self.rule.discount_alpha is not None:
      raise ValueError("discounted CFR (discount_alpha/beta) needs full-width passes, not "
                       "sampled ones")
    if self.rule.predictive:
      raise ValueError("predictive rules (predictive=True: PCFR+, PDCFR+) need full-width "
                       "passes, not sampled ones")
    passes = len(self.passes())
    if draws.ndim != 2 or len(draws) % passes:
      raise ValueError(f"draws must have a multiple of {passes} rows (one per pass), got shape "
                       f"{draws.shape}")
    a = self.arrays
    iterations = len(draws) // passes  # len(passes()) passes per iteration
    sampled_kernel.sampled_iterations(a.kernel, tables, self._kernel_rule, draws, self.sigma,
                                      self.regrets, self.cumulative, self.iteration, iterations)
    self.iteration += iterations  # t of the last pass

  def average_increment(self, player: Optional[int], reach: np.ndarray) -> np.ndarray:
    """The average numerators' increment w_t reach[s] on ``player``'s sequences (G,).

    Args:
      player: the updated player, or None for every player.
      reach: own-reach weights (G,), the realization plans x of the pass for exact CFR.
    """
    return cfr_kernel.average_increment(
        self.arrays.kernel, self._kernel_rule, self.iteration,
        np.ascontiguousarray(reach, dtype=np.float64), -1 if player is None else int(player))

  def average(self, pending: Optional[np.ndarray] = None) -> np.ndarray:
    """The average policy (G,), uniform at information sets with zero numerators.

    sigma_bar(I, a) = S(I, a) / sum_b S(I, b) (1 on the empty sequences).

    Args:
      pending: an increment (G,) added to the numerators S before normalising (S itself is
        unchanged), e.g. an ``average_increment`` of the current iteration.
    """
    # S, plus the pending increment w_t reach if given.
    numerators = self.cumulative if pending is None else self.cumulative + pending
    return sequence_policy(self.arrays, numerators, average=True)
