"""Where our CFR parts from OpenSpiel's Python CFR: exact ties (issue 36).

Our solvers equal OpenSpiel's to 1e-10 (test_solvers.py) on games whose uniform profile has no
exact tie. Where two actions are worth exactly the same, the regret after the first iteration is
a rounding residue whose sign depends on the order of the additions, and regret matching turns a
residue of +1e-17 into a pure policy and one of -1e-17 into the uniform one: both runs are
correct CFR, and they part. In two-player N-card Kuhn poker (``kuhn_poker_ante(deck_size=N)``)
the uniform profile has such a tie exactly when N = 1 (mod 4): a player holding card c facing a
bet wins the 2 chips of the pot against the c lower of the N - 1 other cards and loses them
against the others, so calling is worth 2 (2c - N + 1) / (N - 1), and folding -1 (the ante):
equal when c = (N - 1) / 4. README.md and docs/solvers.md quote the 5-card run measured here.
"""

from fractions import Fraction

import numpy as np
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms import CFRSolver
import helpers
import spiel_games  # noqa: F401  (registers kuhn_poker_ante)

PASS, BET = 0, 1  # The actions of Kuhn poker: pass (check, fold) and bet (bet, call).
FIVE_CARDS = "kuhn_poker_ante(deck_size=5)"


def facing_bet_values(deck_size: int, card: int):
  """(fold, call) of the second player holding ``card`` after the first bet, under the uniform
  profile, as exact Fractions: the first player's bet has probability 1/2 with every card, so
  the other card is uniform over the rest; returns walked on the game's states."""
  game = pyspiel.load_game(f"kuhn_poker_ante(deck_size={deck_size})")
  values = []
  for action in (PASS, BET):
    total = Fraction(0)
    others = [c for c in range(deck_size) if c != card]
    for other in others:
      state = game.new_initial_state()
      for step in (other, card, BET, action):
        state.apply_action(step)
      total += Fraction(state.returns()[1])
    values.append(total / len(others))
  return tuple(values)


@pytest.mark.parametrize("deck_size", range(3, 10))
def test_the_uniform_profile_ties_fold_and_call_exactly_when_the_deck_is_1_mod_4(deck_size):
  ties = [c for c in range(deck_size) if len(set(facing_bet_values(deck_size, c))) == 1]
  assert ties == ([(deck_size - 1) // 4] if deck_size % 4 == 1 else [])
  for card in range(deck_size):
    assert facing_bet_values(deck_size, card) == (
        -1, Fraction(2 * (2 * card - deck_size + 1), deck_size - 1))


def _run(game_string: str, iterations: int):
  """Our CFR and OpenSpiel's Python CFR side by side: per iteration, the largest difference of
  their current and of their average policies, and the two solvers."""
  game = pyspiel.load_game(game_string)
  ours, theirs = CFRSolver(game), cfr.CFRSolver(game)
  current, average = [], []
  for _ in range(iterations):
    ours.evaluate_and_update_policy()
    theirs.evaluate_and_update_policy()
    current.append(np.abs(ours.current_policy().action_probability_array
                          - theirs.current_policy().action_probability_array).max(axis=1))
    average.append(np.abs(ours.average_policy().action_probability_array
                          - theirs.average_policy().action_probability_array).max())
  return game, ours, theirs, current, average


def test_five_card_runs_part_at_iteration_2_because_of_the_tie():
  game, ours, theirs, current, average = _run(FIVE_CARDS, 100)
  # After the first iteration the current policies differ exactly at the tie: card 1 facing a
  # bet, first or after a check (fold and call both worth -1 above). The average, the uniform
  # first policy, parts at iteration 2.
  lookup = ours.current_policy().state_lookup
  assert {s for s, i in lookup.items() if current[0][i] > 1e-10} == {"1b", "1pb"}
  assert average[0] < 1e-12 and average[1] > 0.1
  # Both runs are CFR and converge; they end at different NashConv (docs quote these).
  ours_nc = exploitability.nash_conv(game, ours.average_policy())
  theirs_nc = exploitability.nash_conv(game, theirs.average_policy())
  assert ours_nc == pytest.approx(0.01307, abs=5e-6)
  assert theirs_nc == pytest.approx(0.01114, abs=5e-6)
  # The tie is the cause: with the bet 1.01 (no tie) the two runs agree to 1e-10 throughout.
  *_, average_no_tie = _run("kuhn_poker_ante(deck_size=5,bet=1.01)", 100)
  assert max(average_no_tie) < 1e-10
  # README.md and docs/solvers.md state the example with these numbers.
  for page in (helpers.REPO / "README.md", helpers.REPO / "docs" / "solvers.md"):
    text = " ".join(page.read_text().split())
    assert all(s in text for s in (FIVE_CARDS, f"{ours_nc:.5f}", f"{theirs_nc:.5f}",
                                   "iteration 2")), page.name
