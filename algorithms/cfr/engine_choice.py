"""Which engine runs a game: the flat game tree or the range vectors of its card tree.

``engine="auto"`` takes the range vectors where the game has a card tree of at least
``AUTO_RANGE_MIN_CARDS`` cards; the flat tree (``cfr_engine``) elsewhere; ``"flat"`` and
``"range"`` force one (``"range"`` on a game without a card tree is an error naming the games
that have one). A game's card tree comes from the ``card_tree`` hook of its ``game_shortcuts``
entry and nowhere else: a ``CardTree`` (two players with one private card from an ordered deck,
e.g. Kuhn poker with any deck) or a ``CardTree3`` (three-player Kuhn poker, standard rules, any
ante, bet and deck), both run by ``range_engine.RangeEngine``. ``solver_backends``' docstring
says why a threshold.
"""

from typing import Optional

import pyspiel

from algorithms.tree import game_shortcuts
from algorithms.tree.card_tree3 import AnyCardTree
from algorithms.tree.game_tree import GameTree

ENGINES = ("auto", "flat", "range")
# The smallest deck on which ``engine="auto"`` takes the range vectors (module docstring).
AUTO_RANGE_MIN_CARDS = 13


def card_tree_of(game: pyspiel.Game) -> Optional[AnyCardTree]:
  """The game's card tree from its ``game_shortcuts`` entry, or None."""
  shortcuts = game_shortcuts.for_game(game)
  return None if shortcuts is None else shortcuts.card_tree(game)


def range_card_tree(game: pyspiel.Game, engine: str, tree: Optional[GameTree] = None
                    ) -> Optional[AnyCardTree]:
  """The game's card tree if ``engine`` (module docstring) runs range vectors on it, else None.

  A ``tree`` handed in asks for the flat engine (it is that engine's input). Under "auto" a game
  with fewer than ``AUTO_RANGE_MIN_CARDS`` chance outcomes runs on the flat tree without its card
  tree being built: a card tree deals one card of its deck per chance node, so its deck has at
  most ``game.max_chance_outcomes()`` cards.

  Raises:
    ValueError: unknown ``engine``, or ``"range"`` for a game without a card tree.
  """
  if engine not in ENGINES:
    raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
  if engine == "flat" or tree is not None and engine == "auto":
    return None
  if engine == "auto" and game.max_chance_outcomes() < AUTO_RANGE_MIN_CARDS:
    return None
  card_tree = None if tree is not None else card_tree_of(game)
  if engine == "range" and card_tree is None:
    raise ValueError(f"engine='range' needs a two-player game with one private card from an "
                     f"ordered deck (kuhn_poker, kuhn_poker_ante with two players) or three-player "
                     f"Kuhn poker (standard rules); the flat engine (engine='flat') runs any "
                     f"other; got {game}"
                     + (" with a flat tree handed in" if tree is not None else ""))
  if card_tree is not None and (engine == "range"
                                or card_tree.num_cards >= AUTO_RANGE_MIN_CARDS):
    return card_tree
  return None
