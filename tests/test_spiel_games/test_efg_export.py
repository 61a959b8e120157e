"""``spiel_games.efg_export``: Gambit .efg files with exact rationals, read back by OpenSpiel.

References: the chance probabilities and payoffs in the file are parsed here as Fractions and
compared with the exact values of Kuhn's rules (``spiel_games.kuhn_rules``: deal probabilities
1/n and 1/(n-1), chip returns); the file is loaded back with OpenSpiel's C++ ``efg_game`` parser
and walked in lockstep with our game; with Gambit's own Python package (``pygambit``, the
optional ``gambit`` extra) the equilibrium value of Kuhn poker is -1/18 (Kuhn 1950).
"""

import fractions
import math
import re
import subprocess
import sys

from open_spiel.python import policy as policy_lib
import pyspiel
import pytest

from algorithms.exact import kuhn_equilibria
from spiel_games import efg_export
from spiel_games.kuhn_rules import KuhnRules

Fraction = fractions.Fraction
NUMBER = r"-?\d+(?:/\d+)?"


@pytest.mark.parametrize("x, expected", [
    (1 / 3, Fraction(1, 3)), (5 / 18, Fraction(5, 18)), (1.5, Fraction(3, 2)),
    (0.1, Fraction(1, 10)), (-2.0, Fraction(-2)), (1 / 13, Fraction(1, 13)),
    (-1 / 18, Fraction(-1, 18)), (0.0, Fraction(0)), (2.0**-60, Fraction(1, 2**60))])
def test_exact_rational_is_the_simple_fraction_the_float_rounds(x, expected):
  assert efg_export.exact_rational(x) == expected
  assert float(efg_export.exact_rational(x)) == x


def test_exact_rational_round_trips_any_float():
  for x in (math.pi, 1e-300, 123456.789, -7 / 9999991):
    assert float(efg_export.exact_rational(x)) == x


def test_exact_rational_refuses_non_finite_numbers():
  with pytest.raises(ValueError, match="cannot write nan"):
    efg_export.exact_rational(math.nan)


def test_numbers_beyond_openspiels_32_bit_parser_are_written_as_decimals():
  assert efg_export.format_number(Fraction(-5, 18)) == "-5/18"
  assert efg_export.format_number(Fraction(7)) == "7"
  tiny = Fraction(1, 2**60)
  assert efg_export.format_number(tiny) == repr(float(tiny))


def export_cli(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "spiel_games.efg_export", *args],
                        capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(deck_size=13)",
                                         "kuhn_poker_ante(ante=1.5,bet=0.5)",
                                         "kuhn_poker_ante(ante=2.0,simplified=True)"])
def test_file_holds_kuhns_exact_probabilities_and_payoffs(tmp_path, game_string):
  path = tmp_path / "game.efg"
  done = export_cli(game_string, str(path))
  assert done.returncode == 0, done.stderr
  game = pyspiel.load_game(game_string)
  rules: KuhnRules = game.rules
  text = path.read_text()
  assert text == efg_export.export_efg(game).text
  assert text.startswith(f'EFG 2 R "{game}" {{ "Player 1" "Player 2" }}\n')
  chance = re.findall(r'^ *c "([^"]*)" \d+ "" \{ (.*) \} 0$', text, re.M)
  terminals = re.findall(r'^ *t "([^"]*)" \d+ "" \{ (.*) \}$', text, re.M)
  n = rules.deck_size
  assert len(chance) == 1 + n and len(terminals) == n * (n - 1) * len(rules.terminal_histories)
  for name, cells in chance:
    probabilities = [Fraction(p) for p in re.findall(rf'"Deal:\d+" ({NUMBER})', cells)]
    dealt = len(name.split()) if name else 0
    assert probabilities == [Fraction(1, n - dealt)] * (n - dealt)
  for name, cells in terminals:
    card_0, card_1, history = name.split()
    payoffs = [Fraction(p) for p in re.fullmatch(rf"({NUMBER}), ({NUMBER})", cells).groups()]
    expected = rules.returns(history, (int(card_0), int(card_1)))
    assert payoffs == [Fraction(expected[0]), Fraction(expected[1])]  # Exact.


def walk_in_lockstep(game, twin, label):
  """Yields (our state, twin state) pairs, matching actions by their .efg labels."""
  stack = [(game.new_initial_state(), twin.new_initial_state())]
  while stack:
    ours, theirs = stack.pop()
    yield ours, theirs
    if ours.is_terminal():
      continue
    player = ours.current_player()
    by_label = {theirs.action_to_string(player, b): b for b in theirs.legal_actions()}
    assert len(by_label) == len(ours.legal_actions())
    for action in ours.legal_actions():
      stack.append((ours.child(action), theirs.child(by_label[label(ours, action)])))


@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(deck_size=4,bet=2.0)",
                                         "kuhn_poker_referee(grid=1,ante=2.0)", "leduc_poker"])
def test_file_loads_back_in_openspiel_as_the_same_game(tmp_path, game_string):
  path = tmp_path / "game.efg"
  game = pyspiel.load_game(game_string)
  export = efg_export.write_efg(game, str(path))
  loaded = pyspiel.load_game(f"efg_game(filename={path})")
  nodes = 0
  for ours, theirs in walk_in_lockstep(game, loaded, export.label):
    nodes += 1
    assert ours.is_terminal() == theirs.is_terminal()
    if ours.is_terminal():
      assert list(theirs.returns()) == list(ours.returns())
    elif ours.is_chance_node():
      assert sorted(p for _, p in theirs.chance_outcomes()) == sorted(
          p for _, p in ours.chance_outcomes())
    else:
      assert theirs.current_player() == ours.current_player()
  assert nodes == export.num_nodes
  assert len(policy_lib.TabularPolicy(loaded).state_lookup) == len(
      policy_lib.TabularPolicy(game).state_lookup)


def test_referee_numbers_are_rationals():
  """The referee game's chance probabilities and expected payoffs are rationals (exact
  Fractions inside the game), so every number in its file is written p/q."""
  text = efg_export.export_efg(pyspiel.load_game("kuhn_poker_referee(grid=1)")).text
  values = []
  for line in text.splitlines()[2:]:
    braces = line.split("{", 1)[1].rsplit("}", 1)[0]
    values += re.sub(r'"[^"]*"', " ", braces).replace(",", " ").split()
  assert values and all(re.fullmatch(NUMBER, v) for v in values)
  assert {"1/3", "2/3", "1/2"} <= set(values)


@pytest.mark.parametrize("args, message", [
    (["no_such_game", "out.efg"], "cannot load game 'no_such_game'"),
    (["kuhn_poker_ante", "out.efg", "--max-nodes", "10"], "more than 10 nodes"),
    (["kuhn_poker_ante", "missing_folder/out.efg"], "cannot write missing_folder/out.efg"),
])
def test_cli_errors_are_one_line_and_leave_files_alone(tmp_path, args, message):
  previous = tmp_path / "out.efg"
  previous.write_text("old content")
  done = subprocess.run([sys.executable, "-m", "spiel_games.efg_export", *args],
                        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path)
  assert done.returncode == 2
  assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
  assert message in done.stderr
  assert previous.read_text() == "old content"
  assert sorted(p.name for p in tmp_path.iterdir()) == ["out.efg"]  # No temporary file left.


@pytest.mark.parametrize("ante, bet", [(1.0, 1.0), (2.0, 1.0), (1.0, 2.0)])
def test_gambit_solves_the_exported_game_to_kuhns_value(tmp_path, ante, bet):
  """Independent check with Gambit's own reader and LP solver (``pip install .[gambit]``)."""
  gbt = pytest.importorskip("pygambit", reason="pygambit not installed (optional extra "
                            "'gambit'); Gambit's independent check skipped")
  game_string = f"kuhn_poker_ante(ante={ante},bet={bet})"
  path = tmp_path / "kuhn.efg"
  efg_export.write_efg(pyspiel.load_game(game_string), str(path))
  gambit_game = gbt.read_efg(str(path))
  result = gbt.nash.lp_solve(gambit_game, rational=True)
  value = result.equilibria[0].payoff(gambit_game.players["Player 1"])
  assert Fraction(str(value)) == kuhn_equilibria.kuhn_equilibrium(ante, bet, False).value
