"""Tests of the leaf subgames (algorithms/rebel/public_tree.py) and leaf solvers
(algorithms/rebel/leaves/solvers.py).

References: the project's two-LP sequence-form solver ``solve_sequence_form`` (one LP per
player), exact exploitability in the leaf (``TreeEvaluator``), and hand computations in Kuhn.
"""

import numpy as np
import pyspiel
import pytest

from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.exact import sequence_form_lp
from algorithms.rebel.leaves.solvers import CFRLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.rebel.leaves.solvers import best_response
from algorithms.rebel.leaves.solvers import complete_with_best_response
from algorithms.rebel.leaves.solvers import uniform_policy
from algorithms.rebel.public_tree import PublicTree
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games.kuhn_rules import KuhnRules


@pytest.fixture(scope="module")
def kuhn_leaves():
  arrays = TreeArrays(GameTree.from_game(pyspiel.load_game("kuhn_poker")))
  return {leaf.public_state: leaf for leaf in PublicTree.cut(arrays, 1).leaves}


def _beliefs(num_roots, count=4, seed=0):
  rng = np.random.default_rng(seed)
  out = [np.full(num_roots, 1.0 / num_roots)]
  for _ in range(count - 1):
    b = rng.random(num_roots)
    out.append(b / b.sum())
  return out


def _leaf_exploitability(leaf, belief, policy):
  return TreeEvaluator(leaf.arrays_at(belief)).exploitability(policy)


def test_lp_matches_two_lp_reference_and_is_an_equilibrium(kuhn_leaves):
  # Reference: sequence_form_lp.solve_sequence_form (one LP per player) on the same payoff.
  leaf = kuhn_leaves["p"]
  solver = SequenceFormLPSolver()
  form = sequence_form_lp.sequence_form(leaf.tree)
  for belief in _beliefs(leaf.num_roots):
    solution = solver(leaf, belief)
    wu = leaf.weighted_utility(belief)
    t = leaf.tree
    payoff = np.zeros(form.payoff.shape)
    np.add.at(payoff, (t.terminal_seq[:, 0], t.terminal_seq[:, 1]), wu[:, 0])
    reference = sequence_form_lp.solve_sequence_form(payoff, *form.constraints)
    assert solution.value(belief) == pytest.approx(reference.value, abs=1e-9)
    assert _leaf_exploitability(leaf, belief, solution.policy) < 1e-9


def test_one_player_leaf_by_hand(kuhn_leaves):
  # Leaf "b" at the uniform belief: player 1 folds J, calls with Q (call: +2 or -2 with equal
  # odds = 0 > fold -1) and K. Player 0's value: (J,Q) -2, (J,K) -2, (Q,J) +1, (Q,K) -2, (K,J) +1,
  # (K,Q) +2, total -2 over 6 deals = -1/3.
  leaf = kuhn_leaves["b"]
  belief = np.full(6, 1.0 / 6)
  solution = SequenceFormLPSolver()(leaf, belief)
  assert solution.value(belief) == pytest.approx(-1.0 / 3.0, abs=1e-12)
  assert _call_probabilities(leaf, solution.policy, 1) == {"0b": 0.0, "1b": 1.0, "2b": 1.0}


def test_one_player_leaf_splits_a_tie(kuhn_leaves):
  # Leaf "b", by hand: player 1's Queen faces the Jack with mass 1/8 and the King with 3/8
  # (roots (J,Q), (K,Q)); calling gives 2/8 - 6/8 = -1/2, folding -(1/8 + 3/8) = -1/2: a tie,
  # which the leaf plays half and half with split_ties (as CFR at the leaf does from its second
  # iteration on), else by the first action. The Jack folds, the King calls (no tie).
  leaf = kuhn_leaves["b"]
  belief = np.array([1, 1, 1, 1, 1, 3]) / 8.0
  solution = SequenceFormLPSolver(split_ties=True)(leaf, belief)
  assert _call_probabilities(leaf, solution.policy, 1) == {"0b": 0.0, "1b": 0.5, "2b": 1.0}
  first = SequenceFormLPSolver()(leaf, belief)  # The default: the first tied action (fold).
  assert _call_probabilities(leaf, first.policy, 1) == {"0b": 0.0, "1b": 0.0, "2b": 1.0}
  assert first.value(belief) == pytest.approx(solution.value(belief), abs=1e-12)


def test_cfr_leaf_solver_approaches_the_lp(kuhn_leaves):
  # CFR's average is an O(1/sqrt(N))-equilibrium (Zinkevich et al. 2007, Theorem 4): more
  # iterations bring the value to the LP's and the leaf exploitability towards 0.
  leaf = kuhn_leaves["p"]
  belief = _beliefs(leaf.num_roots, seed=3)[2]
  exact = SequenceFormLPSolver()(leaf, belief).value(belief)
  gaps, exploits = [], []
  for n in (10, 100, 2000):
    solution = CFRLeafSolver(n)(leaf, belief)
    gaps.append(abs(solution.value(belief) - exact))
    exploits.append(_leaf_exploitability(leaf, belief, solution.policy))
  assert exploits[0] > exploits[1] > exploits[2]
  assert exploits[2] < 2e-3
  assert gaps[2] <= exploits[2] + 1e-12  # |v(sigma) - v*| <= exploitability in zero-sum games.


def test_completion_gives_best_response_where_pbs_has_no_mass(kuhn_leaves):
  # Player 0 never checks J (zero belief on deals with J for player 0), so at "pb" holding J the
  # equilibrium says nothing; player 1 bets with some cards, so J's counterfactual value matters:
  # the completion must fold J (calling loses 2 against Q or K, folding loses 1).
  leaf = kuhn_leaves["p"]
  card_0 = np.array([KuhnRules().deals()[d][0] for d in leaf.deals])  # kuhn_poker's deals.
  belief = np.where(card_0 == 0, 0.0, 1.0)
  belief /= belief.sum()
  solution = SequenceFormLPSolver()(leaf, belief)
  weights = np.stack([leaf.root_chance, leaf.root_chance], axis=1)  # Opponent trunk reach 1.
  policy = complete_with_best_response(leaf, solution.policy, belief, weights)
  assert _call_probabilities(leaf, policy, 0)["0pb"] == 0.0
  # Elsewhere the LP solution is kept.
  a = leaf.arrays
  changed = np.flatnonzero(policy != solution.policy)
  j_pb = a.global_infoset[0][leaf.tree.players[0].infoset_keys.index("0pb")]
  assert set(a.seq_infoset[changed]) <= {j_pb}


def _call_probabilities(leaf, policy, player):
  """{information state: probability of action 1 (bet/call)} of ``player`` in the leaf."""
  a = leaf.arrays
  keys = leaf.tree.players[player].infoset_keys
  local = {int(g): i for i, g in enumerate(a.global_infoset[player])}
  return {keys[local[int(a.seq_infoset[g])]]: float(policy[g])
          for g in range(2, a.num_sequences) if a.seq_player[g] == player and a.seq_action[g] == 1}


def test_best_response_of_uniform_opponent_by_hand(kuhn_leaves):
  # Leaf "p", uniform belief, player 1 plays uniformly: player 0 at "pb" calls with K (wins 2),
  # folds J (call loses 2), and with Q calls (call: +2 vs J, -2 vs K, bets equally likely = 0 >
  # fold -1).
  leaf = kuhn_leaves["p"]
  a = leaf.arrays
  policy = best_response(a, leaf.weighted_utility(np.full(6, 1 / 6)), uniform_policy(a), 0)
  assert _call_probabilities(leaf, policy, 0) == {"0pb": 0.0, "1pb": 1.0, "2pb": 1.0}


def test_cut_refuses_more_than_two_players():
  arrays = TreeArrays(GameTree.from_game(pyspiel.load_game("kuhn_poker(players=3)")))
  with pytest.raises(ValueError, match="a public-state cut needs exactly 2 players, got 3"):
    PublicTree.cut(arrays, 1)


def test_cfr_leaf_solver_rejects_bad_iterations():
  with pytest.raises(ValueError, match="iterations must be an integer >= 1"):
    CFRLeafSolver(0)
