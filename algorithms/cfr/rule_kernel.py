"""The update rules of CFR and its variants, per information set, compiled.

The rules act on one information set (one contiguous block of actions): regret matching (Hart
and Mas-Colell, "A simple adaptive procedure leading to correlated equilibrium", Econometrica
2000), RM+ clipping (Tammelin, "Solving large imperfect information games using CFR+",
arXiv 1407.5042, 2014), discounting and averaging weights (Brown and Sandholm, "Solving
imperfect-information games via discounted regret minimization", AAAI 2019), and predictive
regret matching+ (Farina, Kroer and Sandholm, "Faster game solving via predictive Blackwell
approachability: connecting regret matching and mirror descent", AAAI 2021), which with the
discounts gives DCFR+ and PDCFR+ (Xu, Li, Liu, Fu, Fu, Xing and Cheng, "Minimizing weighted
counterfactual regret with optimistic online mirror descent", IJCAI 2024).

``iteration_weights`` and ``end_block_update`` are the only definition of each rule: the flat
engine's passes (``cfr_kernel``, ``fused_kernel``, ``sampled_kernel``) and the range vectors'
(``range_kernel``) all call them. Step 4-5 of a pass in ``cfr_kernel``'s docstring.
"""

import math
from typing import NamedTuple, Tuple

from numba import extending
import numpy as np

from algorithms.cfr.kernel_compiler import kernel


class KernelRule(NamedTuple):
  """``update_rules.UpdateRule`` in the kernel's types (no discount: ``discount`` False).

  Scalars only: a rule's state (APCFR+'s ``memory``, ``adaptive_weight``) is an argument of
  its own (an array field here ran every rule's passes 3x slower on leduc_poker, measured).
  ``adaptive`` says whether the rule keeps one; the kernels read its presence from the
  ``memory`` argument's type (``end_block_update``).
  """

  alternating: bool
  regret_matching_plus: bool
  averaging_gamma: float
  discount: bool
  discount_alpha: float
  discount_beta: float
  discount_constant: float
  predictive: bool
  prediction_weight: float
  adaptive: bool
  asymmetry_max: float


# Update rules, per information set -------------------------------------------------------
# The helpers called once per information set by the passes are ``@kernel(inline=True)``: a
# compiled call per set cost leduc_poker's exact iterations 1.3x their time (measured).


@kernel
def block_sum(values: np.ndarray, start: int, size: int) -> float:
  """sum_a values[start + a] as a_0 + (a_1 + ... + a_{size-1}) (module docstring)."""
  rest = 0.0
  for s in range(start + 1, start + size):
    rest += values[s]  # a_1 + ... + a_{k-1}
  return values[start] + rest  # a_0 + (a_1 + ... + a_{k-1}), np.add.reduceat's order


@kernel(inline=True)
def match_block(regrets: np.ndarray, out: np.ndarray, start: int, size: int) -> None:
  """Regret matching of one information set (Hart and Mas-Colell 2000), into ``out``.

  sigma(I, a) = R+(I, a) / sum_b R+(I, b) with R+ = max(R, 0) when the sum is positive, and
  uniform 1 / |A(I)| otherwise, exactly as OpenSpiel's ``cfr._regret_matching``; computed as
  R+ / d + u with (d, u) = (sum, 0) or (1, 1 / |A(I)|), without a branch.
  """
  rest = 0.0
  for s in range(start + 1, start + size):
    rest += max(regrets[s], 0.0)  # sum_{b > 0} R+(I, b), R+ = max(R, 0)
  total = max(regrets[start], 0.0) + rest  # sum_b R+(I, b)
  positive = total > 0.0
  divisor = total if positive else 1.0  # d = sum_b R+(I, b), or 1 when the sum is 0
  uniform = 0.0 if positive else 1.0 / size  # u = 0, or 1 / |A(I)| when the sum is 0
  for s in range(start, start + size):
    out[s] = max(regrets[s], 0.0) / divisor + uniform  # sigma(I, a) = R+(I, a) / d + u


@kernel
def normalize_block(cumulative: np.ndarray, out: np.ndarray, start: int, size: int) -> None:
  """The average policy of one information set, into ``out``.

  sigma_bar(I, a) = S(I, a) / sum_b S(I, b), uniform where the sum is zero (an information set
  never reached), as OpenSpiel's ``cfr._update_average_policy``; numerators are >= 0.
  """
  total = block_sum(cumulative, start, size)  # sum_b S(I, b)
  positive = total > 0.0
  divisor = total if positive else 1.0  # sum_b S(I, b), or 1 at a set never reached
  uniform = 0.0 if positive else 1.0 / size  # 0, or 1 / |A(I)| at a set never reached
  for s in range(start, start + size):
    out[s] = cumulative[s] / divisor + uniform  # sigma_bar(I, a) = S(I, a) / sum_b S(I, b)


@kernel
def discount_factors(iteration: int, alpha: float, beta: float,
                     constant: float) -> Tuple[float, float]:
  """Discounted CFR's regret discounts after iteration t (Brown and Sandholm 2019).

  Positive (and zero) cumulative regrets are multiplied by t^alpha / (t^alpha + c), negative
  ones by t^beta / (t^beta + c). c = 1 is DCFR's factor (Brown and Sandholm 2019), as
  OpenSpiel's ``discounted_cfr``, and DCFR+'s and PDCFR+'s (Xu et al. 2024);
  alpha = beta = 1 gives linear CFR's regret weighting. c = 1.5 is the factor of the DCFR+ in
  the code Xu et al. released (``end_block_update``). Returns (positive factor, negative
  factor).
  """
  t = float(iteration)
  # DCFR: R >= 0 is scaled by t^alpha / (t^alpha + c), R < 0 by t^beta / (t^beta + c).
  return t**alpha / (t**alpha + constant), t**beta / (t**beta + constant)


@kernel(inline=True)
def discount_block(regrets: np.ndarray, start: int, size: int, positive: float,
                   negative: float) -> None:
  """Applies ``discount_factors`` to one information set's regrets, in place."""
  for s in range(start, start + size):
    # R(I, a) *= t^alpha / (t^alpha + 1) if R(I, a) >= 0, else t^beta / (t^beta + 1)
    regrets[s] *= positive if regrets[s] >= 0.0 else negative


@kernel(inline=True)
def clip_block(regrets: np.ndarray, start: int, size: int) -> None:
  """Regret matching+ (Tammelin 2014): R <- max(R, 0), in place, after each regret update."""
  for s in range(start, start + size):
    regrets[s] = max(regrets[s], 0.0)  # RM+ (CFR+): R(I, a) = max(R(I, a), 0)


@kernel
def averaging_weight(iteration: int, gamma: float) -> float:
  """Weight w_t = t^gamma of iteration t in the average policy.

  gamma = 0 is CFR's uniform average (Zinkevich et al. 2007), gamma = 1 linear averaging (CFR+,
  Tammelin 2014; linear CFR), gamma = 2 discounted CFR's default (Brown and Sandholm 2019).
  """
  if gamma == 0.0:
    return 1.0  # w_t = 1: vanilla CFR's uniform average
  # t^gamma gives the normalised average of DCFR's S *= (t / (t + 1))^gamma per iteration.
  return float(iteration)**gamma  # w_t = t^gamma (1: linear, CFR+; 2: DCFR)




@kernel
def match_blocks(regrets: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                 out: np.ndarray) -> None:
  """``match_block`` of every block (first item ``starts[b]``, ``sizes[b]`` items)."""
  for b in range(len(starts)):
    match_block(regrets, out, starts[b], sizes[b])  # sigma(I, .) = regret matching of R(I, .)


@kernel
def normalize_blocks(cumulative: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                     out: np.ndarray) -> None:
  """``normalize_block`` of every block."""
  for b in range(len(starts)):
    normalize_block(cumulative, out, starts[b], sizes[b])  # sigma_bar(I, .) = S / sum_b S


@kernel
def iteration_weights(rule: KernelRule, t: int) -> Tuple[float, float, float]:
  """The rule's weights of iteration t: (w_t, positive discount, negative discount).

  w_t = t^gamma weights the iteration in the average policy (``averaging_weight``); the
  discounts multiply R >= 0 and R < 0 after the update (``discount_factors``), 1 without
  discounting.
  """
  w = averaging_weight(t, rule.averaging_gamma)  # w_t = t^gamma
  if rule.discount:
    # DCFR: t^alpha / (t^alpha + c) for R >= 0, t^beta / (t^beta + c) for R < 0.
    positive, negative = discount_factors(t, rule.discount_alpha, rule.discount_beta,
                                          rule.discount_constant)
    return w, positive, negative
  return w, 1.0, 1.0


@kernel(inline=True)
def adaptive_weight(rule: KernelRule, memory: np.ndarray, q: np.ndarray, value: float,
                    regrets: np.ndarray, start: int, size: int) -> float:
  """APCFR+'s prediction weight 1 / (1 + alpha_I) at information set I (Meng et al. 2026).

  After the update of R at I (``regrets`` R_t, r_t = q - v): E_I += ||r_t - r_{t-1}||^2
  (r_0 = 0), M_I += ||R_t - R_{t-1}||^2 (R_0 = 0), and alpha_I = min(sqrt(E_I / M_I),
  alpha_max) (alpha_max where M_I = 0). ``memory`` (4 G, ``UpdateRule.memory``) keeps E_I at
  I's first sequence s, memory[s], M_I at memory[G + s], and r_t and R_t of each sequence s at
  memory[2 G + s] and memory[3 G + s] (APCFR+'s R changes only here: it has no discount).
  """
  g = len(memory) // 4
  # Sums kept in memory, not in locals: numba's inlining of this function through
  # ``prediction_weight``'s overload warns about loop-carried locals.
  for s in range(start, start + size):
    r = q[s] - value  # r_t(I, a)
    memory[start] += (r - memory[2 * g + s]) * (r - memory[2 * g + s])  # E_I += (r_t - r_{t-1})^2
    step = regrets[s] - memory[3 * g + s]  # (R_t - R_{t-1})(I, a)
    memory[g + start] += step * step  # M_I += (R_t - R_{t-1})(I, a)^2
    memory[2 * g + s] = r
    memory[3 * g + s] = regrets[s]
  cap = rule.asymmetry_max
  if memory[start] >= cap * cap * memory[g + start]:
    return 1.0 / (1.0 + cap)  # sqrt(E_I / M_I) >= alpha_max, or M_I = 0
  return 1.0 / (1.0 + math.sqrt(memory[start] / memory[g + start]))  # 1 / (1 + alpha_I)


def prediction_weight(rule: KernelRule, memory: np.ndarray, q: np.ndarray, value: float,
                      regrets: np.ndarray, start: int, size: int) -> float:
  """Lambda of the prediction m = lambda r at one information set, after R's update.

  APCFR+'s ``adaptive_weight`` where the rule keeps state (a 1-D ``memory``,
  ``UpdateRule.memory``), else the rule's fixed weight (0 for a rule that does not predict).
  Compiled, the choice is made by ``memory``'s type (``_prediction_weight``): a branch on it in
  ``end_block_update``, even never taken, ran every rule 3x slower on leduc_poker (measured).
  """
  if memory.ndim == 1:
    return adaptive_weight(rule, memory, q, value, regrets, start, size)
  return rule.prediction_weight if rule.predictive else 0.0


@extending.overload(prediction_weight, inline="always")
def _prediction_weight(rule, memory, q, value, regrets, start, size):
  """``prediction_weight`` compiled for ``memory``'s type, without a branch on it."""
  del q, value, regrets, start, size  # the implementations' arguments
  if memory.ndim == 1:
    def adaptive(rule, memory, q, value, regrets, start, size):
      return adaptive_weight(rule, memory, q, value, regrets, start, size)
    return adaptive

  def fixed(rule, memory, q, value, regrets, start, size):
    return rule.prediction_weight * rule.predictive  # lambda, or 0 for a rule that does not predict
  return fixed


@kernel(inline=True)
def end_block_update(rule: KernelRule, q: np.ndarray, value: float, regrets: np.ndarray,
                     sigma: np.ndarray, memory: np.ndarray, start: int, size: int,
                     positive: float, negative: float) -> None:
  """Steps 4 (the regrets) and 5 at one information set I, in place.

  With r(I, a) = q(I, a) - v(I), the pass's instantaneous counterfactual regrets (``q`` is
  indexed like ``regrets``; ``value`` is v(I); ``memory`` the rule's state, read by APCFR+
  only, ``adaptive_weight``):

  * R(I, a) += r(I, a), the cumulative counterfactual regret (Zinkevich et al. 2007);
  * RM+: R = max(R, 0) if the rule asks (Tammelin 2014, CFR+);
  * the discounts of ``iteration_weights``, by R's sign (DCFR, Brown and Sandholm 2019);
  * sigma(I, .) = regret matching of R(I, .), or with a predictive rule of R(I, .) + m(I, .)
    with the prediction m = lambda r, r the instantaneous regret just observed and lambda the
    rule's ``prediction_weight`` (Farina et al. 2021, predictive RM+:
    x^t = [R^{t-1} + m^t]^+ / ||[R^{t-1} + m^t]^+||_1, uniform where the norm is 0, after
    R^t = [R^{t-1} + r^t]^+, with the prediction m^{t+1} = r^t of their experiments,
    lambda = 1; Meng et al. 2026's SAPCFR+ takes the prediction's step 1 / (1 + alpha) of
    the regrets', lambda = 1/3 at alpha = 2, and their APCFR+ lambda = 1 / (1 + alpha_I)
    with alpha_I adapted per set, ``adaptive_weight``).

  The rules of the papers, with t the iteration of the pass and d(t) = t^alpha / (t^alpha + c)
  (d(0) = 0), in the form this function stores them:

  * CFR+: R_t = [R_{t-1} + r_t]^+, sigma_{t+1} = RM(R_t);
  * PCFR+ (Farina et al. 2021, PRM+ at every information set, "predictive CFR+"):
    R_t = [R_{t-1} + r_t]^+, sigma_{t+1} = RM([R_t + r_t]^+);
  * SAPCFR+ (Meng, Yang, Zhang, Ge and Gao, "Faster game solving via asymmetry of step
    sizes", AAAI 2026, arXiv 2503.12770): R_t = [R_{t-1} + r_t]^+,
    sigma_{t+1} = RM([R_t + r_t / (1 + alpha)]^+), alpha = 2; APCFR+ (same paper) with
    alpha_I of ``adaptive_weight`` at each set I;
  * DCFR+ (Xu et al. 2024: RM+ on discounted regrets, OMD on weighted regrets):
    Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+, sigma_{t+1} = RM(Rhat_t);
  * PDCFR+ (Xu et al. 2024: predictive RM+ on discounted regrets, optimistic OMD):
    Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+, sigma_{t+1} = RM([d(t) Rhat_t + r_t]^+).

  The discounted rules keep R_t = d(t) Rhat_t, the DCFR convention of discounting after the
  update (as OpenSpiel's ``discounted_cfr``): R_t = d(t) [R_{t-1} + r_t]^+ is "add r, clip,
  discount with t's factor", regret matching is invariant under the scale d(t) > 0, and
  PDCFR+'s prediction d(t) Rhat_t + r_t is R_t + r_t, PCFR+'s prediction on the stored R. Every
  engine (the flat passes here, the range-vector passes of ``range_kernel``) updates an
  information set's regrets and policy with this function, so a rule is defined once.
  """
  for s in range(start, start + size):
    # q, v are counterfactual: they carry pi_{-i}, the others' and chance's reach.
    regrets[s] += q[s] - value  # R(I, a) += r(I, a) = q(I, a) - v(I)
  if rule.regret_matching_plus:
    clip_block(regrets, start, size)  # RM+: R(I, a) = max(R(I, a), 0)
  if rule.discount:
    discount_block(regrets, start, size, positive, negative)  # DCFR: R *= the factor of R's sign
  # The prediction m = lam r with lam the rule's prediction weight for a predictive rule (1:
  # PCFR+, PDCFR+; 1/3: SAPCFR+), 0 otherwise (R + 0 r = R): one regret matching for every
  # rule (a second call in a branch for the predictive rules ran leduc_poker's CFR+ 17%
  # slower, measured).
  lam = prediction_weight(rule, memory, q, value, regrets, start, size)  # APCFR+: 1/(1+alpha_I)
  for s in range(start, start + size):
    sigma[s] = regrets[s] + lam * (q[s] - value)  # R(I, a) + m(I, a), m = lam r: the prediction
  # sigma(I, a) = [R + m]+(I, a) / sum_b [R + m]+(I, b), or 1 / |A(I)| if the sum is 0; in
  # place, as each entry is read before it is written.
  match_block(sigma, sigma, start, size)
