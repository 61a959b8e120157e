"""Tests of algorithms.exact.sequence_form_lp: values against published numbers and closed forms,
equilibria against OpenSpiel's exploitability, and the errors for unsupported games."""

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest
from scipy import sparse

from algorithms.exact import sequence_form_lp
from algorithms.tree.game_tree import GameTree
import spiel_games  # noqa: F401  (registers kuhn_poker_ante)

# Exploitability (NashConv / 2) below which an LP policy counts as an exact equilibrium.
EXACT = 1e-9


@pytest.fixture(scope="module")
def kuhn_solution():
  return sequence_form_lp.solve_game(pyspiel.load_game("kuhn_poker"))


@pytest.fixture(scope="module")
def leduc():
  game = pyspiel.load_game("leduc_poker")
  return game, sequence_form_lp.solve_game(game)


def _matrix_game_form(matrix):
  """Sequence form of a one-shot matrix game: one information set per player, no chance."""
  m = np.asarray(matrix, dtype=float)
  payoff = np.zeros((m.shape[0] + 1, m.shape[1] + 1))
  payoff[1:, 1:] = m
  def constraints(k):
    e = np.zeros((2, k + 1))
    e[0, 0] = 1.0
    e[1, 0] = -1.0
    e[1, 1:] = 1.0
    return sparse.csr_matrix(e)
  return sparse.csr_matrix(payoff), constraints(m.shape[0]), constraints(m.shape[1])


def test_kuhn_value_is_minus_one_eighteenth(kuhn_solution):
  # Kuhn 1950: the value of Kuhn poker for the first player is -1/18.
  assert kuhn_solution.value == pytest.approx(-1 / 18, abs=1e-12)
  assert kuhn_solution.value_from_player_1 == pytest.approx(-1 / 18, abs=1e-12)


def test_kuhn_policy_is_an_equilibrium(kuhn_solution):
  game = pyspiel.load_game("kuhn_poker")
  assert exploitability.exploitability(game, kuhn_solution.policy) < EXACT


def test_kuhn_poker_and_kuhn_poker_ante_have_the_same_value(kuhn_solution):
  # kuhn_poker_ante with its defaults (ante = bet = 1, 3 cards) is OpenSpiel's kuhn_poker.
  ante = sequence_form_lp.solve_game(pyspiel.load_game("kuhn_poker_ante"))
  assert ante.value == pytest.approx(kuhn_solution.value, abs=1e-12)


def test_leduc_value(leduc):
  # -0.085606424078: Lanctot et al. 2017 (arXiv 1711.00832), Appendix E.2, also asserted to
  # 6 places in OpenSpiel's algorithms/sequence_form_lp_test.py (test_leduc_poker).
  _, solution = leduc
  assert solution.value == pytest.approx(-0.085606424078, abs=1e-6)
  assert solution.value_from_player_1 == pytest.approx(-0.085606424078, abs=1e-6)


def test_leduc_policy_is_an_equilibrium(leduc):
  game, solution = leduc
  assert exploitability.exploitability(game, solution.policy) < EXACT


@pytest.mark.parametrize("deck_size", range(3, 9))
def test_kuhn_deck_sizes_are_solved_exactly(deck_size):
  # Independent checks: OpenSpiel's best responses (exploitability) and LP duality (the two
  # players' LPs give the same value).
  game = pyspiel.load_game("kuhn_poker_ante", {"deck_size": deck_size})
  solution = sequence_form_lp.solve_game(game)
  assert exploitability.exploitability(game, solution.policy) < EXACT
  assert solution.value == pytest.approx(solution.value_from_player_1, abs=1e-12)


def test_kuhn_alpha_family_range(kuhn_solution):
  # Kuhn 1950: player 0's equilibria bet J with any alpha in [0, 1/3] (and nothing more).
  form = sequence_form_lp.sequence_form(kuhn_solution.tree)
  p0 = kuhn_solution.tree.players[0]
  infoset = p0.infoset_keys.index("0")
  bet_j = int(p0.seq_start[infoset]) + p0.legal_actions[infoset].index(1)
  low, high = sequence_form_lp.sequence_weight_range(
      form.payoff, form.constraints[0], form.rhs[0], form.constraints[1], form.rhs[1],
      kuhn_solution.value, bet_j)
  assert low == pytest.approx(0.0, abs=1e-6)
  assert high == pytest.approx(1 / 3, abs=1e-6)


def test_unreached_information_sets_are_uniform():
  # With ante 2, bet 1, player 0 always bets K (closed form, regime both_bluff), so its set
  # "2pb" (K facing a bet after checking) has realization weight 0 and gets the uniform policy.
  game = pyspiel.load_game("kuhn_poker_ante", {"ante": 2.0})
  solution = sequence_form_lp.solve_game(game)
  np.testing.assert_allclose(solution.policy.policy_for_key("2"), [0.0, 1.0], atol=1e-9)
  np.testing.assert_array_equal(solution.policy.policy_for_key("2pb"), [0.5, 0.5])


def test_matrix_level_solves_a_matrix_game():
  # Closed form of a 2x2 game without saddle point [[p, q], [r, s]]: value (ps - qr) /
  # (p + s - q - r) = 1/5, row strategy ((s - r), (p - q)) / (p + s - q - r) = (2/5, 3/5),
  # column strategy ((s - q), (p - r)) / (p + s - q - r) = (2/5, 3/5).
  payoff, e, f = _matrix_game_form([[2.0, -1.0], [-1.0, 1.0]])
  solution = sequence_form_lp.solve_sequence_form(payoff, e, f)
  assert solution.value == pytest.approx(0.2, abs=1e-12)
  assert solution.value_from_player_1 == pytest.approx(0.2, abs=1e-12)
  x, y = solution.realization_plans
  np.testing.assert_allclose(x, [1.0, 0.4, 0.6], atol=1e-12)
  np.testing.assert_allclose(y, [1.0, 0.4, 0.6], atol=1e-12)


def test_matrix_level_rock_paper_scissors():
  # Rock-paper-scissors: value 0, the unique equilibrium is uniform (von Neumann-Morgenstern).
  payoff, e, f = _matrix_game_form([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
  solution = sequence_form_lp.solve_sequence_form(payoff, e, f)
  assert solution.value == pytest.approx(0.0, abs=1e-12)
  for plan in solution.realization_plans:
    np.testing.assert_allclose(plan, [1.0, 1 / 3, 1 / 3, 1 / 3], atol=1e-12)


def test_matrix_level_rejects_mismatched_shapes():
  payoff, e, f = _matrix_game_form([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
  with pytest.raises(ValueError, match="do not fit"):
    sequence_form_lp.solve_sequence_form(payoff, f[:, :3], f)
  with pytest.raises(ValueError, match="do not fit"):
    sequence_form_lp.solve_sequence_form(payoff, e, f, rhs_0=np.ones(5))


@pytest.mark.parametrize("game_string, message", [
    # Refused before the walk: 10-player Kuhn's walk would stop at max_nodes with another error.
    ("kuhn_poker(players=10)", "the sequence form LP needs exactly 2 players, got 10"),
    ("first_sealed_auction(max_value=3)", "needs a zero-sum or constant-sum game"),
    ("matrix_rps", "sequential dynamics"),
])
def test_unsupported_games_are_refused(game_string, message):
  with pytest.raises(ValueError, match=message):
    sequence_form_lp.solve_game(pyspiel.load_game(game_string))


def test_sequence_form_of_a_three_player_tree_is_refused():
  tree = GameTree.from_game(pyspiel.load_game("kuhn_poker(players=3)"))
  with pytest.raises(ValueError, match="needs exactly 2 players, got 3"):
    sequence_form_lp.sequence_form(tree)


def test_general_sum_game_is_refused():
  # The prisoner's dilemma is general-sum; made sequential so that only the utility is wrong.
  game = pyspiel.load_game_as_turn_based("matrix_pd")
  with pytest.raises(ValueError, match="zero-sum"):
    sequence_form_lp.solve_game(game)


def test_too_large_game_is_refused():
  with pytest.raises(ValueError, match="max_nodes"):
    sequence_form_lp.solve_game(pyspiel.load_game("leduc_poker"), max_nodes=1000)


def test_sequence_weight_range_rejects_a_bad_sequence():
  payoff, e, f = _matrix_game_form([[2.0, -1.0], [-1.0, 1.0]])
  with pytest.raises(ValueError, match=r"sequence 3 out of range \[0, 3\)"):
    sequence_form_lp.sequence_weight_range(payoff, e, np.array([1.0, 0.0]), f,
                                           np.array([1.0, 0.0]), 0.2, 3)


def test_infeasible_plan_constraints_are_refused():
  # A right-hand side no realization plan meets (x[empty] = 1 and x[empty] = -1 at once).
  payoff, e, f = _matrix_game_form([[2.0, -1.0], [-1.0, 1.0]])
  e_bad = sparse.vstack([e, sparse.csr_matrix([[1.0, 0.0, 0.0]])], format="csr")
  with pytest.raises(ValueError, match="sequence-form LP failed"):
    sequence_form_lp.solve_sequence_form(payoff, e_bad, f, rhs_0=np.array([1.0, 0.0, -1.0]))
