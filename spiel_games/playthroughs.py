"""Playthrough golden files of ``kuhn_poker_ante``, made with OpenSpiel's ``generate_playthrough``.

A playthrough records one hand of a game with every string, tensor, legal action and
return at every state, in OpenSpiel's own format; ``tests/test_spiel_games/test_playthroughs.py``
replays each file and fails when the game's behaviour changes. The files are package data of
``spiel_games`` (``spiel_games/golden_playthroughs``), so that an installed copy of the package,
editable or not, can check itself. After an intended change, regenerate them from a source
checkout with::

  python -m spiel_games.playthroughs            # rewrites spiel_games/golden_playthroughs/*.txt
  python -m spiel_games.playthroughs --check    # exit status 1 if any file is out of date

and review the difference with ``git diff spiel_games/golden_playthroughs``. Either command prints
one line per out-of-date file, or one line saying that all of them match.
"""

import argparse
import os
import pathlib
import sys
from typing import Dict, Optional, Sequence, Tuple

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

from spiel_games.atomic_file import atomic_write_text

# Importing this module runs spiel_games/__init__.py, which registers the games.

# File name -> (game string, actions: the deals, then the players' actions, 0 pass, 1 bet).
# Together the hands show a showdown after a call, folds of either player and a bluff; the
# three-player hand a bet after a check, a fold and a call.
GAMES: Dict[str, Tuple[str, Tuple[int, ...]]] = {
    "kuhn_poker_ante.txt": ("kuhn_poker_ante", (2, 0, 0, 1, 1)),
    "kuhn_poker_ante_ante2_bet1.txt": ("kuhn_poker_ante(ante=2.0,bet=1.0)", (0, 2, 1, 0)),
    "kuhn_poker_ante_simplified_ante1.txt": ("kuhn_poker_ante(ante=1.0,simplified=True)",
                                             (0, 1, 1, 1)),
    "kuhn_poker_ante_simplified_ante2.txt": ("kuhn_poker_ante(ante=2.0,simplified=True)",
                                             (2, 1, 1, 0)),
    "kuhn_poker_ante_deck4.txt": ("kuhn_poker_ante(deck_size=4)", (3, 1, 0, 1, 0)),
    "kuhn_poker_ante_players3.txt": ("kuhn_poker_ante(players=3)", (2, 0, 3, 0, 1, 0, 1)),
}
DEFAULT_FOLDER = pathlib.Path(__file__).resolve().parent / "golden_playthroughs"


def generate(name: str) -> str:
  """The playthrough text of the golden file ``name`` (a key of ``GAMES``)."""
  game_string, actions = GAMES[name]
  return generate_playthrough.playthrough(game_string, action_sequence=list(actions))


def replay(path: os.PathLike) -> Tuple[str, str]:
  """Replays the actions recorded in a golden file; returns (recorded text, regenerated text).

  Wraps ``generate_playthrough.replay``, which reads an absl flag, so flags are marked parsed
  (at their defaults) when the caller has not parsed them, as under pytest.
  """
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()
  return generate_playthrough.replay(str(path))


def out_of_date(folder: pathlib.Path) -> Dict[str, str]:
  """Golden files in ``folder`` that are missing or differ from a fresh generation.

  Returns:
    The fresh text of each such file, by name, in the order of ``GAMES``.
  """
  fresh = {name: generate(name) for name in GAMES}
  return {name: text for name, text in fresh.items()
          if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text}


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Rewrites the stale golden files, or with ``--check`` lists them; returns the exit status."""
  parser = argparse.ArgumentParser(prog="python -m spiel_games.playthroughs",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--folder", type=pathlib.Path, default=DEFAULT_FOLDER,
                      help=f"where the golden files live (default: {DEFAULT_FOLDER})")
  parser.add_argument("--check", action="store_true",
                      help="only report out-of-date files; exit status 1 if there are any")
  args = parser.parse_args(argv)
  if args.check and not args.folder.is_dir():
    print(f"error: --folder {args.folder} is not a directory", file=sys.stderr)
    return 2
  stale = out_of_date(args.folder)
  if args.check:
    for name in stale:
      print(f"out of date: {args.folder / name}")
    if not stale:
      print(f"{len(GAMES)} playthroughs in {args.folder} match the games")
    return 1 if stale else 0
  args.folder.mkdir(parents=True, exist_ok=True)
  for name, text in stale.items():
    atomic_write_text(args.folder / name, text)
    print(f"wrote {args.folder / name}")
  if not stale:
    print(f"{len(GAMES)} playthroughs in {args.folder} are up to date; nothing written")
  return 0


if __name__ == "__main__":
  sys.exit(main())
