"""The size of a game tree: its number of histories (states: chance, decision and terminal).

A game that knows its size exactly (the project's games define ``num_histories()``: a formula for
``kuhn_poker_ante``, a count over belief supports for ``kuhn_poker_referee``) is asked; any other
game is walked depth first through pyspiel's public API, stopping as soon as the count passes a
cap, so a huge game costs at most ``cap`` steps.
"""

from typing import Callable, Optional

import pyspiel


def exact_histories(game: pyspiel.Game) -> Optional[int]:
  """The game's own exact count of histories, or None if it does not define one."""
  count = getattr(game, "num_histories", None)
  return count() if callable(count) else None


def count_histories(game: pyspiel.Game, cap: int,
                    progress: Optional[Callable[[int], None]] = None) -> int:
  """The number of histories of ``game``, up to ``cap + 1``.

  Args:
    game: the game.
    cap: the largest count of interest (>= 1).
    progress: called with the running count every 100,000 histories of a walk.

  Returns:
    The exact count if it is at most ``cap``, else ``cap + 1`` (read: more than ``cap``).
  """
  exact = exact_histories(game)
  if exact is not None:
    return min(exact, cap + 1)
  count, stack = 0, [game.new_initial_state()]
  while stack:
    state = stack.pop()
    count += 1
    if count > cap:
      return cap + 1
    if progress is not None and count % 100_000 == 0:
      progress(count)
    if state.is_terminal():
      continue
    if state.is_chance_node():
      stack.extend(state.child(a) for a, _ in state.chance_outcomes())
    else:  # At a simultaneous node: the flat joint actions.
      stack.extend(state.child(a) for a in state.legal_actions())
  return count
