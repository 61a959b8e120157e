"""CFR update rules on flat arrays: regret matching, RM+, discounting, averaging weights.

Every rule works on an array of per-sequence values in which each information set's actions form
one contiguous block (see ``Blocks``). These are the only implementations of the rules in the
project; the CFR engine and CFR-AVG call them.

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

import numpy as np


@dataclasses.dataclass(frozen=True)
class Blocks:
  """Contiguous blocks of items, one block per information set.

  Attributes:
    starts: int array (num_blocks,), first item of each block (increasing, starts[0] = 0).
    sizes: int array (num_blocks,), number of items (actions) of each block (>= 1).
    block_of: int array (num_items,), the block of each item.
  """

  starts: np.ndarray
  sizes: np.ndarray
  block_of: np.ndarray

  @classmethod
  def from_sizes(cls, sizes: np.ndarray) -> "Blocks":
    sizes = np.asarray(sizes, dtype=np.int64)
    if np.any(sizes < 1):
      raise ValueError("every block needs at least one item")
    return cls(starts=np.cumsum(sizes) - sizes, sizes=sizes,
               block_of=np.repeat(np.arange(len(sizes), dtype=np.int64), sizes))

  def sums(self, values: np.ndarray) -> np.ndarray:
    """Per-block sums of ``values`` (num_items,)."""
    if len(self.starts) == 0:
      return np.zeros(0)
    return np.add.reduceat(values, self.starts)


def regret_matching(regrets: np.ndarray, blocks: Blocks) -> np.ndarray:
  """Regret matching (Hart and Mas-Colell 2000), per information set.

  sigma(I, a) = R+(I, a) / sum_b R+(I, b) with R+ = max(R, 0) when the sum is positive, and
  uniform 1 / |A(I)| otherwise, exactly as OpenSpiel's ``cfr._regret_matching``.

  Args:
    regrets: cumulative regrets (num_items,).
    blocks: the information-set blocks of the items.

  Returns:
    The policy (num_items,).
  """
  return normalize_average(np.maximum(regrets, 0.0), blocks)


def clip_regrets_plus(regrets: np.ndarray) -> None:
  """Regret matching+ (Tammelin 2014): R <- max(R, 0), in place, after each regret update."""
  np.maximum(regrets, 0.0, out=regrets)


def discount_regrets(regrets: np.ndarray, iteration: int, alpha: float, beta: float) -> None:
  """Discounted CFR's regret discount (Brown and Sandholm 2019), in place.

  After iteration t, positive (and zero) cumulative regrets are multiplied by
  t^alpha / (t^alpha + 1) and negative ones by t^beta / (t^beta + 1), as OpenSpiel's
  ``discounted_cfr``. alpha = beta = 1 gives linear CFR's regret weighting.
  """
  t = float(iteration)
  positive = t**alpha / (t**alpha + 1.0)
  negative = t**beta / (t**beta + 1.0)
  regrets *= np.where(regrets >= 0.0, positive, negative)


def averaging_weight(iteration: int, gamma: float) -> float:
  """Weight w_t = t^gamma of iteration t in the average policy.

  gamma = 0 is CFR's uniform average (Zinkevich et al. 2007), gamma = 1 linear averaging (CFR+,
  Tammelin 2014; linear CFR), gamma = 2 discounted CFR's default (Brown and Sandholm 2019).
  """
  if gamma == 0:
    return 1.0
  return float(iteration)**gamma


def normalize_average(cumulative: np.ndarray, blocks: Blocks) -> np.ndarray:
  """The average policy: cumulative numerators normalised per information set.

  sigma_bar(I, a) = S(I, a) / sum_b S(I, b), uniform where the sum is zero (information sets
  never reached), as OpenSpiel's ``cfr._update_average_policy``.
  """
  total = blocks.sums(cumulative)
  has = total > 0.0
  # Where the sum is 0 every (non-negative) entry is 0: dividing by 1 and adding 1/|A(I)| is
  # uniform.
  average = cumulative / np.where(has, total, 1.0)[blocks.block_of]
  average += np.where(has, 0.0, 1.0 / blocks.sizes)[blocks.block_of]
  return average
