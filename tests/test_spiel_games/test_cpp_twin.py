"""The C++ twin (``spiel_games.cpp_twin``) is the same game as ours, and policies cross both ways.

References: the lockstep walk compares every state's returns and chance probabilities exactly;
NashConv on our game comes from OpenSpiel's Python ``exploitability.nash_conv``, on the twin from
C++ ``pyspiel.nash_conv``; best-response values are checked against brute force over pure
strategies (``tests/helpers.py``); OpenSpiel's Python CFR on our game is an independent
implementation of the C++ CFR run on the twin.
"""

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.exact import kuhn_equilibria
from algorithms.exact import sequence_form_lp
import helpers
from spiel_games import cpp_twin

GAMES = ["kuhn_poker_ante", "kuhn_poker_ante(ante=2.5,bet=0.5)",
         "kuhn_poker_ante(ante=2.0,simplified=True)", "kuhn_poker_ante(deck_size=5)",
         "kuhn_poker_referee(grid=1)", "leduc_poker"]


@pytest.fixture(scope="module", params=GAMES)
def twin(request):
  return cpp_twin.CppTwin(pyspiel.load_game(request.param))


def random_policy(game: pyspiel.Game, seed: int) -> policy_lib.TabularPolicy:
  """A TabularPolicy with a Dirichlet(1) distribution over the legal actions of every row."""
  rng = np.random.default_rng(seed)
  table = policy_lib.TabularPolicy(game)
  for row, mask in enumerate(table.legal_actions_mask):
    legal = mask.nonzero()[0]
    table.action_probability_array[row] = 0.0
    table.action_probability_array[row, legal] = rng.dirichlet(np.ones(len(legal)))
  return table


def equilibrium(game: pyspiel.Game) -> policy_lib.TabularPolicy:
  return sequence_form_lp.solve_game(game).policy


def test_lockstep_walk_agrees_on_players_returns_and_chance(twin):
  count = 0
  for ours, theirs in twin.state_pairs():
    count += 1
    assert ours.is_terminal() == theirs.is_terminal()
    if ours.is_terminal():
      assert list(theirs.returns()) == list(ours.returns())  # Exactly: same doubles.
      continue
    assert theirs.current_player() == ours.current_player()
    assert len(theirs.legal_actions()) == len(ours.legal_actions())
    if ours.is_chance_node():
      mapped = {twin.twin_action(ours, a): p for a, p in ours.chance_outcomes()}
      assert dict(theirs.chance_outcomes()) == mapped
  assert count == twin.num_nodes
  game_type = twin.twin.get_type()
  assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
  assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


def test_information_states_correspond_one_to_one(twin):
  ours = policy_lib.TabularPolicy(twin.game)
  theirs = policy_lib.TabularPolicy(twin.twin)
  assert sorted(twin.information_states) == sorted(ours.state_lookup)
  assert sorted(twin.twin_key(k) for k in ours.state_lookup) == sorted(theirs.state_lookup)
  for key in ours.state_lookup:
    assert twin.our_key(twin.twin_key(key)) == key


def test_twin_labels_name_each_action_id_consistently(twin):
  """OpenSpiel's parser numbers labels globally but sorts ids per node without reordering the
  children; the export lists actions in the parser's order so that an id is one label."""
  names = {}
  for _, theirs in twin.state_pairs():
    if theirs.is_terminal():
      continue
    player = theirs.current_player()
    for action in theirs.legal_actions():
      name = theirs.action_to_string(player, action)
      assert names.setdefault((player == pyspiel.PlayerId.CHANCE, action), name) == name


def assert_nash_conv_agrees(twin: cpp_twin.CppTwin, which: str) -> None:
  """NashConv of one policy on our game (Python) and on the twin (C++), and the policy carried
  to the twin and back unchanged."""
  game = twin.game
  if which == "uniform":
    ours = policy_lib.TabularPolicy(game)
  elif which == "equilibrium":
    ours = equilibrium(game)
  else:
    ours = random_policy(game, int(which.split()[1]))
  theirs = twin.to_twin_policy(ours)
  python_value = exploitability.nash_conv(game, ours)
  cpp_value = pyspiel.nash_conv(twin.twin, policy_lib.python_policy_to_pyspiel_policy(theirs))
  assert cpp_value == pytest.approx(python_value, abs=1e-12)
  back = twin.from_twin_policy(theirs)
  np.testing.assert_array_equal(back.action_probability_array, ours.action_probability_array)


@pytest.mark.parametrize("which", ["equilibrium", "random 0"])
def test_nash_conv_of_the_same_policy_agrees(twin, which):
  assert_nash_conv_agrees(twin, which)


# On the referee game and Leduc each policy takes 0.7-1.7 s (OpenSpiel's Python NashConv): there
# the uniform policy and a second random one are slow; the test above checks the equilibrium and
# a random policy of full support (as the uniform one) on every game quick.
@pytest.mark.parametrize("twin", [
    pytest.param(game, marks=pytest.mark.slow) if game in ("kuhn_poker_referee(grid=1)",
                                                           "leduc_poker") else game
    for game in GAMES], indirect=True)
@pytest.mark.parametrize("which", ["uniform", "random 1"])
def test_nash_conv_of_more_policies_agrees(twin, which):
  assert_nash_conv_agrees(twin, which)


def test_uniform_nash_conv_of_three_card_kuhn_is_eleven_twelfths():
  """Brute force over pure strategies: NashConv(uniform) = 11/12 in Kuhn's game (ante 1)."""
  game = pyspiel.load_game("kuhn_poker_ante")
  twin = cpp_twin.CppTwin(game)
  uniform = policy_lib.TabularPolicy(twin.twin)
  expected = 2 * helpers.exploitability(game, policy_lib.TabularPolicy(game))
  assert expected == pytest.approx(11 / 12, abs=1e-12)
  assert pyspiel.nash_conv(twin.twin, policy_lib.python_policy_to_pyspiel_policy(uniform)) == (
      pytest.approx(expected, abs=1e-12))


@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(ante=2.0)",
                                         "kuhn_poker_ante(simplified=True)"])
def test_cpp_cfr_on_the_twin_equals_python_cfr_on_our_game(game_string):
  """Vanilla CFR (Zinkevich et al., NeurIPS 2007) with alternating updates is deterministic:
  OpenSpiel's Python CFR on our game and its C++ CFR on the twin take the same steps."""
  game = pyspiel.load_game(game_string)
  twin = cpp_twin.CppTwin(game)
  cpp_solver, python_solver = pyspiel.CFRSolver(twin.twin), cfr.CFRSolver(game)
  for _ in range(25):
    cpp_solver.evaluate_and_update_policy()
    python_solver.evaluate_and_update_policy()
  carried = twin.from_twin_policy(cpp_solver.tabular_average_policy())
  python_average = python_solver.average_policy()
  np.testing.assert_allclose(carried.action_probability_array,
                             python_average.action_probability_array, atol=1e-12)
  assert exploitability.nash_conv(game, carried) == pytest.approx(
      exploitability.nash_conv(game, python_average), abs=1e-12)


@pytest.mark.parametrize("solver_name", ["cfr", "external_sampling_mccfr", "cfr_br"])
def test_cpp_solvers_on_the_twin_carry_back_with_equal_values(solver_name):
  game = pyspiel.load_game("kuhn_poker_ante(ante=1.5,deck_size=4)")
  twin = cpp_twin.CppTwin(game)
  if solver_name == "cfr":
    solver, steps = pyspiel.CFRSolver(twin.twin), 50
  elif solver_name == "cfr_br":
    solver, steps = pyspiel.CFRBRSolver(twin.twin), 20
  else:
    solver, steps = pyspiel.ExternalSamplingMCCFRSolver(twin.twin, seed=7), 300
  for _ in range(steps):
    if solver_name == "external_sampling_mccfr":
      solver.run_iteration()
    else:
      solver.evaluate_and_update_policy()
  cpp_policy = solver.average_policy()
  ours = twin.from_twin_policy(cpp_policy)
  assert exploitability.nash_conv(game, ours) == pytest.approx(
      pyspiel.nash_conv(twin.twin, cpp_policy), abs=1e-12)
  value_ours = expected_game_score.policy_value(game.new_initial_state(), [ours, ours])
  value_twin = expected_game_score.policy_value(twin.twin.new_initial_state(),
                                                [twin.to_twin_policy(ours)] * 2)
  np.testing.assert_allclose(value_twin, value_ours, atol=1e-12)


@pytest.mark.parametrize("player", [0, 1])
def test_cpp_tabular_best_response_on_the_twin_equals_brute_force(player):
  game = pyspiel.load_game("kuhn_poker_ante(ante=2.0)")
  twin = cpp_twin.CppTwin(game)
  ours = random_policy(game, 3 + player)
  # Keep the C++ policy alive as long as the best response that refers to it.
  cpp_policy = policy_lib.python_policy_to_pyspiel_policy(twin.to_twin_policy(ours))
  best = pyspiel.TabularBestResponse(twin.twin, player, cpp_policy)
  cpp_value = best.value_from_state(twin.twin.new_initial_state())
  assert cpp_value == pytest.approx(helpers.best_response_value(game, ours, player),
                                    abs=1e-12)
  # The best response itself, carried back to our game, earns that value there.
  response = twin.from_twin_policy(best.get_best_response_policy())
  pair = [ours, ours]
  pair[player] = response
  assert expected_game_score.policy_value(game.new_initial_state(), pair)[player] == (
      pytest.approx(cpp_value, abs=1e-12))


def test_closed_form_equilibrium_has_zero_nash_conv_on_the_twin():
  """Kuhn's equilibrium family (value -1/18 for ante 1; algorithms.exact.kuhn_equilibria)."""
  game = pyspiel.load_game("kuhn_poker_ante")
  twin = cpp_twin.CppTwin(game)
  solution = kuhn_equilibria.kuhn_equilibrium(1.0, 1.0, False)
  theirs = twin.to_twin_policy(solution.policy(game))
  cpp_policy = policy_lib.python_policy_to_pyspiel_policy(theirs)
  assert pyspiel.nash_conv(twin.twin, cpp_policy) == pytest.approx(0.0, abs=1e-12)
  value = expected_game_score.policy_value(twin.twin.new_initial_state(), [theirs, theirs])[0]
  assert value == pytest.approx(-1 / 18, abs=1e-12)


def test_a_game_too_large_is_refused_with_the_limit_named():
  with pytest.raises(ValueError, match="more than 50 nodes"):
    cpp_twin.CppTwin(pyspiel.load_game("kuhn_poker_ante"), max_nodes=50)
