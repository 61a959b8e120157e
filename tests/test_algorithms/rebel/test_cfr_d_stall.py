"""The CFR-D stall of ReBeL's agent with exact leaves on its minimal case (rebel/leaf_step.py).

Kuhn poker (J < Q < K, ante 1, bet 1), the agent cut after d = 1 action, CFR-D (current
beliefs). Suppose the root search's iterate pi^t checks the Jack and the Queen and bets the King.
The leaf "p" then has the PBS beta = 1/4 on each of (J,Q), (J,K), (Q,J), (Q,K) and 0 on (K,J),
(K,Q). By hand, in exact fractions (``_queen_values``): player 1's Queen faces only the Jack;
checking wins 1 at the showdown, betting wins 1 when the Jack folds (calling loses 2), so the
two actions tie, and the PBS leaves the Queen's play free. The root search's leaf value of the
King's check against the Queen is +1 (the LP's Queen checks), but the next search, whose CFR
sees the tie, bets the Queen with probability 1/2 at every iteration, against which the King's
check is worth 1 + 1/2 = 3/2: the trunk under-values checking the King at every search where the
King has no mass, and the agent stalls (0.0836, 0.0614, 0.0523 at T = 10, 30, 100). With
trembling reaches every card keeps mass TREMBLE, the Queen's bet loses 1 against the King, and
both the LP and the next search check the Queen.
"""

from fractions import Fraction

import numpy as np
import pyspiel
import pytest

from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.agent.agent import Play
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.search import run_search
from algorithms.rebel.leaf_step import TREMBLE
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

J, Q, K = 0, 1, 2


def _queen_values(king_mass: Fraction):
  """Player 1's counterfactual values of checking and betting the Queen at "p" (exact).

  The Queen faces the Jack with mass 1/4 and the King with ``king_mass``; after a bet the Jack
  folds (-1 < -2 for it) and the King calls. Values to player 1.
  """
  check = Fraction(1, 4) * 1 + king_mass * -1  # Showdowns: Q beats J, loses to K.
  bet = Fraction(1, 4) * 1 + king_mass * -2  # J folds (player 1 wins the ante), K calls.
  return check, bet


def test_queen_tie_by_hand():
  # Without mass on the King the two actions tie exactly: regret 0, regret matching plays 1/2;
  # any mass on the King makes betting strictly worse.
  check, bet = _queen_values(Fraction(0))
  assert check == bet == Fraction(1, 4)
  check, bet = _queen_values(Fraction(1, 10**6))
  assert bet < check


def _sequence(arrays, player, key, action):
  p = arrays.tree.players[player]
  return arrays.global_seq[player][p.seq_start[list(p.infoset_keys).index(key)] + action]


@pytest.fixture(scope="module")
def minimal_case():
  game = pyspiel.load_game("kuhn_poker")
  agent = ReBeLAgent(game, lookahead=1, iterations=10, leaf_beliefs="current", play="iterate")
  root, belief = agent.root()
  policy = np.ones(root.arrays.num_sequences)  # Player 0 checks J and Q, bets K.
  for card, action in ((J, 0), (Q, 0), (K, 1)):
    policy[_sequence(root.arrays, 0, str(card), action)] = 1.0
    policy[_sequence(root.arrays, 0, str(card), 1 - action)] = 0.0
  leaf = next(leaf for leaf in root.leaves if leaf.leaf.public_state == "p")
  next_game, next_belief = agent.next_search(root, leaf, belief, Play(1.0, policy, 1))
  return agent, leaf, next_game, next_belief


def test_the_king_keeps_a_trembling_mass(minimal_case):
  _, _, _, belief = minimal_case
  # Roots (J,Q), (J,K), (Q,J), (Q,K), (K,J), (K,Q): the King's two roots keep mass about
  # TREMBLE / 4 (Bayes' rule with reach TREMBLE against 1), the others share the rest.
  np.testing.assert_allclose(belief[:4], 0.25, atol=TREMBLE)
  assert np.all(belief[4:] > TREMBLE / 8) and np.all(belief[4:] < TREMBLE)


def test_next_search_answers_the_king(minimal_case):
  # The minimal case: the next search at the leaf PBS checks the Queen from its second
  # iteration on (uniform first iterate), as the leaf LP does; without trembles it bets the
  # Queen with probability 1/2 at every iteration.
  agent, _, game, belief = minimal_case
  record = run_search(game, belief, agent.iterations, agent.leaf_solver, agent.rule, "current")
  queen_bets = record.iterates[:, _sequence(game.arrays, 1, "1p", 1)]
  assert queen_bets[0] == 0.5
  np.testing.assert_array_equal(queen_bets[1:], 0.0)


def test_leaf_value_of_the_kings_check_is_the_value_of_the_next_search(minimal_case):
  # The root search's leaf value of (K, Q) is player 0's value of checking the King against the
  # Queen: +1 when the Queen checks, as the next search plays from iteration 2 on.
  agent, leaf, _, belief = minimal_case
  values = agent.leaf_solver(leaf.leaf, belief).root_values
  np.testing.assert_allclose(values[5], 1.0, atol=1e-5)


def test_cfr_d_agent_no_longer_stalls():
  # The stall's symptom: kuhn_poker, d = 1, CFR-D exact leaves gave 0.0836 / 0.0614 at
  # T = 10 / 30 before the trembles; now it falls with T, near the stitched CFR-D policy.
  game = pyspiel.load_game("kuhn_poker")
  values = []
  for iterations in (10, 30):
    agent = ReBeLAgent(game, lookahead=1, iterations=iterations, leaf_beliefs="current",
                       play="iterate")
    values.append(TreeEvaluator(agent.arrays).exploitability(behaviour_strategy(agent).policy))
  assert values[1] < values[0] < 0.04
  assert values[1] < 0.025


def test_thirteen_cards_lookahead_two_falls_with_ties_split():
  # The second case of the same kind, at positive mass: with 13 cards and d = 2 the leaf pb has
  # only player 0 acting, and CFR's pure iterates make some of its cards exactly indifferent
  # between calling and folding. A best response that takes the first tied action (fold) values
  # the bet for player 1 as the next search, which splits the tie, does not play: the paper's
  # agent rose from 0.0029 at T = 100 to 0.0047 at T = 300. With ties split equally: 0.00046 and
  # 0.00044 (measured).
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=13)")
  values = [TreeEvaluator(agent.arrays).exploitability(behaviour_strategy(agent).policy)
            for agent in (ReBeLAgent(game, lookahead=2, iterations=t) for t in (100, 300))]
  assert values[1] <= values[0] < 0.001
