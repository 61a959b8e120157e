"""``python -m spiel_games.run MODULE ARGS...`` runs OpenSpiel's example scripts on our games.

Each test runs the real command in a subprocess and checks the numbers the script prints against
values computed here independently: playthroughs against ``generate_playthrough`` and the golden
files, exploitabilities against brute force over pure strategies (``tests/helpers.py``) or C++ on
the game's twin, a three-player run against the same script on OpenSpiel's own ``kuhn_poker``.
The game-size note is checked against walks of the whole tree.
"""

import re
import subprocess
import sys
from typing import Optional

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import generate_playthrough
import pyspiel
import pytest

import helpers
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games import cpp_twin
from spiel_games import game_size
from spiel_games import playthroughs
from spiel_games import run as run_module

PLAYTHROUGHS = playthroughs.DEFAULT_FOLDER
EXAMPLES = "open_spiel.python.examples"


def run(*args: str, cwd: Optional[str] = None) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "spiel_games.run", *args], capture_output=True,
                        text=True, timeout=300, check=False, cwd=cwd)


def walk(game: pyspiel.Game) -> int:
  """Number of states of ``game``, by visiting every one."""
  count, stack = 0, [game.new_initial_state()]
  while stack:
    state = stack.pop()
    count += 1
    if not state.is_terminal():
      actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                 else state.legal_actions())
      stack.extend(state.child(a) for a in actions)
  return count


def uniform_exploitability(game_string: str) -> float:
  game = pyspiel.load_game(game_string)
  return helpers.exploitability(game, policy_lib.TabularPolicy(game))


def test_playthrough_example_writes_the_golden_playthrough(tmp_path):
  out = tmp_path / "playthrough.txt"
  done = run(f"{EXAMPLES}.playthrough", "--game", "kuhn_poker_ante", "--actions", "2,0,0,1,1",
             "--output_file", str(out))
  assert done.returncode == 0, done.stderr
  text = out.read_text()
  assert text == generate_playthrough.playthrough("kuhn_poker_ante", [2, 0, 0, 1, 1])
  assert text == (PLAYTHROUGHS / "kuhn_poker_ante.txt").read_text()


# Slow (a subprocess, about 1 s): the same script runs quick on the default game above, a game
# string with parameters through the scripts in test_cfr_example_on_a_game_string_with_parameters,
# and this golden playthrough is checked in test_playthroughs.py.
@pytest.mark.slow
def test_playthrough_example_on_a_variant_with_parameters(tmp_path):
  out = tmp_path / "playthrough.txt"
  game = "kuhn_poker_ante(deck_size=4)"
  done = run(f"{EXAMPLES}.playthrough", f"--game={game}", "--actions", "3,1,0,1,0",
             f"--output_file={out}")
  assert done.returncode == 0, done.stderr
  assert out.read_text() == (PLAYTHROUGHS / "kuhn_poker_ante_deck4.txt").read_text()


# Each case is a subprocess (about 0.5 s); the quick subset keeps the game string with parameters.
@pytest.mark.parametrize("game", [pytest.param("kuhn_poker_ante", marks=pytest.mark.slow),
                                  "kuhn_poker_ante(ante=2.0,bet=1.0)",
                                  pytest.param("kuhn_poker_ante(simplified=True)",
                                               marks=pytest.mark.slow)])
def test_uniform_policy_exploitability_example(game):
  done = run(f"{EXAMPLES}.uniform_policy_exploitability", f"--game={game}")
  assert done.returncode == 0, done.stderr
  printed = float(re.fullmatch(r"Exploitability: (\S+)\n", done.stdout).group(1))
  # Standard Kuhn: 11/24 (Kuhn 1950's game; the uniform policy's NashConv is 11/12).
  assert printed == pytest.approx(uniform_exploitability(game), abs=1e-12)
  assert done.stderr == ""  # A small game: no size note.


def test_discounted_cfr_example_starts_from_the_uniform_policy():
  """After one iteration every CFR variant's average policy is its first, uniform, policy."""
  game = "kuhn_poker_ante(ante=2.0)"
  done = run(f"{EXAMPLES}.discounted_cfr", f"--game={game}", "--iterations=21",
             "--print_freq=10")
  assert done.returncode == 0, done.stderr
  rows = re.findall(r"Iteration (\d+) exploitability (\S+)", done.stdout)
  assert [int(i) for i, _ in rows] == [0, 10, 20]
  values = [float(v) for _, v in rows]
  assert values[0] == pytest.approx(uniform_exploitability(game), abs=1e-12)
  assert values[0] > values[1] > values[2] > 0


def test_cfr_example_on_kuhn_poker_ante():
  """OpenSpiel's cfr_example loads ``game`` with ``{"players": N}``, so it needs the parameter."""
  game = pyspiel.load_game("kuhn_poker_ante")
  done = run(f"{EXAMPLES}.cfr_example", "--game=kuhn_poker_ante", "--iterations=21",
             "--print_freq=10")
  assert done.returncode == 0, done.stderr
  rows = re.findall(r"Iteration (\d+) exploitability (\S+)", done.stdout)
  assert [int(i) for i, _ in rows] == [0, 10, 20]
  assert float(rows[0][1]) == pytest.approx(uniform_exploitability("kuhn_poker_ante"), abs=1e-12)
  # C++ CFR on the game's C++ twin is an independent implementation taking the same steps.
  twin = cpp_twin.CppTwin(game)
  solver = pyspiel.CFRSolver(twin.twin)
  for iteration in range(21):
    solver.evaluate_and_update_policy()
    if iteration in (10, 20):
      expected = pyspiel.nash_conv(twin.twin, solver.tabular_average_policy()) / 2
      assert float(rows[iteration // 10][1]) == pytest.approx(expected, abs=1e-12)


def test_module_exit_status_is_passed_on():
  done = run(f"{EXAMPLES}.uniform_policy_exploitability", "--game=no_such_game")
  assert done.returncode == 1
  assert "Unknown game 'no_such_game'" in done.stderr + done.stdout


@pytest.mark.parametrize("module", ["no_such_module", "open_spiel.python.no_such_example",
                                    "open_spiel"])
def test_bad_module_is_one_error_line_and_status_2(module):
  done = run(module, "--game=kuhn_poker_ante")
  assert done.returncode == 2
  assert done.stdout == ""
  assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
  assert repr(module) in done.stderr


def test_no_module_prints_usage_and_status_2():
  done = run()
  assert done.returncode == 2
  assert done.stdout.startswith("usage: python -m spiel_games.run MODULE [ARGS...]")


# Game strings with parameters in the scripts that also pass a parameter dictionary.


@pytest.fixture(scope="module")
def openspiel_three_player_mccfr(tmp_path_factory):
  """OpenSpiel's mccfr_cpp_example on its own kuhn_poker(players=3), run without spiel_games."""
  folder = tmp_path_factory.mktemp("openspiel")
  done = subprocess.run([sys.executable, "-m", f"{EXAMPLES}.mccfr_cpp_example", "--game=kuhn_poker",
                         "--players=3", "--iterations=6"], capture_output=True, text=True,
                        timeout=300, check=False, cwd=folder)
  assert done.returncode == 0, done.stderr
  return done.stdout, sorted(p.name for p in folder.iterdir())


# "same value" is slow (a third subprocess, 1.5-2.5 s): the same merge of --players into the
# game string is checked quick in test_merge_parameters.
@pytest.mark.parametrize("players_flag",
                         [[], pytest.param(["--players=3"], marks=pytest.mark.slow)],
                         ids=["default", "same value"])
def test_mccfr_cpp_example_on_three_player_string_prints_cpp_kuhn_poker_numbers(
    tmp_path, openspiel_three_player_mccfr, players_flag):
  """The script calls ``load_game(FLAGS.game, {"players": FLAGS.players})`` with --players
  defaulting to 2; kuhn_poker_ante(players=3) is kuhn_poker(players=3) state for state, and the
  C++ external-sampling MCCFR draws from a fixed seed, so every printed number must agree."""
  expected, openspiel_files = openspiel_three_player_mccfr
  done = run(f"{EXAMPLES}.mccfr_cpp_example", "--game=kuhn_poker_ante(players=3)",
             "--iterations=6", *players_flag, cwd=str(tmp_path))
  assert done.returncode == 0, done.stderr
  assert done.stdout == expected
  assert len(re.findall(r"Iteration \d nashconv: \S+ exploitability: \S+", expected)) == 6
  # Run directly, the script leaves its solver in the working directory; under
  # spiel_games.run it works in a temporary one.
  assert openspiel_files == ["external_sampling_mccfr_solver.pickle"]
  assert list(tmp_path.iterdir()) == []


# The referee game is slow (4 s, against 0.5 s for ante=2.0): the same script on a game string
# with parameters runs quick on ante=2.0, and a referee game through a script in
# test_size_note_for_the_default_referee_game.
@pytest.mark.parametrize("game", ["kuhn_poker_ante(ante=2.0)",
                                  pytest.param("kuhn_poker_referee(grid=1)",
                                               marks=pytest.mark.slow)])
def test_cfr_example_on_a_game_string_with_parameters(game):
  """cfr_example's first line is the exploitability of the uniform policy (its first average)."""
  done = run(f"{EXAMPLES}.cfr_example", f"--game={game}", "--iterations=1")
  assert done.returncode == 0, done.stderr
  printed = float(re.fullmatch(r"Iteration 0 exploitability (\S+)\n", done.stdout).group(1))
  twin = cpp_twin.CppTwin(pyspiel.load_game(game)).twin  # The same game in C++.
  expected = pyspiel.exploitability(twin, pyspiel.UniformRandomPolicy(twin))
  assert printed == pytest.approx(expected, abs=1e-12)
  assert expected > 0.1  # 23/48 for the referee game, 5/6 for ante 2 (not a trivial zero).


def test_conflicting_parameter_is_one_error_line_and_status_2():
  done = run(f"{EXAMPLES}.mccfr_example", "--game=kuhn_poker_ante(players=3)", "--players=2")
  assert done.returncode == 2
  assert done.stdout == ""
  assert done.stderr == ("error: game 'kuhn_poker_ante(players=3)' sets players=3, but the "
                         "script also loads it with --players=2; give players once, or the same "
                         "value (3) in both\n")


def test_merge_parameters():
  merge = run_module.merge_parameters
  assert merge("kuhn_poker_ante(ante=2.0)", {"players": 3}) == (
      "kuhn_poker_ante", {"ante": 2.0, "players": 3})
  assert merge("kuhn_poker_ante(players=3)", {"players": 3}) == ("kuhn_poker_ante", {"players": 3})
  assert merge("kuhn_poker_ante(players=3)", {"players": 2}, lambda key, value: True) == (
      "kuhn_poker_ante", {"players": 3})  # A flag left at its default gives way to the string.
  assert merge("turn_based_simultaneous_game(game=goofspiel(num_cards=3))", {}) == (
      "turn_based_simultaneous_game", {"game": {"name": "goofspiel", "num_cards": 3}})
  with pytest.raises(run_module.ParameterConflict, match="sets ante=2.0, .* ante=1.5"):
    merge("kuhn_poker_ante(ante=2.0)", {"ante": 1.5})


def test_merged_loader_is_restored_after_the_block():
  original = pyspiel.load_game
  with run_module.merged_game_parameters():
    game = pyspiel.load_game("kuhn_poker_ante(ante=2.0)", {"players": 3})
    assert str(game) == ("kuhn_poker_ante(ante=2.0,bet=1.0,deck_size=4,players=3,"
                         "simplified=False)")
  assert pyspiel.load_game is original
  with pytest.raises(pyspiel.SpielError, match="Unknown game 'kuhn_poker_ante"):
    pyspiel.load_game("kuhn_poker_ante(ante=2.0)", {"players": 3})  # OpenSpiel on its own.


# The game-size note.


@pytest.mark.parametrize("game", [
    # Four cards (2.6 s for the walk of its 9,981 states) slow: the referee game's count with
    # another deck is checked quick on grid=2,deck_size=2.
    "kuhn_poker_referee(grid=1)",
    pytest.param("kuhn_poker_referee(grid=1,deck_size=4)", marks=pytest.mark.slow),
    "kuhn_poker_referee(grid=2,simplified=True)", "kuhn_poker_referee(grid=2,deck_size=2)",
    "kuhn_poker_ante", "kuhn_poker_ante(players=3)",
    "kuhn_poker_ante(deck_size=5,simplified=True)"])
def test_state_counts_of_our_games_equal_a_walk_of_the_tree(game):
  loaded = pyspiel.load_game(game)
  assert game_size.exact_histories(loaded) == walk(loaded)
  assert game_size.count_histories(loaded, cap=1) == 2  # "More than 1", from the exact count.


def test_state_count_of_kuhn_poker_ante_equals_cpp_kuhn_poker():
  cpp = pyspiel.load_game("kuhn_poker(players=4)")
  assert game_size.exact_histories(cpp) is None  # A C++ game: walked.
  assert game_size.count_histories(cpp, cap=10**6) == 7886
  assert pyspiel.load_game("kuhn_poker_ante(players=4)").num_histories() == 7886
  assert game_size.count_histories(cpp, cap=100) == 101  # Stops past the cap.


def test_size_note_for_the_default_referee_game(tmp_path):
  """The note comes first, before the script runs (playthrough is quick even on this game)."""
  out = tmp_path / "playthrough.txt"
  done = run(f"{EXAMPLES}.playthrough", "--game=kuhn_poker_referee", f"--output_file={out}")
  assert done.returncode == 0, done.stderr
  # 741,251 states: a walk of the whole tree (100 s) gave the same number as the count.
  assert done.stderr == (
      "note: kuhn_poker_referee has 741,251 states; scripts that walk the whole game tree at "
      "every iteration (cfr_example, mccfr_example, uniform_policy_exploitability) need at least "
      "7.4 seconds a walk (10 microseconds a state; OpenSpiel's Python CFR spends more, and walks "
      "several times an iteration) and, where a script holds every state, at least 518.9 MB of "
      "memory; with grid=1 it has 1,151 states\n")
  assert out.read_text().startswith("game: kuhn_poker_referee\n")


def test_size_note_states_the_time_and_memory_of_a_walk():
  note = run_module.size_note(["--game", "kuhn_poker_ante(deck_size=100000)"])
  # 89,999,200,001 states x 10 us = 899,992 s = 10.4 days; x 700 bytes = 63.0 TB.
  assert "has 89,999,200,001 states; " in note
  assert "need at least 10.4 days a walk" in note and "at least 63.0 TB of memory" in note


def test_size_note_names_the_players_flag_and_walked_counts():
  note = run_module.size_note(["--game", "kuhn_poker_ante", "--players", "5"])
  count = pyspiel.load_game("kuhn_poker_ante(players=5)").num_histories()
  assert count == walk(pyspiel.load_game("kuhn_poker(players=5)"))  # C++, 116,437 states.
  assert note.startswith(f"note: kuhn_poker_ante with --players=5 has {count:,} states; ")


@pytest.mark.parametrize("args", [
    ["--game=kuhn_poker_referee(grid=1)"],  # 1,151 states.
    ["--game=leduc_poker"],  # 9,457 states, under the threshold of 10,000.
    ["--game=kuhn_poker_ante", "--players=4"],  # 7,886 states.
    ["--iterations=3"],  # No game named: the script's default.
    ["--game=no_such_game"], ["--game=kuhn_poker_ante(ante=2)"],  # The script reports these.
])
def test_no_size_note_for_small_or_unloadable_games(args):
  assert run_module.size_note(args) is None
