"""The one seam for game-specific shortcuts: a registry keyed by a game's short name.

Generic code (``game_tree.GameTree.from_game``, ``algorithms.cfr.batched_solver``,
``algorithms.rebel.public_tree``) works on any OpenSpiel game through its state API. A game whose
structure allows more (a tree generated from its rules instead of walked, the payoffs of a variant
without its tree, its leaf beliefs as the game's own public-belief-state type) says so by
registering a ``GameShortcuts`` under its short name; the generic code asks
``for_game(game)`` and never tests for a game itself. A new game adds an entry (by calling
``register`` from its own module, which ``algorithms/tree/__init__.py`` imports), never an ``if``
in generic code.

Kuhn poker's entry (``kuhn_poker`` and ``kuhn_poker_ante``) is registered by ``kuhn_tree``, which
the package ``algorithms.tree`` imports, so it is in place whenever a tree can be built.
"""

import dataclasses
from typing import Callable, Dict, Hashable, Optional, Protocol

import numpy as np
import pyspiel

from algorithms.tree.card_tree3 import AnyCardTree


class PublicBeliefs(Protocol):
  """A game's own view of a belief over the roots of a public state (one private deal each)."""

  def belief_state(self, public_state: str, deals: np.ndarray, belief: np.ndarray) -> object:
    """The belief (weights ``belief`` over ``deals``, indices in the game's list of private deals,
    ``public_tree.LeafSubgame.deals``) as the game's belief-state object."""


@dataclasses.dataclass(frozen=True)
class GameShortcuts:
  """What a registered game offers beyond OpenSpiel's state API.

  Attributes:
    tree_fields: ``(game, max_nodes) -> fields`` of ``GameTree`` built without walking the
      states, equal to the walk's field for field; None where this game instance is not covered
      (e.g. parameters the shortcut does not handle), and the walk is used.
    public_beliefs: ``game -> PublicBeliefs`` for two-player instances whose leaf beliefs have
      a game-specific type, else None.
    shape: ``game -> key``: games of one registered name with equal keys have the same tree
      but for the utilities (same histories, information sets and chance probabilities); None
      where unknown. Batched solving checks shapes with it instead of building every tree.
    terminal_utility: ``game -> u_p(z)`` (T, N), equal to ``GameTree.from_game(game).utility``
      (same terminal order), computed without building the tree.
    card_tree: ``game -> card_tree.CardTree`` (two players) or ``card_tree3.CardTree3`` (three)
      for instances of the one-private-card, ordered-deck form (the range-vector engine's
      games), else None (the default: no game instance is covered). The only way the engines
      reach a card tree (``algorithms.cfr.engine_choice``).
  """

  tree_fields: Callable[[pyspiel.Game, int], Optional[Dict[str, object]]]
  public_beliefs: Callable[[pyspiel.Game], Optional[PublicBeliefs]]
  shape: Callable[[pyspiel.Game], Optional[Hashable]]
  terminal_utility: Callable[[pyspiel.Game], np.ndarray]
  card_tree: Callable[[pyspiel.Game], Optional[AnyCardTree]] = lambda game: None


_REGISTRY: Dict[str, GameShortcuts] = {}


def register(short_name: str, shortcuts: GameShortcuts) -> None:
  """Registers ``shortcuts`` for the games whose ``get_type().short_name`` is ``short_name``."""
  _REGISTRY[short_name] = shortcuts


def for_game(game: pyspiel.Game) -> Optional[GameShortcuts]:
  """The shortcuts registered for ``game``'s short name, or None.

  Only a registered game itself qualifies, not an object that wraps it and may change its states:
  the lookup is by the game type's short name of a ``pyspiel.Game``.
  """
  if not isinstance(game, pyspiel.Game):
    return None
  return _REGISTRY.get(game.get_type().short_name)
