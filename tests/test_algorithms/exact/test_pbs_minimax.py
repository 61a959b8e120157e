"""Tests of the exact memoized solver algorithms/exact/pbs_minimax.py of kuhn_poker_referee.

References: the closed forms of algorithms/exact/kuhn_equilibria.py and the sequence-form LP of
algorithms/exact/sequence_form_lp.py on the base game kuhn_poker_ante (value of the base game);
OpenSpiel's expectiminimax on the referee game; a brute-force recursion over announcements with
PublicBeliefState updates; and a normal-form enumeration of the grid-restricted base game
(written here from KuhnRules alone) for the bounds on grids that miss every equilibrium.
"""

from fractions import Fraction
import itertools
import random

import numpy as np
from open_spiel.python.algorithms.minimax import expectiminimax
import pyspiel
import pytest

from algorithms.exact import kuhn_equilibria
from algorithms.exact import pbs_minimax
from algorithms.exact import sequence_form_lp
from algorithms.exact.pbs_minimax import PbsMinimax
from algorithms.exact.pbs_minimax import root_value
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games import kuhn_poker_referee as referee
from spiel_games.kuhn_rules import KuhnRules
from spiel_games.public_belief_state import PublicBeliefState

F = Fraction


def _load(**params):
  return pyspiel.load_game("kuhn_poker_referee", params)


def _expectiminimax(state):
  # OpenSpiel checks the depth before it looks for a chance node, so the referee move after the
  # last announcement needs one level more than the number of decisions.
  game = state.get_game()
  return expectiminimax(state, game.max_game_length() + 1, None, 0)[0]


@pytest.mark.parametrize("simplified, ante, grid", [
    (False, 1, 3),     # Kuhn 1950: alpha in {0, 1/3}, player 1 1/3: all thirds; value -1/18.
    (False, 2, 5),     # both_bluff regime: 1/5, 4/5, 1/5, 3/5; value -1/30.
    (True, 1, 3),      # p1 = p2 = 1/3; value 1/18.
    (True, 2, 5),      # p1 = 1/5, p2 = 3/5; value 1/10.
])
def test_value_equals_base_game_value_when_grid_contains_an_equilibrium(simplified, ante, grid):
  equilibrium = kuhn_equilibria.kuhn_equilibrium(ante, 1, simplified)
  probabilities = equilibrium.action_probabilities().values()
  assert all((p * grid).denominator == 1 for p in probabilities)  # The grid holds it.
  base = pyspiel.load_game("kuhn_poker_ante", {"ante": float(ante), "simplified": simplified})
  lp_value = sequence_form_lp.solve_game(base).value
  assert float(equilibrium.value) == pytest.approx(lp_value, abs=1e-9)
  value = root_value(_load(simplified=simplified, ante=float(ante), grid=grid))
  assert value == equilibrium.value  # Exact: ReBeL's discrete representation keeps the value.


def test_four_card_value_equals_the_lp_value_when_the_lp_equilibrium_is_on_the_grid():
  # No closed form for four cards: the base game's sequence-form LP gives the value and an
  # equilibrium; its probabilities are thirds (checked), so the grid-3 referee game has its value.
  base = pyspiel.load_game("kuhn_poker_ante(deck_size=4,simplified=True)")
  solution = sequence_form_lp.solve_game(base)
  grid = 3
  on_grid = solution.policy.action_probability_array * grid
  np.testing.assert_allclose(on_grid, np.round(on_grid), atol=1e-6)
  value = root_value(_load(deck_size=4, simplified=True, grid=grid))
  assert float(value) == pytest.approx(solution.value, abs=1e-9)


@pytest.mark.parametrize("spec", [
    # OpenSpiel's expectiminimax takes 1.5-3 s on the two slow games; the quick ones cover both
    # rule sets, another ante and another deck.
    pytest.param("kuhn_poker_referee(simplified=True,grid=3)", marks=pytest.mark.slow),
    "kuhn_poker_referee(simplified=True,grid=2,ante=2.0)",
    "kuhn_poker_referee(simplified=True,grid=1,deck_size=4)",
    "kuhn_poker_referee(grid=1)",
    pytest.param("kuhn_poker_referee(grid=3,deck_size=2,ante=0.5)", marks=pytest.mark.slow),
])
def test_root_value_matches_openspiel_expectiminimax(spec):
  game = pyspiel.load_game(spec)
  reference = _expectiminimax(game.new_initial_state())
  assert float(root_value(game)) == pytest.approx(reference, abs=1e-12)


def test_values_below_the_root_match_openspiel_expectiminimax():
  # Every state after player 0's first announcement and the referee's move, grid 2.
  game = _load(grid=2)
  solver = PbsMinimax.from_game(game)
  compared = 0
  for announcement in range(game.num_distinct_actions()):
    state = game.new_initial_state()
    state.apply_action(announcement)
    for outcome, _ in state.chance_outcomes():
      child = state.clone()
      child.apply_action(outcome)
      if child.pbs.history == "b" or announcement % 9 == 0:  # A sample of the slower "p".
        assert float(solver.value(child.pbs)) == pytest.approx(_expectiminimax(child), abs=1e-12)
        compared += 1
  assert compared >= 27


def brute_force_value(pbs, grid):
  """Expectiminimax by direct PBS updates over every announcement (exact Fractions)."""
  if pbs.is_terminal:
    return pbs.expected_returns()[0]
  values = []
  for numerators in itertools.product(range(grid + 1), repeat=pbs.rules.deck_size):
    policy = [F(k, grid) for k in numerators]
    value = F(0)
    for action, p in enumerate(pbs.action_probabilities(policy)):
      if p:
        value += p * brute_force_value(pbs.update(policy, action)[0], grid)
    values.append(value)
  return max(values) if pbs.current_player == 0 else min(values)


def test_any_pbs_matches_brute_force():
  # Arbitrary PBSs (from reach probabilities, floats included) at every decision history.
  rules, grid = KuhnRules(ante=2.0), 2
  solver = PbsMinimax(rules, grid)
  rng = random.Random(0)
  for history in rules.decision_histories()[1:]:  # The root is covered by expectiminimax.
    for _ in range(3):
      reaches = [[rng.choice([0, 0.25, 0.5, 1.0, 0.1]) + 0.05 for _ in range(3)]
                 for _ in range(2)]
      pbs = PublicBeliefState.from_reaches(rules, history, *reaches)
      assert solver.value(pbs) == brute_force_value(pbs, grid)
  terminal = PublicBeliefState(rules, "pbb", (F(1, 6),) * 6)
  assert solver.solve(terminal) == (terminal.expected_returns()[0], -1)


def test_best_announcements_achieve_the_value():
  # Playing the solver's announcements for both players reproduces its value exactly.
  for game in [_load(grid=3), _load(grid=4), _load(simplified=True, grid=5, ante=2.0)]:
    solver = PbsMinimax.from_game(game)

    def play(pbs, solver=solver, grid=game.grid):
      if pbs.is_terminal:
        return pbs.expected_returns()[0]
      numerators = referee.decode_announcement(solver.best_announcement(pbs), grid,
                                               pbs.rules.deck_size)
      policy = [F(k, grid) for k in numerators]
      return sum((p * play(pbs.update(policy, a)[0])
                  for a, p in enumerate(pbs.action_probabilities(policy)) if p), F(0))

    root = PublicBeliefState.initial(game.rules)
    assert play(root) == solver.value(root)


def grid_restricted_bounds(rules, grid):
  """max_x min_y and min_y max_x of u_0 over pure grid strategies of the base game.

  A pure grid strategy gives each of a player's information sets (card, history) a probability
  k / grid of the aggressive action; u_0(x, y) = sum_d chance(d) sum_z u_0(z, d) reach_0 reach_1.
  """
  n = rules.deck_size
  own = [[h for h in rules.decision_histories() if len(h) % 2 == i] for i in (0, 1)]
  cells = [(z, d) for z in sorted(rules.terminal_histories) for d in rules.deals()]
  levels = [k / grid for k in range(grid + 1)]

  def reach(player, strategy, history, card):
    p = 1.0
    for t, char in enumerate(history):
      if t % 2 == player:
        q = strategy[own[player].index(history[:t]) * n + card]
        p *= q if char == "b" else 1 - q
    return p

  pure = [list(itertools.product(levels, repeat=n * len(own[i]))) for i in (0, 1)]
  x = np.array([[reach(0, s, z, d[0]) * rules.returns(z, d)[0] for z, d in cells]
                for s in pure[0]])
  y = np.array([[reach(1, s, z, d[1]) for z, d in cells] for s in pure[1]])
  payoff = x @ y.T * float(rules.deal_probability())
  return payoff.min(axis=1).max(), payoff.max(axis=0).min()


@pytest.mark.parametrize("simplified, ante, grid", [
    (False, 1, 2), (False, 1, 3), (True, 1, 2), (True, 1, 4), (True, 2, 3), (True, 2, 4)])
def test_value_lies_between_grid_restricted_max_min_and_min_max(simplified, ante, grid):
  # Player 0 can commit to its max-min grid strategy in the referee game and player 1 to its
  # min-max one, so lower <= value <= upper. In the simplified game player 0 decides once,
  # before player 1, so the value is exactly the max-min.
  rules = KuhnRules(ante=float(ante), simplified=simplified)
  lower, upper = grid_restricted_bounds(rules, grid)
  value = float(PbsMinimax(rules, grid).value(PublicBeliefState.initial(rules)))
  assert lower - 1e-12 <= value <= upper + 1e-12
  if simplified:
    assert value == pytest.approx(lower, abs=1e-12)
  if not simplified and grid == 3:  # The grid holds an equilibrium: both bounds are -1/18.
    assert (lower, upper) == pytest.approx((-1 / 18, -1 / 18), abs=1e-12)


# Grid 6, a finer grid holding 1/3, is slow (1.7 s): a grid holding 1/3 keeps the value quick on
# grid 3 (test_value_equals_base_game_value_when_grid_contains_an_equilibrium) and in the
# simplified game's grid 6 below.
@pytest.mark.parametrize("grid", [1, 2, 4, pytest.param(6, marks=pytest.mark.slow)])
def test_grids_missing_the_equilibrium_move_the_value(grid):
  # Standard rules: player 0 can open by checking every card (alpha = 0, on every grid) and
  # answers player 1's announcement at "pb". Against that opening, player 0 calls with Q iff
  # player 1 bluffs J with y > 1/3 (call - fold is proportional to 3y - 1), and player 1's loss
  # is minimised only at y = 1/3 (Kuhn 1950). So the value is >= -1/18, strictly when the grid
  # lacks 1/3 (grid not a multiple of 3).
  value = root_value(_load(grid=grid))
  assert value > F(-1, 18) if grid % 3 else value == F(-1, 18)


def test_simplified_grids_missing_the_equilibrium_move_the_value():
  # Simplified rules: the value is player 0's max-min over the grid
  # (test_value_lies_between_grid_restricted_max_min_and_min_max), and player 0's max-min
  # strategy, bluffing J with 1/3, is unique; off the thirds player 0 gets less.
  for grid in (2, 4, 5, 6):
    value = root_value(_load(simplified=True, grid=grid))
    assert value < F(1, 18) if grid % 3 else value == F(1, 18)


@pytest.mark.parametrize("ante", [1, 2])
def test_simplified_values_on_every_grid_match_the_restricted_closed_form(ante):
  # With K betting and Q passing, player 0's payoff over the six deals is
  # (1/6)[p2 (1 - p1 - 2S p1) - p1 + 2S p1] (S = ante, bet 1; p1 = J bluff, p2 = Q call: the
  # payoff behind the indifference conditions of algorithms/exact/kuhn_equilibria.py's docstring),
  # linear in player 1's call p2, so player 1 answers p2 in {0, 1}:
  # min = (1/6) min(p1 (2S - 1), 1 - 2 p1). Player 0 then picks the best bluff p1 = k / grid.
  s = F(ante)
  for grid in range(1, 7):
    expected = max(min(F(k, grid) * (2 * s - 1), 1 - F(2 * k, grid)) for k in range(grid + 1)) / 6
    assert root_value(_load(simplified=True, ante=float(ante), grid=grid)) == expected


def test_python_integer_path_is_exact():
  # ante = bet = 0.1 has binary denominators 2^55: T exceeds int64 and the solver uses Python
  # integers. Payoffs scale with (ante, bet), so the value is exactly Fraction(0.1) * (-1/18).
  rules = KuhnRules(ante=0.1, bet=0.1)
  assert PbsMinimax(rules, 3).value(PublicBeliefState.initial(rules)) == F(0.1) * F(-1, 18)


def test_command_line_prints_the_exact_value(capsys):
  assert pbs_minimax.main(["kuhn_poker_referee(grid=3)",
                           "kuhn_poker_referee(simplified=True,ante=2.0,grid=5)"]) == 0
  lines = capsys.readouterr().out.splitlines()
  # Kuhn 1950 (-1/18) and the simplified closed form at ante 2 (1/10): both grids hold them.
  assert [line.split(": value ")[1].split(" =")[0] for line in lines] == ["-1/18", "1/10"]
  assert pbs_minimax.main(["kuhn_poker"]) == 2
  assert pbs_minimax.main(["kuhn_poker_referee(grid=0)"]) == 2
  assert capsys.readouterr().err.splitlines() == [
      "error: 'kuhn_poker' is not a kuhn_poker_referee game",
      "error: cannot load 'kuhn_poker_referee(grid=0)': kuhn_poker_referee: parameter 'grid' "
      "must be an integer >= 1, got 0"]


def test_errors():
  with pytest.raises(ValueError, match="grid must be an integer >= 1"):
    PbsMinimax(KuhnRules(), 0)
  with pytest.raises(ValueError, match="grid must be an integer >= 1, got 2.5"):
    PbsMinimax(KuhnRules(), 2.5)
  with pytest.raises(ValueError, match="differ from the solver's"):
    PbsMinimax(KuhnRules(), 3).value(PublicBeliefState.initial(KuhnRules(ante=2.0)))
