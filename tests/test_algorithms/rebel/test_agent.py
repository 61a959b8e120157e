"""Tests of ReBeL's agent and its exact behaviour strategy (algorithms/rebel/agent/).

References: ``CFRAvgSolver`` (the search at the game root is its CFR-AVG, iteration for
iteration), OpenSpiel's ``cfr._CFRSolver`` (a search that covers the whole game is CFR, and the
agent's mixture over its draws is CFR's average policy), OpenSpiel's
``exploitability.exploitability`` and ``best_response.BestResponsePolicy`` (the same behaviour
strategy measured by OpenSpiel and by the project's ``TreeEvaluator``), the uniform policy's
exploitability 11/24 on ``kuhn_poker`` (OpenSpiel's ``exploitability_test``: NashConv 11/12), and
Monte-Carlo play of the agent (binomial intervals).
"""

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms import CFRAvgSolver
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import search_count
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.agent.monte_carlo import play_hands
from algorithms.rebel.agent.search import run_search
from algorithms.rebel.leaf_step import TREMBLE
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

KUHN = "kuhn_poker"
ANTE = "kuhn_poker_ante(ante=2.0)"
SIMPLIFIED = "kuhn_poker_ante(ante=2.0,simplified=True)"
ROUNDING = 1e-12  # Sums of a few hundred products of numbers in [0, 1]: float64 rounding.
# The agent's options: the default (the paper's agent: CFR-D, pi^t played and passed on, linear
# weighting, draws by the weights), CFR-AVG with matched play (this project's construction), and
# each other choice once.
OPTIONS = ({}, {"leaf_beliefs": "average", "weighting": "uniform"}, {"weighting": "linear_cfr"},
           {"play": "average"}, {"play": "final"}, {"leaf_beliefs": "average", "play": "iterate"},
           {"draw": "uniform"}, {"alternating_updates": False})
OPTION_IDS = ["default", "cfr-avg-matched", "linear-cfr", "average", "final", "cfr-avg-iterate",
              "uniform-draw", "simultaneous"]


def _load(name):
  return pyspiel.load_game(name)


@pytest.mark.parametrize("game_string,depth,leaf_beliefs,weighting", [
    (KUHN, 1, "average", "uniform"), (KUHN, 2, "average", "linear"), (ANTE, 1, "current", "linear"),
    (KUHN, 1, "current", "uniform"), (SIMPLIFIED, 1, "average", "uniform")])
def test_root_search_is_cfr_avg(game_string, depth, leaf_beliefs, weighting):
  # Reference: CFRAvgSolver with the same options; at the game root (one root, belief 1) the
  # agent's search is its six steps, so the trunk averages agree to rounding.
  game = _load(game_string)
  agent = ReBeLAgent(game, lookahead=depth, iterations=30, leaf_beliefs=leaf_beliefs,
                     weighting=weighting)
  search_game, belief = agent.root()
  record = run_search(search_game, belief, 30, agent.leaf_solver, agent.rule, leaf_beliefs)
  solver = CFRAvgSolver(game, depth_limit=depth, leaf_beliefs=leaf_beliefs, weighting=weighting)
  solver.solve(30)
  trunk = search_game.trunk_mask > 0
  assert np.abs(record.averages[-1][trunk] - solver.engine.average()[trunk]).max() <= ROUNDING


@pytest.mark.parametrize("game_string,lookahead", [(SIMPLIFIED, 2), (KUHN, 3)])
@pytest.mark.parametrize("linear", [False, True])
def test_search_without_cut_is_cfr_average(game_string, lookahead, linear):
  # Closed form: a search that reaches the end of the game is CFR on the whole game; drawing t
  # with P(t) = w_t / W_T and playing pi^t is, mixed over t, CFR's average policy (reference:
  # OpenSpiel's cfr._CFRSolver with the same averaging).
  game = _load(game_string)
  agent = ReBeLAgent(game, lookahead=lookahead, iterations=25,
                     weighting="linear" if linear else "uniform")
  behaviour = behaviour_strategy(agent)
  assert behaviour.searches == 1
  reference = cfr._CFRSolver(game, regret_matching_plus=False,  # pylint: disable=protected-access
                             alternating_updates=True, linear_averaging=linear)
  for _ in range(25):
    reference.evaluate_and_update_policy()
  expected = agent.arrays.from_tabular(reference.average_policy().action_probability_array)
  assert np.abs(behaviour.policy - expected).max() <= ROUNDING


@pytest.mark.parametrize("game_string,depth", [(KUHN, 1), (KUHN, 2), (SIMPLIFIED, 1)])
def test_one_iteration_is_uniform_play(game_string, depth):
  # Closed form: with T = 1 every search's only iterate is the uniform policy, so the agent plays
  # uniformly everywhere (kuhn_poker: exploitability 11/24, OpenSpiel's exploitability_test).
  game = _load(game_string)
  agent = ReBeLAgent(game, lookahead=depth, iterations=1)
  behaviour = behaviour_strategy(agent)
  uniform = policy_lib.TabularPolicy(game)
  assert np.abs(behaviour.policy - agent.arrays.from_tabular(
      uniform.action_probability_array)).max() <= ROUNDING
  value = exploitability.exploitability(game, tabular_policy(agent, behaviour.policy))
  assert value == pytest.approx(exploitability.exploitability(game, uniform), abs=ROUNDING)
  if game_string == KUHN:
    assert value == pytest.approx(11 / 24, abs=ROUNDING)


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
def test_perfect_value_function_is_exact_leaves(options):
  # The exact LP behind the value-function interface gives the same leaf values, hence the same
  # searches, draws and behaviour strategy as exact leaves (to rounding).
  game = _load(KUHN)
  exact = behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=8, **options))
  perfect = ValueFunctionLeafSolver(ExactValueFunction(SequenceFormLPSolver()))
  valued = behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=8, leaf_solver=perfect,
                                         **options))
  assert np.abs(exact.policy - valued.policy).max() <= 1e-9  # HiGHS's tolerances: 1e-10.


def test_value_function_leaves_split_one_player_ties_as_the_default_agent_does():
  # Reference: the default agent's exact LP leaves (``exact_leaf_solver``). With a 5-card deck
  # a one-player leaf has exactly tied actions (a middle card indifferent between call and
  # fold); the perfect value function behind ``ValueFunctionLeafSolver`` gives the same
  # behaviour only when its one-player best response splits ties as the agent's does
  # (``splits_ties``): taking the first tied action instead moves the behaviour by 0.16.
  game = _load("kuhn_poker_ante(deck_size=5)")
  default = behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=4)).policy
  gaps = {}
  for split in (True, False):
    perfect = ValueFunctionLeafSolver(ExactValueFunction(exact_leaf_solver()), split_ties=split)
    valued = behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=4, leaf_solver=perfect))
    gaps[split] = np.abs(default - valued.policy).max()
  assert splits_ties() and not splits_ties(leaf_beliefs="average")
  assert gaps[True] <= 1e-9  # HiGHS's tolerances: 1e-10.
  assert gaps[False] > 0.1


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize("game_string,depth", [(KUHN, 1), (ANTE, 2)])
def test_openspiel_measures_the_same_behaviour(game_string, depth, options):
  # Reference: OpenSpiel's exploitability and best responses on the behaviour strategy as a
  # TabularPolicy equal the project's TreeEvaluator on the same strategy.
  game = _load(game_string)
  agent = ReBeLAgent(game, lookahead=depth, iterations=10, **options)
  behaviour = behaviour_strategy(agent)
  policy = tabular_policy(agent, behaviour.policy)
  evaluator = TreeEvaluator(agent.arrays)
  assert exploitability.exploitability(game, policy) == pytest.approx(
      evaluator.exploitability(behaviour.policy), abs=ROUNDING)
  responses = evaluator.best_response_values(behaviour.policy)
  for player in (0, 1):
    value = best_response.BestResponsePolicy(game, player, policy).value(game.new_initial_state())
    assert value == pytest.approx(responses[player], abs=ROUNDING)


# Monte Carlo play costs about 5 s per option: the quick subset plays the default agent only.
MONTE_CARLO_OPTIONS = [pytest.param(o, id=i, marks=() if i == "default" else pytest.mark.slow)
                       for o, i in zip(OPTIONS, OPTION_IDS)]


@pytest.mark.parametrize("options", MONTE_CARLO_OPTIONS)
def test_monte_carlo_play_agrees_with_behaviour(options):
  # Reference: 20,000 hands of the agent (independent seats, seed 0). At every information set
  # visited at least 500 times the action frequency lies within 4.5 binomial standard errors of
  # the enumerated behaviour probability (two-sided 7e-6 per set), plus 1/n for the count.
  game = _load(KUHN)
  agent = ReBeLAgent(game, lookahead=1, iterations=3, cache_size=1000, **options)
  behaviour = behaviour_strategy(agent)
  counts = play_hands(agent, 20_000, seed=0)
  a = agent.arrays
  visits = np.add.reduceat(counts[2:], a.blocks.starts)[a.blocks.block_of]
  p = behaviour.policy[2:]
  seen = visits >= 500
  assert seen.sum() >= 20  # The twelve information sets of kuhn_poker, two actions each.
  frequency = counts[2:][seen] / visits[seen]
  bound = 4.5 * np.sqrt(p[seen] * (1 - p[seen]) / visits[seen]) + 1.0 / visits[seen]
  assert np.all(np.abs(frequency - p[seen]) <= bound)


def test_search_count_and_refusal():
  # kuhn_poker cut at depth 1: the root search (leaves p, b) draws T times; each search at "p"
  # (leaf pb) draws T times; the searches at "b" and "pb" have no leaf: 1 + 2T + T^2.
  game = _load(KUHN)
  agent = ReBeLAgent(game, lookahead=1, iterations=5)
  assert search_count(agent) == 1 + 2 * 5 + 5 ** 2
  assert behaviour_strategy(agent).searches == 36
  with pytest.raises(ValueError, match="max_searches=10 is below the 36 searches"):
    behaviour_strategy(agent, max_searches=10)


def test_draw_probabilities():
  # Linear averaging draws t with probability t / (T (T + 1) / 2) (the averaging weights);
  # draw="uniform" draws 1/T.
  game = _load(SIMPLIFIED)
  linear = ReBeLAgent(game, iterations=4, weighting="linear")
  assert np.allclose(linear.draw_probabilities(np.arange(1.0, 5.0)), np.arange(1, 5) / 10)
  flat = ReBeLAgent(game, iterations=4, weighting="linear", draw="uniform")
  assert np.allclose(flat.draw_probabilities(np.arange(1.0, 5.0)), 0.25)


def _sequence(arrays, player, key, action):
  p = arrays.tree.players[player]
  return arrays.global_seq[player][p.seq_start[list(p.infoset_keys).index(key)] + action]


def test_default_agent_two_iterations_by_hand():
  # The paper's agent (Section 6 and Appendix B; ReBeL's released code): CFR-D, linear
  # weighting, draw t with P(t) = w_t / W_T, play and pass on pi^t. kuhn_poker, d = 1, T = 2,
  # computed by hand (roots of both leaves: (J,Q), (J,K), (Q,J), (Q,K), (K,J), (K,Q)).
  game = _load(KUHN)
  agent = ReBeLAgent(game, lookahead=1, iterations=2)
  root, belief = agent.root()
  leaves = {leaf.leaf.public_state: leaf for leaf in root.leaves}
  # Iteration 1: pi^1 uniform, so both leaf PBSs are uniform over the six deals. Leaf "p" (Kuhn
  # after a check): player 1 bets K, bluffs J 1/3, checks Q; player 0 calls with Q 1/3, so
  # u_0 = -1, -1, 2/3, -4/3, 4/3, 1. Leaf "b": player 1 folds J, calls Q and K.
  uniform = np.full(6, 1 / 6)
  check = agent.leaf_solver(leaves["p"].leaf, uniform).root_values
  bet = agent.leaf_solver(leaves["b"].leaf, uniform).root_values
  np.testing.assert_allclose(check, [-1, -1, 2 / 3, -4 / 3, 4 / 3, 1], atol=1e-9)
  np.testing.assert_allclose(bet, [-2, -2, 1, -2, 1, 2], atol=1e-9)
  # Per card (mean over the opponent's two cards): check -1, -1/3, 7/6 against bet -2, -1/2,
  # 3/2, so regret matching after iteration 1 checks J and Q and bets K.
  plays = agent.plays(root, belief)
  assert [p.iteration for p in plays] == [1, 2]
  np.testing.assert_allclose([p.probability for p in plays], [1 / 3, 2 / 3], rtol=1e-15)
  a = root.arrays
  for card, pure in (("0", 0), ("1", 0), ("2", 1)):
    for action in (0, 1):
      assert plays[0].policy[_sequence(a, 0, card, action)] == 0.5
      assert plays[1].policy[_sequence(a, 0, card, action)] == float(action == pure)
  # Passed on: the PBS of the drawn pi^t, both players assumed to have played it (Bayes' rule
  # with trembling reaches r + e): pi^1 gives the uniform PBS at both leaves; pi^2 gives weight
  # (1 + e)^2 to the four deals where player 0 holds J or Q at "p" and e (1 + e) to the King's,
  # and the reverse at "b".
  e = TREMBLE
  for play, expected in ((plays[0], {"p": [1] * 6, "b": [1] * 6}),
                         (plays[1], {"p": [1 + e] * 4 + [e] * 2, "b": [e] * 4 + [1 + e] * 2})):
    for state, weights in expected.items():
      _, passed = agent.next_search(root, leaves[state], belief, play)
      np.testing.assert_allclose(passed, np.array(weights) / np.sum(weights), rtol=1e-12)


@pytest.mark.parametrize("kwargs,message", [
    ({"play": "best"}, "play must be one of 'matched', 'iterate', 'average', 'final'"),
    ({"draw": "late"}, "draw must be one of 'weights', 'uniform'"),
    ({"iterations": 0}, "iterations must be an integer >= 1"),
    ({"lookahead": 0}, "lookahead must be an integer >= 1"),
    ({"weighting": "square"}, "weighting must be one of"),
    ({"leaf_beliefs": "final"}, "leaf_beliefs must be one of")])
def test_bad_options(kwargs, message):
  with pytest.raises(ValueError, match=message):
    ReBeLAgent(_load(KUHN), **kwargs)


def test_refuses_three_players():
  with pytest.raises(ValueError, match="exactly 2 players"):
    ReBeLAgent(_load("kuhn_poker_ante(players=3)"))


@pytest.mark.parametrize("game_string,depth", [(KUHN, 2), (SIMPLIFIED, 1), (ANTE, 2)])
def test_exact_leaf_agent_improves_with_iterations(game_string, depth):
  # The agent with exact leaves (CFR-AVG, matched play) at T = 100 is less exploitable than at
  # T = 10 (measured: kuhn_poker depth 2 0.113 -> 0.0199, the simplified game 0.0448 -> 0.00755,
  # docs/rebel.md), and at T = 100 within 3x of full-game CFR after 100 iterations (0.0082 and
  # 0.0068).
  game = _load(game_string)
  values = [TreeEvaluator(agent.arrays).exploitability(behaviour_strategy(agent).policy)
            for agent in (ReBeLAgent(game, lookahead=depth, iterations=t) for t in (10, 100))]
  reference = cfr._CFRSolver(game, regret_matching_plus=False,  # pylint: disable=protected-access
                             alternating_updates=True, linear_averaging=False)
  for _ in range(100):
    reference.evaluate_and_update_policy()
  assert values[1] < values[0]
  assert values[1] <= 3 * exploitability.exploitability(game, reference.average_policy())


def test_search_root_values_are_the_mean_iterate_values():
  # Reference: LeafSubgame.root_values (player 0's value from each root under a policy of the
  # leaf's layout, computed on the leaf's own arrays). A search at "pb" (kuhn_poker, cut at 2)
  # reaches the end of the game, so Algorithm 1's v(beta) is the mean over t of those values
  # under pi^t; player 1's are minus them (zero-sum).
  game = _load(KUHN)
  agent = ReBeLAgent(game, lookahead=1, iterations=7)
  [leaf] = agent.cuts.cut(2).leaves
  search_game = agent.cuts.at(leaf, 2)
  belief = np.random.default_rng(0).dirichlet(np.ones(leaf.num_roots))
  record = run_search(search_game, belief, 7, agent.leaf_solver, agent.rule)
  expected = np.mean([leaf.root_values(policy) for policy in record.iterates], axis=0)
  assert np.abs(record.root_values[:, 0] - expected).max() <= ROUNDING
  assert np.abs(record.root_values[:, 1] + expected).max() <= ROUNDING
