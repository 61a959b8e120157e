"""C++ twins: a game rebuilt as OpenSpiel's C++ ``efg_game``, and policies carried across.

A Python game runs inside OpenSpiel's C++ algorithms (``pyspiel.CFRSolver``,
``pyspiel.ExternalSamplingMCCFRSolver``, ``pyspiel.TabularBestResponse``, ``pyspiel.CFRBRSolver``,
``pyspiel.nash_conv``, ...) through a call back into Python at every state, which is slow. The
twin is the same game tree held in C++: ``spiel_games.efg_export`` writes the tree in Gambit's
.efg format with exact rational chance probabilities and payoffs, and ``pyspiel.load_efg_game``
parses it into an ``efg_game``, whose states are nodes of an in-memory tree. The twin has the
same players, chance probabilities (the nearest doubles of the same rationals, hence the game's
own floats) and returns at corresponding histories, so every algorithm computes the same numbers
on both, up to floating-point summation order.

The twin numbers its actions and names its information states its own way (``"0-0-3-2pb"``:
owner, observer, information-set number, our information-state string), so the correspondence
is built by walking both trees in lockstep: the twin's action for each of our actions (matched
by the .efg label) and the twin's information state for each of ours. ``to_twin_policy`` and
``from_twin_policy`` carry any policy across (a ``TabularPolicy``, any ``policy.Policy`` or a
C++ ``pyspiel.Policy``) as a ``TabularPolicy`` of the other game. Usage::

  twin = cpp_twin.CppTwin(pyspiel.load_game("kuhn_poker_ante(deck_size=13)"))
  solver = pyspiel.CFRSolver(twin.twin)
  for _ in range(1000):
    solver.evaluate_and_update_policy()
  ours = twin.from_twin_policy(solver.average_policy())  # a TabularPolicy of our game
"""

from typing import Any, Dict, Iterator, List, Tuple

from open_spiel.python import policy as policy_lib
import pyspiel

from spiel_games import efg_export

CHANCE = pyspiel.PlayerId.CHANCE


def _probabilities(policy: Any, state: pyspiel.State) -> Dict[int, float]:
  """{action: probability} of a Python ``policy.Policy`` or a C++ ``pyspiel.Policy``."""
  return dict(policy.action_probabilities(state))


class CppTwin:
  """A game and its C++ ``efg_game`` twin, with the maps between them.

  Attributes:
    game: our game.
    twin: the C++ game, loaded from ``efg``.
    efg: the .efg text of the game (``spiel_games.efg_export``).
    num_nodes: number of nodes of the tree.
  """

  def __init__(self, game: pyspiel.Game, max_nodes: int = efg_export.MAX_NODES):
    """Exports ``game``, loads the twin and walks both trees to build the maps.

    Raises:
      ValueError: if the game cannot be exported (see ``efg_export.export_efg``).
      AssertionError: if the two trees differ (a bug of the export).
    """
    self.game = game
    export = efg_export.export_efg(game, max_nodes)
    self.efg = export.text
    self.num_nodes = export.num_nodes
    self.twin = pyspiel.load_efg_game(self.efg)
    self._label = export.label
    # (is_chance, our action) -> twin action; one map, as labels name actions consistently.
    self._to_twin_action: Dict[Tuple[bool, int], int] = {}
    # Our information state -> twin's, and back; with one representative pair of states each.
    self._to_twin_key: Dict[str, str] = {}
    self._to_our_key: Dict[str, str] = {}
    self._representatives: Dict[str, Tuple[pyspiel.State, pyspiel.State]] = {}
    for ours, theirs in self.state_pairs():
      if ours.is_terminal() or ours.is_chance_node():
        continue
      player = ours.current_player()
      key = ours.information_state_string(player)
      twin_key = theirs.information_state_string(player)
      if self._to_twin_key.setdefault(key, twin_key) != twin_key or (
          self._to_our_key.setdefault(twin_key, key) != key):
        raise AssertionError(f"information state {key!r} maps to two twin states")
      self._representatives.setdefault(key, (ours, theirs))

  def twin_action(self, state: pyspiel.State, action: int) -> int:
    """The twin's action id for our ``action`` at our non-terminal ``state``."""
    return self._to_twin_action[(state.is_chance_node(), action)]

  def state_pairs(self) -> Iterator[Tuple[pyspiel.State, pyspiel.State]]:
    """Every state of our game with the twin's state at the same history, in preorder.

    Also records the action map; checks at each node that both games agree on the player to
    act, the number of actions and each action's label.
    """
    stack = [(self.game.new_initial_state(), self.twin.new_initial_state())]
    while stack:
      ours, theirs = stack.pop()
      yield ours, theirs
      if ours.is_terminal():
        if not theirs.is_terminal():
          raise AssertionError(f"{ours} is terminal, its twin {theirs} is not")
        continue
      player = ours.current_player()
      if theirs.current_player() != player:
        raise AssertionError(f"player {player} acts at {ours}, {theirs.current_player()} in twin")
      by_label = {theirs.action_to_string(player, b): b for b in theirs.legal_actions()}
      actions = ours.legal_actions()
      if len(by_label) != len(actions):
        raise AssertionError(f"{ours}: {len(actions)} actions, twin {len(by_label)}")
      for action in actions:
        twin_action = by_label[self._label(ours, action)]
        if self._to_twin_action.setdefault((player == CHANCE, action), twin_action) != (
            twin_action):
          raise AssertionError(f"action {action} at {ours} maps to two twin actions")
        stack.append((ours.child(action), theirs.child(twin_action)))

  def _convert(self, policy: Any, target: pyspiel.Game, to_twin: bool
               ) -> policy_lib.TabularPolicy:
    """A TabularPolicy of ``target`` that plays ``policy`` (a policy of the other game)."""
    table = policy_lib.TabularPolicy(target)
    table.action_probability_array[:] = 0.0
    for key, (ours, theirs) in self._representatives.items():
      row = table.state_lookup[self._to_twin_key[key] if to_twin else key]
      source = ours if to_twin else theirs
      probabilities = _probabilities(policy, source)
      for action in ours.legal_actions():
        twin_action = self.twin_action(ours, action)
        p = probabilities.get(action if to_twin else twin_action, 0.0)
        table.action_probability_array[row, twin_action if to_twin else action] = p
    return table

  def to_twin_policy(self, policy: Any) -> policy_lib.TabularPolicy:
    """Our game's ``policy`` as a TabularPolicy of the twin."""
    return self._convert(policy, self.twin, to_twin=True)

  def from_twin_policy(self, policy: Any) -> policy_lib.TabularPolicy:
    """A policy of the twin (Python, or C++ such as ``CFRSolver.average_policy()``) as a
    TabularPolicy of our game."""
    return self._convert(policy, self.game, to_twin=False)

  def twin_key(self, information_state: str) -> str:
    """The twin's information-state string for ours."""
    return self._to_twin_key[information_state]

  def our_key(self, twin_information_state: str) -> str:
    """Our information-state string for the twin's."""
    return self._to_our_key[twin_information_state]

  @property
  def information_states(self) -> List[str]:
    """Our information-state strings, in the order of first appearance in the tree."""
    return list(self._representatives)
