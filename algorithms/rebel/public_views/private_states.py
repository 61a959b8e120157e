"""Each player's private state at a history: what that player alone saw of the deal.

A public belief state (Brown, Bakhtin, Lerer, Gong, ReBeL, NeurIPS 2020, arXiv 2007.13544,
Section 3) is a distribution over the histories of a public state; ReBeL's value network reads it
as each player's belief over its own private states (its "infostates" at the public state) and
answers one value per player and private state. The games the search covers deal all private
information in their opening chance moves (Kuhn poker's cards, Liar's Dice's dice, Leduc poker's
private cards; Leduc's board card comes later and is public), so player i's private state at a
history h is player i's information state at the end of h's opening chance moves, the deal:
``state.information_state_string(i)`` there, before any public action (Kuhn poker "2", Liar's
Dice 1x4f "3", the face of the die; 2x3f "13", the sorted faces). OpenSpiel's private-only
observation (``IIGObservationType(public_info=False, private_info=SINGLE_PLAYER)``) does not
serve: ``kuhn_poker``'s writes an empty string and ``liars_dice`` has none.

Private states are numbered in the natural order of their labels (``natural_key``: digit runs as
numbers), which is card order in Kuhn poker and face order in Liar's Dice.
``public_tree`` checks, at every leaf, that the labels are each root's information state minus
its public part: two roots of one public state have the same label for player i exactly when
they lie in the same information set of player i.
"""

import re
from typing import Callable, Sequence, Tuple

import pyspiel

PrivateStates = Callable[[Sequence[int]], Tuple[str, ...]]


def private_state_function(game: pyspiel.Game) -> PrivateStates:
  """``history -> (label of player 0, label of player 1, ...)``: each player's information state
  after the history's opening chance moves (module docstring)."""
  players = range(game.num_players())

  def private_states(history: Sequence[int]) -> Tuple[str, ...]:
    state = game.new_initial_state()
    for action in history:
      if not state.is_chance_node():
        break
      state.apply_action(action)
    return tuple(state.information_state_string(i) for i in players)

  return private_states


def natural_key(label: str) -> tuple:
  """Sort key of a label: its digit runs as integers ("10" after "9"), the rest as text."""
  return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
               for part in re.split(r"(\d+)", label) if part)
