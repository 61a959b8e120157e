"""The range-vector engine against the flat engine and OpenSpiel, and the solvers on it.

References: the flat engine (``cfr_engine``; itself equal to OpenSpiel's CFR solvers,
``test_solvers.py``) for policies and regrets; OpenSpiel's ``exploitability.exploitability``,
``nash_conv`` and ``expected_game_score.policy_value`` for the exact evaluation; OpenSpiel's
``TabularPolicy(game)`` walk for the policy rows.

Settings without exact ties (``test_solvers.py`` explains why ties make two correct
implementations part): decks of 12, 14, 50 and 51 cards with the stakes below
(``helpers.uniform_profile_ties`` finds none at the uniform start, checked for the small ones;
a tie later in the run would show as an O(1) difference).
"""

import dataclasses

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.cfr import solver_backends
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.range_engine import RangeLayout
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
from helpers import uniform_profile_ties
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

RULES = {
    "cfr": UpdateRule(),
    "cfr_simultaneous": UpdateRule(alternating_updates=False),
    "cfr_plus": UpdateRule(regret_matching_plus=True, averaging_gamma=1.0),
    "linear": UpdateRule(averaging_gamma=1.0, discount_alpha=1.0, discount_beta=1.0),
    "dcfr": UpdateRule(averaging_gamma=2.0, discount_alpha=1.5, discount_beta=0.0),
}
GAMES = [
    "kuhn_poker_ante(deck_size=12)",
    "kuhn_poker_ante(deck_size=14,ante=0.75,bet=1.25)",
    "kuhn_poker_ante(deck_size=12,simplified=True)",
    "kuhn_poker_ante(deck_size=14,simplified=True,ante=2.0)",
]
# Agreement of two groupings of the same sums over 200 iterations (measured: below 3e-14).
POLICY_TOLERANCE = 1e-12


def card_tree(game):
  return solver_backends.card_tree_of(game)


def both_engines(game_string, rule, iterations):
  """The flat and range engines after ``iterations`` iterations, and the range layout."""
  game = pyspiel.load_game(game_string)
  arrays = TreeArrays(GameTree.from_game(game))
  flat = CFREngine(arrays, rule)
  flat.solve(iterations)
  tree = card_tree(game)
  ranged = RangeEngine([tree], rule)
  ranged.solve(iterations)
  return game, arrays, flat, ranged, RangeLayout(tree)


def tabular(arrays, values):
  """A per-sequence array of the flat engine as TabularPolicy rows."""
  return arrays.to_tabular(values, np.zeros((arrays.num_infosets, 2)))


@pytest.mark.parametrize("game_string", GAMES[:1] + GAMES[2:3])
def test_settings_have_no_uniform_ties(game_string):
  assert not uniform_profile_ties(pyspiel.load_game(game_string))


# Iterations compared per rule. Linear CFR's run is chaotic: a difference of one rounding
# (1e-17 after iteration 1) grows about tenfold every 50 iterations (4e-12 at 50, 7e-8 at 200 in
# the current policy on the 14-card game), smoothly, as any change of summation order would; the
# other rules stay near 1e-14 over 200 iterations. So linear CFR is compared over 40.
ITERATIONS = {"cfr": 200, "cfr_simultaneous": 200, "cfr_plus": 200, "linear": 40, "dcfr": 200}


@pytest.mark.parametrize("rule_name", sorted(RULES))
@pytest.mark.parametrize("game_string", GAMES)
def test_same_policies_and_regrets_as_the_flat_engine(game_string, rule_name):
  _, arrays, flat, ranged, layout = both_engines(game_string, RULES[rule_name],
                                                 ITERATIONS[rule_name])
  # Regret matching divides by sums of positive regrets, which can be small: the current policy
  # carries up to 10x the regrets' relative rounding (measured 1.0e-12 on the 12-card game).
  for ours, theirs, tolerance in [(ranged.average(), flat.average(), POLICY_TOLERANCE),
                                  (ranged.regrets[0], flat.regrets, POLICY_TOLERANCE),
                                  (ranged.sigma[0], flat.sigma, 10 * POLICY_TOLERANCE)]:
    table = np.zeros((arrays.num_infosets, 2))
    layout.to_tabular(ours, table)
    scale = max(1.0, np.abs(theirs).max())
    assert np.abs(table - tabular(arrays, theirs)).max() <= tolerance * scale


@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(deck_size=50,ante=2.0)",
                                         "kuhn_poker_ante(deck_size=51,simplified=True,bet=3.0)"])
def test_same_average_policy_on_larger_decks(game_string):
  _, arrays, flat, ranged, layout = both_engines(game_string, RULES["cfr_plus"], 100)
  table = np.zeros((arrays.num_infosets, 2))
  layout.to_tabular(ranged.average(), table)
  assert np.abs(table - tabular(arrays, flat.average())).max() <= POLICY_TOLERANCE


@pytest.mark.parametrize("game_string", ["kuhn_poker", "kuhn_poker_ante(deck_size=7)",
                                         "kuhn_poker_ante(deck_size=12,simplified=True)"])
def test_tabular_rows_are_openspiels(game_string):
  game = pyspiel.load_game(game_string)
  layout = RangeLayout(card_tree(game))
  walked = policy_lib.TabularPolicy(game)
  assert layout.tabular_policy().state_lookup == walked.state_lookup
  assert sorted(layout.rows.tolist()) == list(range(len(walked.state_lookup)))


# 20 cards for the simplified rules too, not 50 (4.3 s, OpenSpiel's walks of 12,301 histories):
# the range vectors' best responses and values sum over the same terms at any deck size, so a
# wrong term shows at 20 cards as at 50.
@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(deck_size=20,ante=0.6)",
                                         "kuhn_poker_ante(deck_size=20,simplified=True)"])
def test_exact_evaluation_equals_openspiels(game_string):
  game = pyspiel.load_game(game_string)
  engine = RangeEngine([card_tree(game)], RULES["cfr"])
  engine.solve(30)
  policy = RangeLayout(card_tree(game)).tabular_policy(engine.average())
  assert engine.exploitability() == pytest.approx(
      exploitability.exploitability(game, policy), abs=1e-12)
  assert engine.nash_conv(average=False) == pytest.approx(
      exploitability.nash_conv(game, RangeLayout(card_tree(game)).tabular_policy(
          engine.sigma[0])), abs=1e-12)
  _, expected = engine.values()
  assert expected[0] == pytest.approx(
      expected_game_score.policy_value(game.new_initial_state(), [policy, policy])[0], abs=1e-12)
  assert expected.sum() == pytest.approx(0.0, abs=1e-14)  # zero-sum


def test_batch_equals_each_game_alone():
  trees = [card_tree(pyspiel.load_game(f"kuhn_poker_ante(deck_size=15,ante={a})"))
           for a in (0.5, 1.0, 2.0)]
  batch = RangeEngine(trees, RULES["dcfr"])
  batch.solve(40)
  batch.solve(10, games=[1])
  for b, tree in enumerate(trees):
    alone = RangeEngine([tree], RULES["dcfr"])
    alone.solve(50 if b == 1 else 40)
    np.testing.assert_array_equal(batch.cumulative[b], alone.cumulative[0])
    np.testing.assert_array_equal(batch.regrets[b], alone.regrets[0])
  assert batch.iteration.tolist() == [40, 50, 40]


def test_batch_refuses_another_betting_tree():
  trees = [card_tree(pyspiel.load_game(g)) for g in
           ("kuhn_poker_ante(deck_size=15)", "kuhn_poker_ante(deck_size=15,simplified=True)")]
  with pytest.raises(ValueError, match="differ in more than stakes"):
    RangeEngine(trees, RULES["cfr"])


def test_card_policy_reads_the_average():
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=13)")
  solver = algorithms.CFRPlusSolver(game)
  solver.solve(50)
  compact = solver.card_policy()
  table = solver.average_policy()
  state = game.new_initial_state()
  for action in (4, 9, 0, 1):  # cards 4 and 9, pass, bet: player 0 with card 4 faces a bet
    state.apply_action(action)
  row = table.state_lookup[state.information_state_string()]
  np.testing.assert_array_equal(compact.action_probability("pb", 4),
                                table.action_probability_array[row])


@pytest.mark.parametrize("cls", [algorithms.CFRSolver, algorithms.CFRPlusSolver,
                                 algorithms.DCFRSolver, algorithms.LCFRSolver])
def test_solver_engines_agree(cls):
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=12,ante=0.75,bet=1.25)")
  flat, ranged = cls(game, engine="flat"), cls(game, engine="range")
  assert (flat.engine_name, ranged.engine_name) == ("flat", "range")
  flat.solve(40)  # linear CFR's chaos (ITERATIONS above) allows 40 at this tolerance
  ranged.solve(40)
  assert np.abs(flat.average_policy().action_probability_array
                - ranged.average_policy().action_probability_array).max() <= POLICY_TOLERANCE
  assert ranged.exploitability() == pytest.approx(flat.exploitability(), abs=1e-13)
  flat_nodes, range_nodes = flat._info_state_nodes, ranged._info_state_nodes  # pylint: disable=protected-access
  assert flat_nodes.keys() == range_nodes.keys()
  key = next(iter(flat_nodes))
  assert range_nodes[key].cumulative_regret == pytest.approx(flat_nodes[key].cumulative_regret,
                                                             abs=1e-12)


@pytest.mark.parametrize("game_string,expected", [
    ("kuhn_poker", "flat"), ("kuhn_poker_ante(deck_size=12)", "flat"),
    ("kuhn_poker_ante(deck_size=13)", "range"),
    # Three players: range vectors (on a CardTree3) from 13 cards as for two; below, the flat engine
    # keeps OpenSpiel's exact numbers on kuhn_poker(players=3), whose uniform start has exact ties
    # the range engine breaks differently (test_range3_engine.py).
    ("kuhn_poker(players=3)", "flat"), ("kuhn_poker_ante(players=3,deck_size=12)", "flat"),
    ("kuhn_poker_ante(players=3,deck_size=20)", "range"),
    ("kuhn_poker_ante(players=4,deck_size=5)", "flat"), ("leduc_poker", "flat")])
def test_auto_engine(game_string, expected):
  assert algorithms.CFRSolver(pyspiel.load_game(game_string)).engine_name == expected


def test_flat_engine_refuses_a_large_deck_with_the_estimate():
  # 1,000 cards, past the limit already (3,000 cards took 1.5 s to refuse: kuhn_tree lays out
  # the deals before counting). 1 + 1000 (1 + 999 * 9) histories, 240 bytes each.
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=1000)")
  with pytest.raises(ValueError, match=r"8,992,001 histories, more than max_nodes="
                     r"2,000,000; about 2\.0 GiB"):
    algorithms.CFRSolver(game, engine="flat")
  assert algorithms.CFRSolver(game).engine_name == "range"  # auto: no tree needed


def test_range_engine_refuses_over_its_memory_limit():
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=100000000)")
  # 8 arrays of (4 + 1) nodes x 1e8 cards x 2 actions x 8 bytes: 59.6 GiB.
  with pytest.raises(ValueError, match=r"needs about 59\.6 GiB for 100000000 cards, over the "
                     r"limit max_bytes=4\.0 GiB"):
    algorithms.CFRSolver(game)


@pytest.mark.parametrize("engine,game_string,message", [
    ("fast", "kuhn_poker", "engine must be one of auto, flat, range; got 'fast'"),
    ("range", "leduc_poker", "engine='range' needs a two-player game with one private card"),
    ("range", "kuhn_poker(players=4)", r"three-player Kuhn poker \(standard rules\); the flat "
     r"engine \(engine='flat'\) runs any other; got kuhn_poker\(players=4\)"),
])
def test_engine_errors(engine, game_string, message):
  with pytest.raises(ValueError, match=message):
    algorithms.CFRSolver(pyspiel.load_game(game_string), engine=engine)


def test_sampled_and_cfr_avg_solvers_stay_flat():
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=13)")
  assert algorithms.ChanceSamplingCFRSolver(game, seed=0).engine_name == "flat"
  with pytest.raises(TypeError):
    algorithms.ChanceSamplingCFRSolver(game, engine="range")  # pylint: disable=unexpected-keyword-arg


@pytest.mark.parametrize("players", [2, 3])  # three players: on a CardTree3
def test_save_and_load_resume_exactly(tmp_path, players):
  game = pyspiel.load_game(f"kuhn_poker_ante(players={players},deck_size=20)")
  straight = algorithms.DCFRSolver(game)
  straight.solve(30)
  first = algorithms.DCFRSolver(game)
  first.solve(10)
  first.save(tmp_path / "run.ckpt")
  resumed = algorithms.DCFRSolver.load(tmp_path / "run.ckpt")
  assert resumed.engine_name == "range"
  resumed.solve(20)
  np.testing.assert_array_equal(resumed.engine.cumulative, straight.engine.cumulative)
  np.testing.assert_array_equal(resumed.engine.regrets, straight.engine.regrets)
  flat = algorithms.DCFRSolver(game, engine="flat")
  flat.save(tmp_path / "flat.ckpt")
  assert algorithms.DCFRSolver.load(tmp_path / "flat.ckpt").engine_name == "flat"


def test_rounding_breaks_exact_ties_on_three_cards():
  """Why ``engine="auto"`` keeps the flat engine below 13 cards: on kuhn_poker exact regret ties
  appear along the run (at iteration 2 a regret is exactly 0 in the flat engine, OpenSpiel's
  order, and 1.4e-17 in the range engine), and regret matching turns them into O(1) policy
  differences."""
  game = pyspiel.load_game("kuhn_poker")
  flat, ranged = algorithms.CFRSolver(game), algorithms.CFRSolver(game, engine="range")
  flat.solve(100)
  ranged.solve(100)
  gap = np.abs(flat.average_policy().action_probability_array
               - ranged.average_policy().action_probability_array).max()
  assert gap > 1e-3  # measured 0.12: O(1), not rounding
  assert ranged.exploitability() < 0.02 and flat.exploitability() < 0.02  # both converge


def test_tabular_policy_refused_where_too_large():
  # 4 rows per card, each with an information-state tensor of N + 8 floats: 19.4 GiB estimated
  # at 10,000 cards (the estimate's constant is measured: 1.87 GB peak at 3,000 cards).
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=10000)")
  solver = algorithms.CFRSolver(game)
  solver.solve(2)
  with pytest.raises(ValueError, match=r"TabularPolicy of 10000 cards needs about 19\.4 GiB .* "
                     r"use the compact card_policy\(\) instead"):
    solver.average_policy()
  assert solver.card_policy().probabilities.shape == (4, 10000, 2)


def with_a_third_action(tree):
  """``tree`` with a third action at every decision node that leads to a copy of what bet leads
  to: a game with three actions per decision whose value is the original's (bet split in two).

  Returns:
    (the tree, origin): origin[d'] is the node of ``tree`` that node d' copies.
  """
  histories, players, children, origin, showdown, payoff = [], [], [], [], [], []

  def terminal(t):
    showdown.append(tree.showdown[t])
    payoff.append(tree.payoff[t])
    return -len(showdown)  # -(t' + 1)

  def copy(d, name):  # preorder: every node after its parent
    node = len(histories)
    histories.append(name)
    players.append(tree.node_player[d])
    origin.append(d)
    children.append(None)
    children[node] = [copy(tree.child[d, a], name + tag) if tree.child[d, a] >= 0
                      else terminal(-tree.child[d, a] - 1)
                      for a, tag in ((0, "p"), (1, "b"), (1, "B"))]
    return node

  copy(0, "")
  split = dataclasses.replace(
      tree, histories=tuple(histories), node_player=np.array(players, dtype=np.int64),
      child=np.array(children, dtype=np.int64), showdown=np.array(showdown),
      payoff=np.array(payoff))
  return split, np.array(origin)


@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(deck_size=13,ante=0.75,bet=1.25)",
                                         "kuhn_poker_ante(deck_size=13,simplified=True)"])
def test_a_third_action_runs_without_kernel_changes(game_string):
  # The action count comes from the tree (child's columns). Reference: the two-action engine on
  # the original tree, itself equal to the flat engine and OpenSpiel (above): a policy that
  # splits each bet probability between the two copies, in a random share per node that does
  # not depend on the card (so which copy was played tells the others nothing), has the
  # original policy's best-response and expected values.
  tree = card_tree(pyspiel.load_game(game_string))
  split, origin = with_a_third_action(tree)
  assert split.num_actions == 3 and tree.num_actions == 2
  three, two = RangeEngine([split], RULES["cfr_plus"]), RangeEngine([tree], RULES["cfr_plus"])
  rng = np.random.default_rng(0)
  for _ in range(3):
    policy = rng.dirichlet(np.ones(2), size=(tree.num_nodes, tree.num_cards))
    share = rng.uniform(size=(split.num_nodes, 1))
    bet = policy[origin, :, 1]
    policy3 = np.stack([policy[origin, :, 0], bet * share, bet * (1 - share)], axis=2)
    for mine, theirs in zip(three.values_of(policy3.reshape(-1)),
                            two.values_of(policy.reshape(-1))):
      np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-13)


def test_cfr_with_a_third_action_finds_kuhns_value():
  # CFR+ on kuhn_poker with bet split in two: a profile of NashConv e in a two-player zero-sum
  # game gives player 0 a payoff within e of the game value, -1/18 (Kuhn 1950).
  split, _ = with_a_third_action(card_tree(pyspiel.load_game("kuhn_poker")))
  engine = RangeEngine([split], RULES["cfr_plus"])
  engine.solve(1000)
  best, expected = engine.values()
  nash_conv = float(np.sum(best - expected))
  assert nash_conv < 1e-3  # measured 1.9e-4
  assert abs(expected[0] - (-1 / 18)) <= nash_conv + 1e-12
  assert engine.policy().probabilities.shape == (split.num_nodes, 3, 3)
