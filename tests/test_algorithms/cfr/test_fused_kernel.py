"""The fused iterations of ``CFREngine.solve`` against ``cfr_kernel.exact_iterations``.

``fused_kernel`` reorders the loops of a pass (terminal values inside the backup's sweep) but
not the arithmetic: every sum runs in ``cfr_kernel``'s order and regret matching divides as
``match_block`` does, so the tolerance is zero: regrets, average numerators and policies are
equal bit for bit, for every update rule, alternating and simultaneous updates, two and more
players, from regrets of both signs, and however the iterations are split into calls.
"""

import numpy as np
import pytest
import test_cfr_kernel

from algorithms.cfr import cfr_kernel
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
from helpers import load
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

# test_cfr_kernel's rules (CFR, CFR+, alternating and simultaneous, DCFR, LCFR) and the
# predictive and discounted CFR+ ones.
RULES = {
    **test_cfr_kernel.RULES,
    "pcfr_plus": UpdateRule(regret_matching_plus=True, averaging_gamma=2.0, predictive=True),
    "sapcfr_plus": UpdateRule.sapcfr_plus(2.0, 2.0),
    "apcfr_plus": UpdateRule.apcfr_plus(5.0, 2.0),
    "dcfr_plus": UpdateRule(regret_matching_plus=True, averaging_gamma=2.0, discount_alpha=1.5,
                            discount_beta=1.5, discount_constant=1.5),
    "pdcfr_plus_simultaneous": UpdateRule(
        alternating_updates=False, regret_matching_plus=True, averaging_gamma=5.0,
        discount_alpha=2.3, discount_beta=2.3, predictive=True),
}
GAMES = ["kuhn_poker", "leduc_poker", "kuhn_poker(players=3)",
         "first_sealed_auction(players=3,max_value=3)",
         "turn_based_simultaneous_game(game=matching_pennies_3p())"]


@pytest.fixture(scope="module", params=GAMES)
def arrays(request):
  return TreeArrays(GameTree.from_game(load(request.param)))


def started(arrays, rule):
  """An engine at iteration 3 with regrets of both signs (RM+ must clip them all)."""
  engine = CFREngine(arrays, rule)
  regrets = np.random.default_rng(0).standard_normal(arrays.num_sequences)
  regrets[:arrays.num_players] = 0.0
  engine.restore(3, regrets, np.zeros(arrays.num_sequences))
  return engine


@pytest.mark.parametrize("rule_name", sorted(RULES))
def test_fused_equals_exact_iterations(arrays, rule_name):
  rule = RULES[rule_name]
  iterations = 6 if arrays.num_sequences > 1000 else 30
  fused, split, exact = (started(arrays, rule) for _ in range(3))
  fused.solve(iterations)
  split.solve(1)  # RM+ clips every regret after a call's first pass: calls of any length.
  split.solve(0)
  split.solve(iterations - 1)
  cfr_kernel.exact_iterations(arrays.kernel, exact._kernel_rule,  # pylint: disable=protected-access
                              arrays.weighted_utility, exact.sigma, exact.regrets,
                              exact.cumulative, exact.memory, exact.iteration, iterations)
  for engine in (fused, split):
    assert engine.iteration == 3 + iterations
    # Tolerance 0: the same floating-point operations in the same order (module docstring).
    np.testing.assert_array_equal(engine.regrets, exact.regrets)
    np.testing.assert_array_equal(engine.cumulative, exact.cumulative)
    np.testing.assert_array_equal(engine.sigma, exact.sigma)


def test_sweep_layout(arrays):
  sweep, n = arrays.sweep, arrays.num_players
  for field in sweep._fields:
    if field not in ("num_players", "pass_infoset_ptr"):
      assert getattr(sweep, field).dtype == np.uint32, field
  ptr = sweep.seq_entry_ptr.astype(np.int64)
  # Sequence s owns one entry per (p, z) with seq_p(z) = s, in increasing terminal index.
  np.testing.assert_array_equal(np.diff(ptr), np.bincount(arrays.terminal_seq.ravel(),
                                                          minlength=arrays.num_sequences))
  for s in range(arrays.num_sequences):
    entries = slice(ptr[s], ptr[s + 1])
    z, p = sweep.entry_terminal[entries], sweep.entry_player[entries]
    assert np.all(np.diff(z.astype(np.int64)) > 0)
    np.testing.assert_array_equal(arrays.terminal_seq[z, p], s)
  others = sweep.entry_others.reshape(-1, n - 1)
  for j in range(n - 1):  # Column j: the j-th other player in increasing order.
    player = j + (j >= sweep.entry_player)  # j, or j + 1 past the entry's own player
    np.testing.assert_array_equal(others[:, j],
                                  arrays.terminal_seq[sweep.entry_terminal, player])
  children = sweep.child_ptr.astype(np.int64)
  for s in range(arrays.num_sequences):
    np.testing.assert_array_equal(sweep.child_infosets[children[s]:children[s + 1]],
                                  np.flatnonzero(arrays.infoset_parent == s))
