"""``python -m spiel_games.run MODULE ARGS...`` runs OpenSpiel's example scripts on our games.

Each test runs the real command in a subprocess and checks the numbers the script prints against
values computed here independently: playthroughs against ``generate_playthrough`` and the golden
files, exploitabilities against brute force over pure strategies (``tests/helpers.py``).
"""

import re
import subprocess
import sys

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import generate_playthrough
import pyspiel
import pytest

import helpers
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games import cpp_twin
from spiel_games import playthroughs

PLAYTHROUGHS = playthroughs.DEFAULT_FOLDER
EXAMPLES = "open_spiel.python.examples"


def run(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "spiel_games.run", *args], capture_output=True,
                        text=True, timeout=300, check=False)


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


def test_playthrough_example_on_a_variant_with_parameters(tmp_path):
  out = tmp_path / "playthrough.txt"
  game = "kuhn_poker_ante(deck_size=4)"
  done = run(f"{EXAMPLES}.playthrough", f"--game={game}", "--actions", "3,1,0,1,0",
             f"--output_file={out}")
  assert done.returncode == 0, done.stderr
  assert out.read_text() == (PLAYTHROUGHS / "kuhn_poker_ante_deck4.txt").read_text()


@pytest.mark.parametrize("game", ["kuhn_poker_ante", "kuhn_poker_ante(ante=2.0,bet=1.0)",
                                  "kuhn_poker_ante(simplified=True)"])
def test_uniform_policy_exploitability_example(game):
  done = run(f"{EXAMPLES}.uniform_policy_exploitability", f"--game={game}")
  assert done.returncode == 0, done.stderr
  printed = float(re.fullmatch(r"Exploitability: (\S+)\n", done.stdout).group(1))
  # Standard Kuhn: 11/24 (Kuhn 1950's game; the uniform policy's NashConv is 11/12).
  assert printed == pytest.approx(uniform_exploitability(game), abs=1e-12)


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
