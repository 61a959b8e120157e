"""CFR update rules on flat arrays, for Python callers: regret matching and averages.

Every rule works on an array of per-sequence values in which each information set's actions form
one contiguous block (see ``Blocks``). The rules themselves (regret matching, RM+ clipping,
discounting, averaging weights) are compiled in ``rule_kernel``, the only implementation in the
project: its loops call them per block, and the functions here run them over all blocks of an
array.

References:
  Hart, Mas-Colell, "A simple adaptive procedure leading to correlated equilibrium",
    Econometrica 2000 (regret matching).
  Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
    information", NeurIPS 2007 (CFR).
  Tammelin, "Solving large imperfect information games using CFR+", arXiv 1407.5042, 2014 (RM+).
  Brown, Sandholm, "Solving imperfect-information games via discounted regret minimization",
    AAAI 2019 (linear and discounted CFR).
"""

import numpy as np

from algorithms.cfr import rule_kernel
from algorithms.tree.sequence_form import Blocks  # noqa: F401 (re-exported: the rules' blocks)

# w_t = t^gamma, the weight of iteration t in the average policy (compiled).
averaging_weight = rule_kernel.averaging_weight


def regret_matching(regrets: np.ndarray, blocks: Blocks) -> np.ndarray:
  """Regret matching of every block: sigma(I, a) = R+(I, a) / sum_b R+(I, b), uniform where the
  sum is 0 (``rule_kernel.match_block``, as OpenSpiel's ``cfr._regret_matching``)."""
  out = np.empty(len(regrets))
  # Per block I: sigma(I, a) = R+(I, a) / d + u, (d, u) = (sum_b R+(I, b), 0) or (1, 1 / |A(I)|).
  rule_kernel.match_blocks(np.ascontiguousarray(regrets, dtype=np.float64), blocks.starts,
                          blocks.sizes, out)
  return out


def normalize_average(cumulative: np.ndarray, blocks: Blocks) -> np.ndarray:
  """The average policy of every block: S(I, a) / sum_b S(I, b), uniform where the sum is 0
  (``rule_kernel.normalize_block``, as OpenSpiel's ``cfr._update_average_policy``)."""
  out = np.empty(len(cumulative))
  # Per block I: sigma_bar(I, a) = S(I, a) / sum_b S(I, b), or 1 / |A(I)| if the sum is 0.
  rule_kernel.normalize_blocks(np.ascontiguousarray(cumulative, dtype=np.float64),
                              blocks.starts, blocks.sizes, out)
  return out
