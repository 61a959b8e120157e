"""Golden-file tests: the playthroughs in spiel_games/golden_playthroughs replay to the same text.

The files are OpenSpiel playthroughs (open_spiel/python/algorithms/generate_playthrough.py) made
by ``python -m spiel_games.playthroughs``; run it again after an intended change of the game.
"""

import pathlib

from open_spiel.python.algorithms import generate_playthrough
import pytest

import helpers
import spiel_games
from spiel_games import playthroughs

FOLDER = playthroughs.DEFAULT_FOLDER


def test_folder_holds_exactly_the_listed_playthroughs():
  assert sorted(p.name for p in FOLDER.iterdir()) == sorted(playthroughs.GAMES)


@pytest.mark.parametrize("name", sorted(playthroughs.GAMES))
def test_playthrough_replays_identically(name):
  recorded, replayed = playthroughs.replay(FOLDER / name)
  assert replayed == recorded, f"regenerate with: python -m spiel_games.playthroughs ({name})"
  assert recorded.startswith(f"game: {playthroughs.GAMES[name][0]}\n")


def test_golden_files_are_package_data_of_spiel_games():
  """The default folder is inside the package and pyproject.toml ships its files, so that
  ``python -m spiel_games.playthroughs --check`` works in a non-editable install."""
  tomllib = pytest.importorskip("tomllib")  # Python >= 3.11.
  package = pathlib.Path(spiel_games.__file__).resolve().parent
  assert FOLDER.parent == package
  pyproject_path = helpers.REPO / "pyproject.toml"
  pyproject = tomllib.loads(pyproject_path.read_text(encoding="utf-8"))
  patterns = pyproject["tool"]["setuptools"]["package-data"]["spiel_games"]
  for path in FOLDER.iterdir():
    assert any(path.relative_to(package).match(pattern) for pattern in patterns), path


@pytest.mark.parametrize("name,cpp_game", [("kuhn_poker_ante.txt", "kuhn_poker"),
                                           ("kuhn_poker_ante_players3.txt",
                                            "kuhn_poker(players=3)")])
def test_default_playthroughs_are_cpp_kuhn_poker_apart_from_the_game_description(name, cpp_game):
  """Every state line (strings, tensors, actions, returns) equals C++ kuhn_poker's."""
  _, actions = playthroughs.GAMES[name]
  cpp = generate_playthrough.playthrough(cpp_game, list(actions)).splitlines()
  ours = (FOLDER / name).read_text(encoding="utf-8").splitlines()
  assert len(ours) == len(cpp)
  describe_game = ("game:", "GameType.long_name", "GameType.parameter_specification",
                   "GameType.short_name", "GetParameters()", "ToString()")
  differing = [(a, b) for a, b in zip(ours, cpp) if a != b]
  assert [a.split(" ")[0] for a, _ in differing] == [d.split(" ")[0] for d in describe_game]
  assert len(ours) > 100  # The hand has 6 states, each described in many lines.


def test_check_mode_reports_no_stale_file(capsys):
  assert playthroughs.main(["--check", "--folder", str(FOLDER)]) == 0
  # One line on success, with the number of golden files (six since the three-player hand).
  assert capsys.readouterr().out == f"6 playthroughs in {FOLDER} match the games\n"


def test_check_mode_reports_a_changed_file(tmp_path, capsys):
  for name in playthroughs.GAMES:
    (tmp_path / name).write_text((FOLDER / name).read_text(encoding="utf-8"), encoding="utf-8")
  changed = tmp_path / "kuhn_poker_ante.txt"
  changed.write_text(changed.read_text(encoding="utf-8").replace("Returns() = [2, -2]",
                                                                 "Returns() = [-2, 2]"))
  assert list(playthroughs.out_of_date(tmp_path)) == ["kuhn_poker_ante.txt"]
  assert playthroughs.main(["--check", "--folder", str(tmp_path)]) == 1
  assert capsys.readouterr().out == f"out of date: {changed}\n"  # No success line.
  assert playthroughs.main(["--folder", str(tmp_path)]) == 0  # Regenerates it.
  assert capsys.readouterr().out == f"wrote {changed}\n"
  assert changed.read_text(encoding="utf-8") == (FOLDER / "kuhn_poker_ante.txt").read_text(
      encoding="utf-8")
  assert not list(tmp_path.glob(".*.tmp"))
  assert playthroughs.main(["--folder", str(tmp_path)]) == 0  # Nothing left to write.
  assert capsys.readouterr().out == (f"6 playthroughs in {tmp_path} are up to date; "
                                     "nothing written\n")


def test_check_mode_refuses_a_missing_folder(tmp_path, capsys):
  assert playthroughs.main(["--check", "--folder", str(tmp_path / "missing")]) == 2
  assert capsys.readouterr().err.startswith("error: --folder ")
