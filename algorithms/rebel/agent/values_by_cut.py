"""Learned values for every leaf the agent's searches reach: one value function per cut, joined.

The agent's searches end at several depths (a search from the game root cut after d actions has
leaves at depth d, the search from one of those at depth 2d, ...), while a ``PBSValueFunction``
is trained for the leaves of one cut (``learning.leaf_domain.LeafDomain``). ``ByLeaf`` joins
value functions of several cuts of one game: the value at a leaf is that of the value function
whose cut holds the leaf's public state (ReBeL's single network takes the public state as an
input; here each cut has its own).
"""

from typing import Dict, Sequence

import numpy as np

from algorithms.rebel.public_tree import LeafSubgame


class ByLeaf:
  """Value functions of several cuts as one: ``root_values`` from the one that has the leaf.

  Args:
    value_functions: objects with ``domain.leaves`` (their public states) and
      ``root_values(leaf, belief)``, e.g. ``PBSValueFunction``s.

  Raises:
    ValueError: if two of them claim the same public state.
  """

  def __init__(self, value_functions: Sequence):
    self.value_functions = tuple(value_functions)
    self._by_state: Dict[str, object] = {}
    for value_function in self.value_functions:
      for state in value_function.domain.leaves:
        if state in self._by_state:
          raise ValueError(f"value_functions: two value functions have the leaf {state!r}")
        self._by_state[state] = value_function

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    """Player 0's value from each root of ``leaf`` (R,).

    Raises:
      ValueError: for a leaf that none of the value functions has.
    """
    value_function = self._by_state.get(leaf.public_state)
    if value_function is None:
      raise ValueError(f"leaf {leaf.public_state!r} has no value function (leaves: "
                       f"{', '.join(sorted(self._by_state))})")
    return value_function.root_values(leaf, belief)
