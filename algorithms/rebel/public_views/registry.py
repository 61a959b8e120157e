"""The public-state views of games: which public state a history is in.

A depth-limited search over public states (``public_tree``) needs, for every history, the public
state it lies in: what both players have seen. OpenSpiel exposes it as the public observation
``IIGObservationType(perfect_recall=True, public_info=True, private_info=NONE)`` for the games
whose observer supports it (``kuhn_poker``, this project's ``kuhn_poker_ante``, ``leduc_poker``);
for a game whose observer does not (``liars_dice``), a module of this package registers a view
under the game's short name. The rest of what a search needs (the private states of each
player, chance's distribution over them, Bayes' rule for a public action) the public tree derives
from the game tree itself: a public state's roots are its histories, and a belief is a
distribution over them.

``public_state_function(game)`` is the one lookup: a registered view first, then OpenSpiel's
public observation, else a ``ValueError`` naming the games that have a view.
"""

from typing import Callable, Dict

from open_spiel.python import observation
import pyspiel

PublicState = Callable[[pyspiel.State], str]

PUBLIC_OBSERVATION = pyspiel.IIGObservationType(
    perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE)

# Games whose public states OpenSpiel's public observation gives (checked by the tests).
OBSERVED = ("kuhn_poker", "kuhn_poker_ante", "leduc_poker")

_VIEWS: Dict[str, Callable[[pyspiel.Game], PublicState]] = {}


def register(short_name: str, view: Callable[[pyspiel.Game], PublicState]) -> None:
  """Registers ``view(game) -> public_state(state)`` for the games named ``short_name``."""
  _VIEWS[short_name] = view


def supported_games() -> tuple:
  """The short names of the games with a public-state view, registered or observed."""
  return tuple(sorted(set(OBSERVED) | set(_VIEWS)))


def public_state_function(game: pyspiel.Game) -> PublicState:
  """``state -> str``: the public state of a history of ``game``.

  Raises:
    ValueError: if the game has neither a registered view nor OpenSpiel's public observation.
  """
  name = game.get_type().short_name
  if name in _VIEWS:
    return _VIEWS[name](game)
  observer = None
  try:  # make_observation answers None for a game that offers no such observer.
    observer, reason = observation.make_observation(game, PUBLIC_OBSERVATION), "it has none"
  except (pyspiel.SpielError, RuntimeError, ValueError, AttributeError) as e:
    reason = str(e)
  if observer is None:
    raise ValueError(f"{name} has no public-state view ({reason}); games with one: "
                     f"{', '.join(supported_games())}")
  return lambda state: observer.string_from(state, 0)
