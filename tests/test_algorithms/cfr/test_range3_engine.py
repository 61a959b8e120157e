"""The three-player range-vector engine against the flat engine, OpenSpiel and the exact family.

References: the flat engine (``cfr_engine.CFREngine`` on the game tree; itself equal to
OpenSpiel's CFR solvers, ``test_solvers.py``) for regrets, numerators and policies; OpenSpiel's
``exploitability.nash_conv`` (Python, on ``kuhn_poker_ante``) and ``pyspiel.nash_conv`` (C++, on
OpenSpiel's own ``kuhn_poker(players=3)``) for NashConv; the Szafron-Gibson-Sturtevant family
(``algorithms.exact.kuhn3_equilibria``, AAMAS 2013) with its exact certificate for the solution
at four cards.

Ties. Two correct implementations that group the same sums differently break exact ties of
counterfactual values differently (``test_solvers.py``); with ante = bet = 1 three-player Kuhn
has such ties at the uniform start (``helpers.uniform_profile_ties``: ``0pp`` at 4 cards, four
information states at 5), so the engines are compared at ante 0.75, bet 1.25, which has none
(checked below).

Chaos. Some rules amplify a difference of one rounding smoothly, about tenfold every 10 to 20
iterations (measured on 13 cards over 200 iterations: linear CFR to 2e-9 in the average policy,
DCFR to 9e-8, DCFR+ to 4e-4, from 1e-16 after the first iteration; APCFR+, whose alpha_I
divides sums of squared regret changes, its regrets to 3.6e-13 at 50 iterations and 1.9e-12 at
200), as any change of summation order would, while the others stay near 1e-14. So the kernels
are compared in two ways: whole runs of 200 iterations where the rule's run is not chaotic at
that deck, and for every rule and
deck one iteration at a time from the flat engine's state, over the flat engine's first 200
iterations (``test_every_iteration_is_the_flat_engines``): that compares the two engines' maps
at every state the run visits, which chaos cannot blur (measured: below 2e-13).
"""

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.range_engine import RangeLayout
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.exact import exact_nash_conv
from algorithms.exact import kuhn3_equilibria as k3
from algorithms.tree.game_tree import GameTree
from algorithms.tree.kuhn_tree import kuhn_card_tree3
from algorithms.tree.tree_layout import TreeArrays
from helpers import uniform_profile_ties
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games.kuhn_rules import KuhnRules

# Every rule of the flat engine, as the solver classes set them (solvers.py).
RULES = {
    "cfr": UpdateRule(),
    "cfr_simultaneous": UpdateRule(alternating_updates=False),
    "cfr_linear_averaging": UpdateRule.from_options(linear_averaging=True),
    "cfr_plus": UpdateRule.from_options(True, True, True),
    "cfr_plus_simultaneous": UpdateRule.from_options(False, True, True),
    "lcfr": UpdateRule.dcfr(1.0, 1.0, 1.0),
    "dcfr": UpdateRule.dcfr(1.5, 0.0, 2.0),
    "pcfr_plus": UpdateRule.pcfr_plus(2.0),
    "sapcfr_plus": UpdateRule.sapcfr_plus(2.0, 2.0),
    "apcfr_plus": UpdateRule.apcfr_plus(5.0, 2.0),
    "dcfr_plus": UpdateRule.dcfr_plus(1.5, 4.0, discount_constant=1.5),
    "pdcfr_plus": UpdateRule.dcfr_plus(2.3, 5.0, predictive=True),
}
CHAOTIC = {  # deck -> rules whose 200-iteration runs are chaotic there (module docstring)
    4: set(), 5: {"lcfr", "dcfr_plus"}, 13: {"lcfr", "dcfr", "dcfr_plus", "apcfr_plus"}}
ITERATIONS = 200
# Agreement of two groupings of the same sums (measured: below 3e-15 in whole runs, below 2e-13
# per iteration up to 30 cards).
TOLERANCE = 1e-12


def game_string(deck: int, ante: float = 0.75, bet: float = 1.25) -> str:
  return f"kuhn_poker_ante(players=3,deck_size={deck},ante={ante},bet={bet})"


class Engines:
  """A game's flat arrays and card tree, and the map from flat arrays to the range layout."""

  def __init__(self, deck: int):
    self.game = pyspiel.load_game(game_string(deck))
    self.arrays = TreeArrays(GameTree.from_game(self.game))
    self.tree = kuhn_card_tree3(self.game)
    self.layout = RangeLayout(self.tree)

  def to_range(self, values: np.ndarray) -> np.ndarray:
    """A per-sequence array of the flat engine in the range engine's (D N 2,) layout."""
    rows = self.arrays.to_tabular(values, np.zeros((self.arrays.num_infosets, 2)))
    return self.layout.from_tabular(rows)


@pytest.fixture(scope="module", params=[4, 5, 13])
def engines(request):
  return Engines(request.param)


def max_difference(ours: np.ndarray, theirs: np.ndarray) -> float:
  """The largest |ours - theirs| over the largest |theirs| (regrets and numerators grow)."""
  return float(np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-300))


@pytest.mark.parametrize("deck", [4, 5])
def test_settings_have_no_uniform_ties(deck):
  assert not uniform_profile_ties(pyspiel.load_game(game_string(deck)))


@pytest.mark.parametrize("rule_name", sorted(RULES))
def test_whole_runs_equal_the_flat_engines(engines, rule_name):
  if rule_name in CHAOTIC[engines.tree.num_cards]:
    pytest.skip("chaotic at this deck: test_every_iteration_is_the_flat_engines compares it")
  flat = CFREngine(engines.arrays, RULES[rule_name])
  flat.solve(ITERATIONS)
  ranged = RangeEngine([engines.tree], RULES[rule_name])
  ranged.solve(ITERATIONS)
  assert max_difference(ranged.average(), engines.to_range(flat.average())) <= TOLERANCE
  assert max_difference(ranged.regrets[0], engines.to_range(flat.regrets)) <= TOLERANCE
  # Regret matching divides by sums of positive regrets, which can be small: the current policy
  # carries up to 10x the regrets' relative rounding (measured 1.2e-12 on 13 cards, simultaneous
  # CFR), as in the two-player engines' comparison (test_range_engine.py).
  assert np.abs(ranged.sigma[0] - engines.to_range(flat.sigma)).max() <= 10 * TOLERANCE


def every_iteration_difference(engines: Engines, rule: UpdateRule) -> float:
  """The largest difference between the engines' states after one iteration from the flat
  engine's state, over its first ``ITERATIONS`` iterations (regrets and numerators relative,
  policies absolute)."""
  flat = CFREngine(engines.arrays, rule)
  ranged = RangeEngine([engines.tree], rule)
  worst = 0.0
  for _ in range(ITERATIONS):
    ranged.iteration[0] = flat.iteration
    # The whole state, the current policy too (a predictive rule's holds its prediction).
    for ours, theirs in [(ranged.regrets, flat.regrets), (ranged.cumulative, flat.cumulative),
                         (ranged.sigma, flat.sigma)]:
      ours[0] = engines.to_range(theirs)
    if flat.memory.size:  # APCFR+'s state: its four per-sequence rows (adaptive_weight)
      ranged.memory[0] = np.concatenate([engines.to_range(row) for row
                                         in flat.memory.reshape(-1, flat.regrets.size)])
    flat.solve(1)
    ranged.solve(1)
    worst = max(worst, max_difference(ranged.regrets[0], engines.to_range(flat.regrets)),
                max_difference(ranged.cumulative[0], engines.to_range(flat.cumulative)),
                float(np.abs(ranged.sigma[0] - engines.to_range(flat.sigma)).max()))
  return worst


@pytest.mark.parametrize("rule_name", sorted(RULES))
def test_every_iteration_is_the_flat_engines(engines, rule_name):
  assert every_iteration_difference(engines, RULES[rule_name]) <= TOLERANCE


@pytest.mark.slow
def test_every_iteration_is_the_flat_engines_at_30_cards():
  engines = Engines(30)  # 609,000 histories for the flat engine
  for rule in RULES.values():
    assert every_iteration_difference(engines, rule) <= TOLERANCE


def random_policy(engine: RangeEngine, seed: int) -> np.ndarray:
  probabilities = np.random.default_rng(seed).random((engine.sigma.shape[1] // 2, 2))
  return (probabilities / probabilities.sum(axis=1, keepdims=True)).reshape(-1)


@pytest.mark.parametrize("game_name", [
    "kuhn_poker_ante(players=3,deck_size=3)", "kuhn_poker_ante(players=3)",
    "kuhn_poker_ante(players=3,deck_size=5,ante=0.5,bet=2.0)"])
def test_nash_conv_equals_openspiels(game_name):
  game = pyspiel.load_game(game_name)
  tree = kuhn_card_tree3(game)
  layout = RangeLayout(tree)
  engine = RangeEngine([tree], RULES["cfr"])
  engine.solve(30)
  for policy in (engine.average(), random_policy(engine, 0)):
    theirs = exploitability.nash_conv(game, layout.tabular_policy(policy))
    assert theirs > 0.05  # not an equilibrium: the best responses gain
    assert engine.nash_conv_of(policy) == pytest.approx(theirs, abs=1e-12)
    best, expected = engine.values_of(policy)
    assert expected.sum() == pytest.approx(0.0, abs=1e-14)  # zero-sum


def test_values_equal_the_flat_evaluators_on_a_larger_deck():
  # 12 cards (33,000 histories; card strings "10" and "11" sort between "1" and "2"): the flat
  # engine's exact evaluation on the game tree, per player.
  game = pyspiel.load_game(game_string(12, ante=1.5, bet=1.0))
  tree = kuhn_card_tree3(game)
  engine = RangeEngine([tree], RULES["cfr_plus"])
  engine.solve(50)
  evaluator = TreeEvaluator(GameTree.from_game(game))
  for policy in (engine.average(), random_policy(engine, 1)):
    table = RangeLayout(tree).tabular_policy(policy)
    best, expected = engine.values_of(policy)
    np.testing.assert_allclose(best, evaluator.best_response_values(table), atol=1e-13)
    np.testing.assert_allclose(expected, evaluator.policy_values(table), atol=1e-13)
    assert engine.nash_conv_of(policy) == pytest.approx(evaluator.nash_conv(table), abs=1e-13)


def cpp_policy(table: policy_lib.TabularPolicy, game: pyspiel.Game) -> dict:
  """A policy of ``kuhn_poker_ante(players=3)`` as pyspiel.nash_conv's map for OpenSpiel's C++
  ``kuhn_poker(players=3)``, whose information-state strings are the same."""
  return {key: list(enumerate(table.action_probability_array[row].tolist()))
          for key, row in table.state_lookup.items()}


def test_tabular_rows_are_openspiels():
  for deck in (4, 11):  # from 11 cards on "10" sorts between "1" and "2"
    game = pyspiel.load_game(f"kuhn_poker_ante(players=3,deck_size={deck})")
    layout = RangeLayout(kuhn_card_tree3(game))
    walked = policy_lib.TabularPolicy(game)
    assert layout.tabular_policy().state_lookup == walked.state_lookup
    assert sorted(layout.rows.tolist()) == list(range(len(walked.state_lookup)))


@pytest.fixture(scope="module")
def family_run():
  """CFR+ for 1,000 iterations on three-player Kuhn poker (4 cards, ante = bet = 1) on both
  engines."""
  game = pyspiel.load_game("kuhn_poker_ante(players=3)")
  tree = kuhn_card_tree3(game)
  ranged = RangeEngine([tree], RULES["cfr_plus"])
  ranged.solve(1000)
  arrays = TreeArrays(GameTree.from_game(game))
  flat = CFREngine(arrays, RULES["cfr_plus"])
  flat.solve(1000)
  table = RangeLayout(tree).tabular_policy(ranged.average())
  flat_table = arrays.to_tabular(flat.average(), np.zeros((arrays.num_infosets, 2)))
  return ranged, table, flat_table


def test_family_solution_is_the_flat_engines_and_openspiels_nash_conv(family_run):
  ranged, table, flat_table = family_run
  # The tie at 0pp (module docstring) breaks the same way here: the runs agree (measured 3e-14).
  assert np.abs(table.action_probability_array - flat_table).max() <= TOLERANCE
  cpp = pyspiel.load_game("kuhn_poker(players=3)")
  assert ranged.nash_conv() == pytest.approx(pyspiel.nash_conv(cpp, cpp_policy(table, cpp)),
                                             abs=1e-12)


def test_family_solution_is_near_a_certified_member(family_run):
  ranged, table, _ = family_run
  nearest = k3.nearest_member(table)
  # Measured at T = 1,000: NashConv 3.2e-5, distance 9.2e-4 to a member of the c11 = 1/2
  # sub-family, player 1's value -1/48 - 1.3e-6 (the family's, Szafron et al. 2013).
  assert ranged.nash_conv() < 1e-4
  assert nearest.distance < 2e-3
  certificate = exact_nash_conv.ExactGameTree(pyspiel.load_game("kuhn_poker(players=3)")
                                              ).certificate(nearest.member.profile())
  assert certificate.nash_conv == 0  # an exact equilibrium, in fractions
  _, expected = ranged.values()
  np.testing.assert_allclose(expected, [float(v) for v in nearest.member.values], atol=1e-4)
  assert expected[1] == pytest.approx(-1 / 48, abs=1e-5)


@pytest.mark.parametrize("member", k3.certified_grid()[::97])
def test_family_members_are_equilibria_with_their_values(member):
  game = pyspiel.load_game("kuhn_poker_ante(players=3)")
  tree = kuhn_card_tree3(game)
  layout = RangeLayout(tree)
  engine = RangeEngine([tree], RULES["cfr"])
  policy = layout.from_tabular(member.policy(game).action_probability_array)
  best, expected = engine.values_of(policy)
  np.testing.assert_allclose(expected, [float(v) for v in member.values], atol=1e-15)
  np.testing.assert_allclose(best, expected, atol=1e-15)  # no player gains by deviating


def test_batch_equals_each_game_alone():
  trees = [kuhn_card_tree3(pyspiel.load_game(game_string(9, ante=a))) for a in (0.5, 2.0)]
  batch = RangeEngine(trees, RULES["dcfr"])
  batch.solve(30)
  batch.solve(5, games=[1])
  for b, tree in enumerate(trees):
    alone = RangeEngine([tree], RULES["dcfr"])
    alone.solve(35 if b else 30)
    np.testing.assert_array_equal(batch.cumulative[b], alone.cumulative[0])
    np.testing.assert_array_equal(batch.regrets[b], alone.regrets[0])
  assert batch.iteration.tolist() == [30, 35]


def test_restore_and_card_policy():
  tree = kuhn_card_tree3(pyspiel.load_game(game_string(6)))
  halfway = RangeEngine([tree], RULES["cfr_plus"])
  halfway.solve(10)
  run = RangeEngine([tree], RULES["cfr_plus"])
  run.restore(10, halfway.regrets[0], halfway.cumulative[0])  # sigma = RM+ of R, as after t = 10
  run.solve(10)
  halfway.solve(10)
  np.testing.assert_array_equal(run.cumulative, halfway.cumulative)
  block = (tree.histories.index("pb") * tree.num_cards + 4) * 2  # (node "pb", card 4)
  np.testing.assert_array_equal(run.policy().action_probability("pb", 4),
                                run.average()[block:block + 2])


@pytest.mark.parametrize("game,message", [
    (pyspiel.load_game("kuhn_poker_ante(players=4)"), "players=3, got players=4; the flat"),
    (pyspiel.load_game("kuhn_poker_ante(deck_size=5)"), "players=3, got players=2; engine='range'"),
    (KuhnRules(simplified=True, num_players=3), "simplified=False: the simplified rule set is"),
    (pyspiel.load_game("leduc_poker(players=3)"), "need kuhn_poker.players=3. or kuhn_poker_ante"),
])
def test_refusals_are_one_line(game, message):
  with pytest.raises(ValueError, match=message) as raised:
    kuhn_card_tree3(game)
  assert "\n" not in str(raised.value)


def test_batch_refuses_another_deck():
  trees = [kuhn_card_tree3(pyspiel.load_game(game_string(deck))) for deck in (5, 6)]
  with pytest.raises(ValueError, match="differ in more than stakes"):
    RangeEngine(trees, RULES["cfr"])


def test_tree_of_openspiels_kuhn_poker():
  tree = kuhn_card_tree3(pyspiel.load_game("kuhn_poker(players=3)"))
  assert tree.num_nodes == 12 and len(tree.terminals) == 13  # 3 + 9 betting decisions
  t = tree.terminals.index("pbpb")  # player 1 bets, 2 folds, 0 calls
  assert tree.in_hand[t].tolist() == [True, True, False]
  assert tree.contribution[t].tolist() == [2.0, 2.0, 1.0]
