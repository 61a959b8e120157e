"""CFR update rules, compiled: regret matching, RM+, discounting, averaging weights.

Every rule works on an array of per-sequence values in which each information set's actions form
one contiguous block (see ``Blocks``). These are the only implementations of the rules in the
project: the compiled CFR kernel (``cfr_kernel``) calls the per-block functions below from its
loops, and Python callers (CFR-AVG, the engine's ``average``, experiments) call the array-level
functions, which run the same per-block functions.

Per-block sums add the first item to the sum of the others taken in order, s = a_0 + (a_1 + ...
+ a_{k-1}): numpy's ``np.add.reduceat`` order for blocks of up to 8 items, so that the kernel
reproduces the numpy engine it replaced bit for bit (``tests/numpy_reference.py``).

References:
  Hart, Mas-Colell, "A simple adaptive procedure leading to correlated equilibrium",
    Econometrica 2000 (regret matching).
  Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
    information", NeurIPS 2007 (CFR).
  Tammelin, "Solving large imperfect information games using CFR+", arXiv 1407.5042, 2014 (RM+).
  Brown, Sandholm, "Solving imperfect-information games via discounted regret minimization",
    AAAI 2019 (linear and discounted CFR).
"""

import dataclasses
from typing import Tuple

import numba
import numpy as np


@dataclasses.dataclass(frozen=True)
class Blocks:
  """Contiguous blocks of items, one block per information set.

  Attributes:
    starts: int array (num_blocks,), first item of each block (increasing, starts[0] = 0).
    sizes: int array (num_blocks,), number of items (actions) of each block (>= 1).
  """

  starts: np.ndarray
  sizes: np.ndarray

  @classmethod
  def from_sizes(cls, sizes: np.ndarray) -> "Blocks":
    sizes = np.asarray(sizes, dtype=np.int64)
    if np.any(sizes < 1):
      raise ValueError("every block needs at least one item")
    return cls(starts=np.cumsum(sizes) - sizes, sizes=sizes)


# Per-block rules (called from compiled loops) ---------------------------------------------------


@numba.njit(cache=True, error_model="numpy")
def block_sum(values: np.ndarray, start: int, size: int) -> float:
  """sum_a values[start + a] as a_0 + (a_1 + ... + a_{size-1}) (module docstring)."""
  rest = 0.0
  for s in range(start + 1, start + size):
    rest += values[s]
  return values[start] + rest


@numba.njit(cache=True, error_model="numpy")
def match_block(regrets: np.ndarray, out: np.ndarray, start: int, size: int) -> None:
  """Regret matching of one information set (Hart and Mas-Colell 2000), into ``out``.

  sigma(I, a) = R+(I, a) / sum_b R+(I, b) with R+ = max(R, 0) when the sum is positive, and
  uniform 1 / |A(I)| otherwise, exactly as OpenSpiel's ``cfr._regret_matching``; computed as
  R+ / d + u with (d, u) = (sum, 0) or (1, 1 / |A(I)|), without a branch.
  """
  rest = 0.0
  for s in range(start + 1, start + size):
    rest += max(regrets[s], 0.0)
  total = max(regrets[start], 0.0) + rest
  positive = total > 0.0
  divisor = total if positive else 1.0
  uniform = 0.0 if positive else 1.0 / size
  for s in range(start, start + size):
    out[s] = max(regrets[s], 0.0) / divisor + uniform


@numba.njit(cache=True, error_model="numpy")
def normalize_block(cumulative: np.ndarray, out: np.ndarray, start: int, size: int) -> None:
  """The average policy of one information set, into ``out``.

  sigma_bar(I, a) = S(I, a) / sum_b S(I, b), uniform where the sum is zero (an information set
  never reached), as OpenSpiel's ``cfr._update_average_policy``; numerators are >= 0.
  """
  total = block_sum(cumulative, start, size)
  positive = total > 0.0
  divisor = total if positive else 1.0
  uniform = 0.0 if positive else 1.0 / size
  for s in range(start, start + size):
    out[s] = cumulative[s] / divisor + uniform


@numba.njit(cache=True, error_model="numpy")
def discount_factors(iteration: int, alpha: float, beta: float) -> Tuple[float, float]:
  """Discounted CFR's regret discounts after iteration t (Brown and Sandholm 2019).

  Positive (and zero) cumulative regrets are multiplied by t^alpha / (t^alpha + 1), negative
  ones by t^beta / (t^beta + 1), as OpenSpiel's ``discounted_cfr``; alpha = beta = 1 gives
  linear CFR's regret weighting. Returns (positive factor, negative factor).
  """
  t = float(iteration)
  return t**alpha / (t**alpha + 1.0), t**beta / (t**beta + 1.0)


@numba.njit(cache=True, error_model="numpy")
def discount_block(regrets: np.ndarray, start: int, size: int, positive: float,
                   negative: float) -> None:
  """Applies ``discount_factors`` to one information set's regrets, in place."""
  for s in range(start, start + size):
    regrets[s] *= positive if regrets[s] >= 0.0 else negative


@numba.njit(cache=True, error_model="numpy")
def clip_block(regrets: np.ndarray, start: int, size: int) -> None:
  """Regret matching+ (Tammelin 2014): R <- max(R, 0), in place, after each regret update."""
  for s in range(start, start + size):
    regrets[s] = max(regrets[s], 0.0)


@numba.njit(cache=True, error_model="numpy")
def averaging_weight(iteration: int, gamma: float) -> float:
  """Weight w_t = t^gamma of iteration t in the average policy.

  gamma = 0 is CFR's uniform average (Zinkevich et al. 2007), gamma = 1 linear averaging (CFR+,
  Tammelin 2014; linear CFR), gamma = 2 discounted CFR's default (Brown and Sandholm 2019).
  """
  if gamma == 0.0:
    return 1.0
  return float(iteration)**gamma


# Array-level rules (Python callers) -------------------------------------------------------------


@numba.njit(cache=True, error_model="numpy")
def _match_all(regrets, starts, sizes, out):
  for b in range(len(starts)):
    match_block(regrets, out, starts[b], sizes[b])


@numba.njit(cache=True, error_model="numpy")
def _normalize_all(cumulative, starts, sizes, out):
  for b in range(len(starts)):
    normalize_block(cumulative, out, starts[b], sizes[b])


def regret_matching(regrets: np.ndarray, blocks: Blocks) -> np.ndarray:
  """Regret matching (``match_block``) of every block of ``regrets``; returns the policy."""
  out = np.empty(len(regrets))
  _match_all(np.ascontiguousarray(regrets, dtype=np.float64), blocks.starts, blocks.sizes, out)
  return out


def normalize_average(cumulative: np.ndarray, blocks: Blocks) -> np.ndarray:
  """The average policy (``normalize_block``) of every block of ``cumulative``."""
  out = np.empty(len(cumulative))
  _normalize_all(np.ascontiguousarray(cumulative, dtype=np.float64), blocks.starts,
                 blocks.sizes, out)
  return out
