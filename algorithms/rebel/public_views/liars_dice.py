"""The public-state view of OpenSpiel's ``liars_dice``: its public state is the bids so far.

In ``liars_dice(numdice=n, dice_sides=f)`` chance first rolls each player's n dice, seen only by
their owner, and then the players alternate public bids (a quantity and a face, each above the
last) until one calls "Liar" (ends the game). Every player action is public and every chance
outcome private, so two histories lie in the same public state exactly when their player
actions are equal. OpenSpiel's C++ observer of the game has no public-only observation; this
view supplies it.
"""

import pyspiel

from algorithms.rebel.public_views.registry import PublicState
from algorithms.rebel.public_views.registry import register


def bids(game: pyspiel.Game) -> PublicState:
  """``state -> "b1,b2,..."``: the player actions of the history ("" before the first bid)."""
  del game  # Every liars_dice instance has the same view.
  return lambda state: ",".join(str(step.action) for step in state.full_history()
                                if step.player != pyspiel.PlayerId.CHANCE)


register("liars_dice", bids)
