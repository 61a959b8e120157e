"""Kuhn poker variants as OpenSpiel (pyspiel) Python games.

Importing this package registers every game with pyspiel, so that
``pyspiel.load_game("kuhn_poker_ante(ante=2.0)")`` works.
"""

from spiel_games import kuhn_poker_ante  # noqa: F401  (registers the game)
from spiel_games import kuhn_poker_referee  # noqa: F401  (registers the game)
