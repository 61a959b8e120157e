"""Tests of spiel_games/public_belief_state.py.

Expected numbers are worked by hand from Bayes' rule over the six ordered deals of three-card Kuhn
poker (each of probability 1/6, Kuhn 1950) unless stated otherwise.
"""

from fractions import Fraction
import itertools
import pickle
import random

import pytest

from spiel_games.kuhn_rules import BET
from spiel_games.kuhn_rules import PASS
from spiel_games.kuhn_rules import KuhnRules
from spiel_games.public_belief_state import PublicBeliefState

F = Fraction
RULES = KuhnRules()
SIMPLIFIED = KuhnRules(simplified=True)


def test_initial_is_uniform_over_ordered_deals():
  pbs = PublicBeliefState.initial(RULES)
  # 3 * 2 ordered deals without replacement, each 1/6.
  assert pbs.belief == (F(1, 6),) * 6
  assert pbs.history == "" and pbs.current_player == 0 and not pbs.is_terminal
  # Each player holds each card with probability 1/3.
  assert pbs.marginal(0) == (F(1, 3),) * 3
  assert pbs.marginal(1) == (F(1, 3),) * 3
  # Four cards: 12 ordered deals.
  assert PublicBeliefState.initial(KuhnRules(deck_size=4)).belief == (F(1, 12),) * 12


def test_bayes_update_by_hand():
  # Player 0 announces bet J=1/3, Q=0, K=1 (Kuhn's alpha = 1/3 opening).
  # P(bet) = (1/3)(1/3) + 0 + (1/3)(1) = 4/9; deals with J: (1/6)(1/3)/(4/9) = 1/8, with K: 3/8.
  pbs, p_bet = PublicBeliefState.initial(RULES).update([F(1, 3), 0, 1], BET)
  assert p_bet == F(4, 9)
  assert pbs.history == "b" and pbs.current_player == 1
  assert dict(zip(RULES.deals(), pbs.belief)) == {
      (0, 1): F(1, 8), (0, 2): F(1, 8), (1, 0): 0, (1, 2): 0, (2, 0): F(3, 8), (2, 1): F(3, 8)}
  assert pbs.marginal(0) == (F(1, 4), 0, F(3, 4))
  # Player 1 holds J in deals KJ only (3/8), Q in JQ + KQ (1/8 + 3/8), K in JK (1/8).
  assert pbs.marginal(1) == (F(3, 8), F(1, 2), F(1, 8))
  # The pass: P = 5/9; J deals (1/6)(2/3)/(5/9) = 1/5, Q deals (1/6)/(5/9) = 3/10, K deals 0.
  passed, p_pass = PublicBeliefState.initial(RULES).update([F(1, 3), 0, 1], PASS)
  assert p_pass == F(5, 9)
  assert passed.belief == (F(1, 5), F(1, 5), F(3, 10), F(3, 10), 0, 0)
  # The acting player's probabilities, both actions.
  assert PublicBeliefState.initial(RULES).action_probabilities([F(1, 3), 0, 1]) == (F(5, 9),
                                                                                     F(4, 9))


def test_equal_beliefs_are_equal_keys():
  # Passing under (0, 0, 0) and under (1/2, 1/2, 1/2) both leave the belief uniform: the same PBS.
  a, _ = PublicBeliefState.initial(RULES).update([0, 0, 0], PASS)
  b, _ = PublicBeliefState.initial(RULES).update([F(1, 2)] * 3, PASS)
  assert a == b and hash(a) == hash(b)
  assert len({a: 1, b: 2}) == 1
  # Two orders of the same likelihoods reach the same PBS (exact arithmetic, no rounding drift).
  x, _ = a.update([F(1, 3), F(2, 3), 1], BET)
  y, _ = b.update([F(1, 9), F(2, 9), F(1, 3)], BET)  # Proportional likelihoods.
  assert x == y and hash(x) == hash(y)
  # A different history is a different PBS even with the same belief.
  assert PublicBeliefState(RULES, "", a.belief) != a


def _reaches_along(history, policies):
  """Reach of each player's cards when policy[t][c] is P(bet | card c) at decision t."""
  reach = [[F(1)] * 3, [F(1)] * 3]
  for t, char in enumerate(history):
    for c in range(3):
      q = F(policies[t][c])
      reach[t % 2][c] *= q if char == "b" else 1 - q
  return reach


def test_from_reaches_agrees_with_successive_updates():
  # Bayes' rule applied decision by decision must equal the closed form
  # belief(d) ~ chance(d) reach_0(c_0) reach_1(c_1) (ReBeL, Section 3), and the product of the
  # action probabilities must equal the reach mass Z.
  rng = random.Random(0)
  for history in ["b", "p", "pb", "bb", "pbb", "pbp"]:
    for _ in range(5):
      policies = [[F(rng.randint(1, 5), 6) for _ in range(3)] for _ in history]
      pbs, mass = PublicBeliefState.initial(RULES), F(1)
      for t, char in enumerate(history):
        pbs, p = pbs.update(policies[t], "pb".index(char))
        mass *= p
      reach_0, reach_1 = _reaches_along(history, policies)
      assert PublicBeliefState.from_reaches(RULES, history, reach_0, reach_1) == pbs
      assert PublicBeliefState.reach_mass(RULES, reach_0, reach_1) == mass


def test_from_reaches_with_floats_is_exact_and_zero_reach_is_an_error():
  pbs = PublicBeliefState.from_reaches(RULES, "p", [1.0, 0.5, 0.0], [1.0, 1.0, 1.0])
  # Weights 1, 1 (J deals), 1/2, 1/2 (Q deals), 0, 0 (K deals), total 3.
  assert pbs.belief == (F(1, 3), F(1, 3), F(1, 6), F(1, 6), 0, 0)
  assert PublicBeliefState.reach_mass(RULES, [1.0, 0.5, 0.0], [1.0, 1.0, 1.0]) == F(1, 2)
  # Player 0 only holds K and player 1 only holds K: no deal is possible.
  with pytest.raises(ValueError, match="total reach .* is zero"):
    PublicBeliefState.from_reaches(RULES, "p", [0, 0, 1], [0, 0, 1])
  with pytest.raises(ValueError, match="reach_1 must have 3 entries"):
    PublicBeliefState.from_reaches(RULES, "p", [1, 1, 1], [1, 1])
  with pytest.raises(ValueError, match="reach_0 must be non-negative"):
    PublicBeliefState.from_reaches(RULES, "p", [1, -1, 1], [1, 1, 1])


def test_expected_returns_by_hand():
  uniform = (F(1, 6),) * 6
  # bp: player 1 folds, player 0 wins player 1's ante.
  assert PublicBeliefState(RULES, "bp", uniform).expected_returns() == (1, -1)
  # bb / pp under the uniform belief: showdown, symmetric, zero.
  assert PublicBeliefState(RULES, "bb", uniform).expected_returns() == (0, 0)
  assert PublicBeliefState(RULES, "pp", uniform).expected_returns() == (0, 0)
  # pbb with K vs J (prob 3/4) and J vs Q (1/4): 3/4 * 2 - 1/4 * 2 = 1.
  belief = (F(1, 4), 0, 0, 0, F(3, 4), 0)  # Deal order JQ JK QJ QK KJ KQ.
  assert PublicBeliefState(RULES, "pbb", belief).expected_returns() == (1, -1)
  # Simplified rules, ante 2: "p" is a showdown for the antes; K J with certainty pays 2.
  rules = KuhnRules(ante=2.0, simplified=True)
  assert PublicBeliefState(rules, "p", (0, 0, 0, 0, 1, 0)).expected_returns() == (2, -2)


def test_validation_messages():
  uniform = (F(1, 6),) * 6
  with pytest.raises(ValueError, match="history 'pbpb' is not a betting history"):
    PublicBeliefState(RULES, "pbpb", uniform)
  with pytest.raises(ValueError, match="history 'pp' is not a betting history"):
    PublicBeliefState(SIMPLIFIED, "pp", uniform)  # "p" ends the simplified game.
  with pytest.raises(ValueError, match="belief must have 6 entries"):
    PublicBeliefState(RULES, "", (F(1, 3),) * 3)
  with pytest.raises(ValueError, match="belief must sum to 1"):
    PublicBeliefState(RULES, "", (F(1, 5),) * 6)
  with pytest.raises(ValueError, match="belief must be non-negative"):
    PublicBeliefState(RULES, "", (F(1, 2), F(-1, 2), 1, 0, 0, 0))
  pbs = PublicBeliefState.initial(RULES)
  with pytest.raises(ValueError, match=r"policy entries are probabilities in \[0, 1\]"):
    pbs.update([0, 2, 0], BET)
  with pytest.raises(ValueError, match="policy must have 3 entries"):
    pbs.update([0, 1], BET)
  with pytest.raises(ValueError, match="action must be 0 .* or 1"):
    pbs.update([0, 0, 0], 2)
  with pytest.raises(ValueError, match="probability zero"):
    pbs.update([0, 0, 0], BET)
  terminal = PublicBeliefState(RULES, "bb", uniform)
  with pytest.raises(ValueError, match="terminal"):
    terminal.update([0, 0, 0], PASS)
  with pytest.raises(ValueError, match="nobody acts"):
    _ = terminal.current_player
  with pytest.raises(ValueError, match="not terminal"):
    pbs.expected_returns()
  with pytest.raises(ValueError, match="player must be 0 or 1"):
    pbs.marginal(2)


def test_marginals_sum_to_one_and_float_view_matches():
  rng = random.Random(1)
  for history in ["p", "b", "pb"]:
    reaches = [[F(rng.randint(0, 4), 4) + F(1, 8) for _ in range(3)] for _ in range(2)]
    pbs = PublicBeliefState.from_reaches(RULES, history, *reaches)
    for player in (0, 1):
      assert sum(pbs.marginal(player)) == 1
    assert list(pbs.belief_array()) == pytest.approx([float(b) for b in pbs.belief], abs=1e-15)


def test_pickle_and_string():
  pbs, _ = PublicBeliefState.initial(RULES).update([F(1, 3), 0, 1], PASS)
  assert pickle.loads(pickle.dumps(pbs)) == pbs
  assert str(pbs) == "history=p belief[JQ=1/5 JK=1/5 QJ=3/10 QK=3/10 KJ=0 KQ=0]"


def test_every_deck_size_deal_order_matches_rules():
  # The belief is indexed by rules.deals(): ordered pairs without replacement.
  for n in (2, 4, 5):
    rules = KuhnRules(deck_size=n)
    pbs = PublicBeliefState.initial(rules)
    assert pbs.deals == tuple(itertools.permutations(range(n), 2))
    assert pbs.marginal(1) == (F(1, n),) * n


def test_str_prints_float_beliefs_short():
  # Beliefs converted exactly from floats have 2^k denominators (17 digits): printed with 4
  # significant digits and a "~"; small-denominator beliefs stay exact fractions.
  rules = KuhnRules()
  pbs = PublicBeliefState.from_reaches(rules, "p", [0.3, 1.0, 0.7], [1.0, 1.0, 1.0])
  text = str(pbs)
  assert text == ("history=p belief[JQ=~0.075 JK=~0.075 QJ=~0.25 QK=~0.25 KJ=~0.175 "
                  "KQ=~0.175]")
  assert PublicBeliefState.initial(rules).__str__().endswith("KQ=1/6]")
