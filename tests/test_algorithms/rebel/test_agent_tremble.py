"""The agent's ``tremble`` option (rebel/agent/agent.py, rebel/leaf_step.py).

The default is ``leaf_step.TREMBLE`` and leaves the agent as it was; tremble 0 is the agent
before the trembles, which stalls on kuhn_poker at lookahead 1 (the CFR-D stall,
tests/test_algorithms/rebel/test_cfr_d_stall.py).
"""

import numpy as np
import pyspiel
import pytest

from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.agent.agent import Play
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.search import run_search
from algorithms.rebel.leaf_step import TREMBLE
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

J, Q, K = 0, 1, 2


def _exploitability(agent: ReBeLAgent) -> float:
  return TreeEvaluator(agent.arrays).exploitability(behaviour_strategy(agent).policy)


def test_default_tremble_is_todays_agent():
  # The default agent equals the agent given TREMBLE explicitly bit for bit, and its
  # exploitability at T = 10 is the one that an agent written from the paper alone, measured by
  # OpenSpiel outside the project, gives (issue 33: 0.0206 at lookahead 1, T = 10; docs/rebel.md).
  # Another tremble reaches the searches (the policy moves).
  game = pyspiel.load_game("kuhn_poker")
  default = ReBeLAgent(game, lookahead=1, iterations=10)
  assert default.tremble == TREMBLE
  policy = behaviour_strategy(default).policy
  explicit = behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=10, tremble=TREMBLE))
  np.testing.assert_array_equal(policy, explicit.policy)
  assert abs(TreeEvaluator(default.arrays).exploitability(policy) - 0.0206) < 5e-5
  other = behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=10, tremble=1e-2)).policy
  assert np.abs(other - policy).max() > 1e-3


def test_tremble_zero_reproduces_the_stall():
  # The agent as it was before the trembles (uniform weighting, the LP's first tied action):
  # 0.0836 and 0.0614 at T = 10 and 30 (test_cfr_d_stall.py, measured then); the trembles take
  # the same agent to 0.0301 and 0.0179 (docs/rebel.md, "CFR-D, uniform weighting").
  game = pyspiel.load_game("kuhn_poker")

  def agent(iterations, tremble):
    return ReBeLAgent(game, lookahead=1, iterations=iterations, weighting="uniform",
                      leaf_solver=SequenceFormLPSolver(), tremble=tremble)

  np.testing.assert_allclose([_exploitability(agent(t, 0.0)) for t in (10, 30)],
                             [0.0836, 0.0614], atol=5e-5)
  np.testing.assert_allclose([_exploitability(agent(t, TREMBLE)) for t in (10, 30)],
                             [0.0301, 0.0179], atol=5e-5)


def _sequence(arrays, player, key, action):
  p = arrays.tree.players[player]
  return arrays.global_seq[player][p.seq_start[list(p.infoset_keys).index(key)] + action]


@pytest.mark.parametrize("tremble", [0.0, TREMBLE])
def test_tremble_reaches_the_passed_on_belief_and_the_next_search(tremble):
  # test_cfr_d_stall.py's minimal case: the drawn root iterate checks the Jack and the Queen and
  # bets the King. The belief passed on to "p" gives the King's roots tremble / 4 (0 without
  # trembles); without trembles the next search's Queen is indifferent and bets with probability
  # 1/2 at every iteration, with them it checks from the second iteration on.
  agent = ReBeLAgent(pyspiel.load_game("kuhn_poker"), lookahead=1, iterations=10,
                     tremble=tremble)
  root, belief = agent.root()
  policy = np.ones(root.arrays.num_sequences)
  for card, action in ((J, 0), (Q, 0), (K, 1)):
    policy[_sequence(root.arrays, 0, str(card), action)] = 1.0
    policy[_sequence(root.arrays, 0, str(card), 1 - action)] = 0.0
  leaf = next(leaf for leaf in root.leaves if leaf.leaf.public_state == "p")
  game, pbs = agent.next_search(root, leaf, belief, Play(1.0, policy, 1))
  # Roots (J,Q), (J,K), (Q,J), (Q,K), (K,J), (K,Q); Bayes' rule with reach e against 1 + e.
  np.testing.assert_allclose(pbs[4:], tremble / (4 * (1 + tremble) + 2 * tremble), rtol=1e-9)
  record = run_search(game, pbs, agent.iterations, agent.leaf_solver, agent.rule, "current",
                      agent.tremble)
  queen_bets = record.iterates[:, _sequence(game.arrays, 1, "1p", 1)]
  np.testing.assert_array_equal(queen_bets, 0.5 if tremble == 0 else [0.5] + [0.0] * 9)


@pytest.mark.parametrize("tremble", [-1e-6, 1.0, float("nan"), "1e-6", True, None])
def test_bad_tremble_is_one_line(tremble):
  with pytest.raises(ValueError, match=r"^tremble must be a number in \[0, 1\), got .*$"):
    ReBeLAgent(pyspiel.load_game("kuhn_poker"), tremble=tremble)
