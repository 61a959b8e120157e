"""Exact (``fractions.Fraction``) expected values, best responses and NashConv of small games.

A second, independent implementation next to the float engine (``tree_exploitability``): it walks
an OpenSpiel game's tree once through the public API (``new_initial_state``, ``child``,
``chance_outcomes``, ``legal_actions``, ``information_state_string``, ``returns``), for any number
of players and any utility type, and evaluates profiles given as exact action probabilities per
information-state string (``ExactProfile``: {information state: {action: probability}},
Fractions, or ints, or floats taken at their exact binary value; each row must sum to exactly 1).
No float enters the arithmetic, so NashConv = 0 certifies a Nash equilibrium exactly.

The quantities (Lanctot et al., "A unified game-theoretic approach to multiagent reinforcement
learning", NeurIPS 2017, the definitions of OpenSpiel's ``exploitability.nash_conv``):

* on-policy value: v_i(sigma) = sum_z pi^sigma(z) u_i(z), with pi^sigma(z) the product of the
  chance and action probabilities on the path to terminal z;
* best-response value: BR_i(sigma_{-i}) = max over pure behaviour strategies of i of
  v_i(s_i, sigma_{-i}) = W(root), computed bottom-up on reach-weighted values: with pi_{-i}(h)
  the reach of h through chance and the other players only, W(z) = pi_{-i}(z) u_i(z) at a
  terminal, W(h) = sum of W over the children at a chance or other player's node, and at player
  i's node h in information set I, W(h) = W(h a*(I)) with a*(I) = argmax_a sum_{h' in I} W(h' a)
  (W(h a) = pi_{-i}(h) V(h a) for the conditional value V, so this is the argmax of OpenSpiel's
  ``best_response.BestResponsePolicy``). Perfect recall makes a*(I) depend only on information
  sets of i below I, so memoising a*(I) gives the best response (the game must have perfect
  recall, as for OpenSpiel's); subtrees with pi_{-i} = 0 are skipped;
* gain_i = BR_i - v_i >= 0 and NashConv = sum_i gain_i; sigma is a Nash equilibrium iff
  NashConv = 0.

Chance probabilities and returns of OpenSpiel games are floats. Each is taken as the simplest
fraction (denominator at most ``MAX_DENOMINATOR``) whose double is exactly the game's double, e.g.
1/3 for 0.333...; a value with no such fraction, or chance probabilities of a node whose fractions
do not sum to exactly 1, raise ValueError. For Kuhn poker (chance probabilities 1/k, integer
returns) this recovers the exact game.
"""

import dataclasses
import fractions
import numbers
from typing import Dict, List, Mapping, Optional, Tuple

import pyspiel

from algorithms.exact.exact_number import to_fraction

Fraction = fractions.Fraction
ExactProfile = Mapping[str, Mapping[int, numbers.Real]]

MAX_DENOMINATOR = 10**6
DEFAULT_MAX_NODES = 100_000

_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


@dataclasses.dataclass(frozen=True)
class NashConvCertificate:
  """On-policy and best-response values of every player for one profile, exact.

  Attributes:
    values: v_i(sigma) per player.
    best_response_values: BR_i(sigma_{-i}) per player.
  """

  values: Tuple[Fraction, ...]
  best_response_values: Tuple[Fraction, ...]

  @property
  def gains(self) -> Tuple[Fraction, ...]:
    """BR_i - v_i per player (each >= 0)."""
    return tuple(br - v for br, v in zip(self.best_response_values, self.values))

  @property
  def nash_conv(self) -> Fraction:
    """Sum of the gains; 0 exactly iff the profile is a Nash equilibrium."""
    return sum(self.gains, Fraction(0))

  @property
  def is_equilibrium(self) -> bool:
    return self.nash_conv == 0


def exact_fraction(x: float, what: str) -> Fraction:
  """The simplest fraction (denominator <= MAX_DENOMINATOR) whose double is ``x``.

  Raises:
    ValueError: if no such fraction exists.
  """
  value = Fraction(x).limit_denominator(MAX_DENOMINATOR)
  if float(value) != x:
    raise ValueError(f"{what} = {x!r} is not a fraction with denominator <= {MAX_DENOMINATOR}")
  return value


class ExactGameTree:
  """The tree of a small OpenSpiel game with exact chance probabilities and returns.

  Nodes are stored in depth-first preorder; node 0 is the root. Per node: the player to act
  (``_CHANCE``, ``_TERMINAL`` or a player id), the acting player's information-state string
  (decision nodes), the children with their action and, at chance nodes, their probability, and
  the returns (terminal nodes).
  """

  def __init__(self, game: pyspiel.Game, max_nodes: int = DEFAULT_MAX_NODES):
    """Walks ``game`` once.

    Raises:
      ValueError: for a game that is not sequential with explicit chance, a tree of more than
        ``max_nodes`` nodes, or a chance probability or return that is not a small fraction.
    """
    game_type = game.get_type()
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
      raise ValueError(f"game {game} is not sequential; ExactGameTree needs a sequential game")
    if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
      raise ValueError(f"game {game} has sampled chance; ExactGameTree needs explicit chance")
    self.num_players = game.num_players()
    self.player: List[int] = []
    self.info_state: List[Optional[str]] = []
    self.children: List[List[Tuple[int, Optional[Fraction], int]]] = []
    self.returns: List[Optional[Tuple[Fraction, ...]]] = []
    self._max_nodes = max_nodes
    self._add(game.new_initial_state())

  def _add(self, state: pyspiel.State) -> int:
    """Appends ``state`` and its subtree; returns the node id of ``state``."""
    node = len(self.player)
    if node >= self._max_nodes:
      raise ValueError(f"game tree has more than max_nodes = {self._max_nodes} nodes")
    player = int(state.current_player())
    self.player.append(player)
    self.info_state.append(None)
    self.children.append([])
    self.returns.append(None)
    if state.is_terminal():
      self.player[node] = _TERMINAL
      self.returns[node] = tuple(exact_fraction(r, f"return at {state.history_str()}")
                                 for r in state.returns())
    elif state.is_chance_node():
      outcomes = [(a, exact_fraction(p, f"chance probability at {state.history_str()}"))
                  for a, p in state.chance_outcomes()]
      if sum(p for _, p in outcomes) != 1:
        raise ValueError(f"chance probabilities at {state.history_str()} do not sum to 1")
      self.children[node] = [(a, p, self._add(state.child(a))) for a, p in outcomes]
    else:
      if player < 0:
        raise ValueError(f"simultaneous or unknown node at {state.history_str()}")
      self.info_state[node] = state.information_state_string(player)
      self.children[node] = [(a, None, self._add(state.child(a))) for a in state.legal_actions()]
    return node

  @property
  def num_nodes(self) -> int:
    return len(self.player)

  def information_states(self, player: int) -> Tuple[str, ...]:
    """The information-state strings of ``player`` in first-visit order."""
    seen = dict.fromkeys(s for p, s in zip(self.player, self.info_state) if p == player)
    return tuple(seen)

  def _edges(self, profile: ExactProfile) -> List[List[Tuple[Fraction, int]]]:
    """(probability, child) of every node under ``profile``, each row checked exactly once."""
    rows: Dict[str, List[Fraction]] = {}
    edges = []
    for node, player in enumerate(self.player):
      if player == _CHANCE:
        edges.append([(p, child) for _, p, child in self.children[node]])
        continue
      if player != _TERMINAL:
        key = self.info_state[node]
        if key not in rows:
          rows[key] = _checked_row(profile, key, [a for a, _, _ in self.children[node]])
        edges.append([(p, child) for p, (_, _, child) in zip(rows[key], self.children[node])])
        continue
      edges.append([])
    return edges

  def expected_values(self, profile: ExactProfile) -> Tuple[Fraction, ...]:
    """v_i(sigma) for every player i."""
    return self._expected_values(self._edges(profile))

  def best_response_value(self, profile: ExactProfile, player: int) -> Fraction:
    """BR_player(sigma_{-player}); the profile's rows for ``player`` are checked, not used."""
    if not 0 <= player < self.num_players:
      raise ValueError(f"player must be in [0, {self.num_players}), got {player}")
    return self._best_response_value(self._edges(profile), player)

  def certificate(self, profile: ExactProfile) -> NashConvCertificate:
    """Values and best-response values of every player under ``profile``."""
    edges = self._edges(profile)
    return NashConvCertificate(
        values=self._expected_values(edges),
        best_response_values=tuple(self._best_response_value(edges, i)
                                   for i in range(self.num_players)))

  def _expected_values(self, edges: List[List[Tuple[Fraction, int]]]) -> Tuple[Fraction, ...]:
    """v_i = sum_z pi(z) u_i(z), over the terminals z reached with pi(z) > 0."""
    reach = self._reach(edges, skip_player=None)
    totals = [Fraction(0)] * self.num_players
    for node, returns in enumerate(self.returns):
      if returns is not None and reach[node]:
        totals = [t + reach[node] * u for t, u in zip(totals, returns)]
    return tuple(totals)

  def _best_response_value(self, edges: List[List[Tuple[Fraction, int]]], player: int) -> Fraction:
    """W(root) for the recursion of the module docstring."""
    reach = self._reach(edges, skip_player=player)
    members: Dict[str, List[int]] = {}
    for node, p in enumerate(self.player):
      if p == player:
        members.setdefault(self.info_state[node], []).append(node)
    best: Dict[str, int] = {}
    weighted: Dict[int, Fraction] = {}

    def w(node: int) -> Fraction:
      if not reach[node]:
        return Fraction(0)  # Every terminal below has pi_{-i}(z) = 0.
      if node in weighted:
        return weighted[node]
      children = self.children[node]
      if self.player[node] == _TERMINAL:
        result = reach[node] * self.returns[node][player]
      elif self.player[node] == player:
        key = self.info_state[node]
        if key not in best:  # a*(I) = argmax_a sum_{h in I} W(h a), the first on ties.
          totals = [sum((w(self.children[h][k][2]) for h in members[key]), Fraction(0))
                    for k in range(len(children))]
          best[key] = max(range(len(children)), key=lambda k: (totals[k], -k))
        result = w(children[best[key]][2])
      else:
        result = sum((w(child) for _, _, child in children), Fraction(0))
      weighted[node] = result
      return result

    return w(0)

  def _reach(self, edges: List[List[Tuple[Fraction, int]]],
             skip_player: Optional[int]) -> List[Fraction]:
    """Reach probability of every node: the product of the chance and action probabilities on
    its path, leaving out those of ``skip_player`` (pi_{-i} for a best response to player i)."""
    reach = [Fraction(0)] * self.num_nodes
    reach[0] = Fraction(1)
    for node in range(self.num_nodes):  # Preorder: parents first.
      if not reach[node]:
        continue  # Zero-reach subtrees stay zero.
      if self.player[node] == skip_player:
        for _, _, child in self.children[node]:
          reach[child] = reach[node]
      else:
        for p, child in edges[node]:
          reach[child] = reach[node] if p == 1 else reach[node] * p
    return reach


def _checked_row(profile: ExactProfile, key: str, legal: List[int]) -> List[Fraction]:
  """The profile's probabilities of the ``legal`` actions at ``key``, exact, summing to 1."""
  if key not in profile:
    raise ValueError(f"profile has no probabilities for information state {key!r}")
  row = profile[key]
  unknown = sorted(set(row) - set(legal))
  if unknown:
    raise ValueError(f"profile at {key!r} gives actions {unknown} outside the legal {legal}")
  probs = [_exact_probability(row.get(a, 0), key) for a in legal]
  if sum(probs) != 1:
    raise ValueError(f"profile probabilities at {key!r} sum to {sum(probs)}, not 1")
  return probs


def _exact_probability(x: numbers.Real, key: str) -> Fraction:
  """An action probability as an exact Fraction in [0, 1] (floats at their binary value)."""
  value = to_fraction(x, f"probability at {key!r}")
  if not 0 <= value <= 1:
    raise ValueError(f"probability at {key!r} must be in [0, 1], got {x!r}")
  return value
