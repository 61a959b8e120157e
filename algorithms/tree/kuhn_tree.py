"""Kuhn poker game trees generated from the rules, without walking game states.

``GameTree.from_game`` walks a game through OpenSpiel's state API, about 40 us per history. For
the Kuhn games (``kuhn_poker_ante`` with any rules, players and deck, and OpenSpiel's C++
``kuhn_poker(players=N)``, whose rules ``KuhnRules`` also describes) the tree has a product
structure that gives every array at once:

* the deals: chance deals player 0's card, then player 1's, ..., each uniformly over the cards
  left, in increasing card order; the deal prefixes of length k are the k-permutations of the
  deck in lexicographic order;
* the betting: one template tree of betting histories (``KuhnRules``), the same below every
  deal, its nodes in preorder, pass before bet;
* in depth-first preorder a deal prefix of length k has a subtree of S_k = 1 + (n - k) S_{k+1}
  nodes (n cards, N players, S_N the template's size), so the r-th child of a prefix at
  position i is at i + 1 + r S_{k+1}.

An information set of player p is (p's card c, a betting history where p acts). The numbering
reproduces the walk's exactly: sets by first visit (the lexicographically first deal giving p
the card c, then the template's preorder), ``TabularPolicy`` rows by the smallest history string
among a set's histories (the deal "d_0, d_1, ..." chosen greedily position by position, card
strings compared as strings, followed by the betting actions), and every float as the walk
computes it (chance probabilities 1 / (cards left), chance reach as the product in the walk's
order, returns from ``KuhnRules.returns``). ``tests/test_algorithms/tree/test_kuhn_tree.py``
compares every field with the walked tree.

The module registers Kuhn poker's entry in ``game_shortcuts`` (for OpenSpiel's ``kuhn_poker`` and
for ``kuhn_poker_ante``): the generated tree, the card tree of the range-vector engine
(``CardTree`` for two players, ``CardTree3`` for three), and the leaf beliefs of a public state as
the referee game's ``PublicBeliefState``.
"""

import dataclasses
import fractions
import types
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import pyspiel

from algorithms.tree import game_shortcuts
from algorithms.tree.card_tree import CardTree
from algorithms.tree.card_tree3 import AnyCardTree
from algorithms.tree.card_tree3 import CardTree3
from algorithms.tree.sequence_form import node_sequences
from algorithms.tree.sequence_form import player_sequences
from spiel_games import kuhn_observer
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import ACTION_CHARS
from spiel_games.kuhn_rules import BET
from spiel_games.kuhn_rules import PASS
from spiel_games.kuhn_rules import KuhnRules
from spiel_games.public_belief_state import PublicBeliefState

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
# Peak bytes per history of the flat engine on a Kuhn tree (tree, layout, the fused sweep's
# index arrays and the engine's arrays; measured 1.19 to 1.22 times 200 for two players by the
# large-deck experiment): the estimate in the max_nodes refusal.
FLAT_BYTES_PER_HISTORY = 240


def _template(rules: KuhnRules) -> Tuple[List[str], np.ndarray, np.ndarray]:
  """The betting histories in preorder (pass before bet): (histories, parent, action), with
  parent and action -1 at the root."""
  histories, parent, action = [""], [-1], [-1]

  def expand(j: int) -> None:
    if rules.is_terminal(histories[j]):
      return
    for a in (PASS, BET):
      histories.append(histories[j] + ACTION_CHARS[a])
      parent.append(j)
      action.append(a)
      expand(len(histories) - 1)

  expand(0)
  return histories, np.array(parent, dtype=np.int64), np.array(action, dtype=np.int64)


def _deal_levels(deck: int, players: int) -> Tuple[List[np.ndarray], List[np.ndarray],
                                                   List[int]]:
  """The deal prefixes of each length k = 0..N, each level in lexicographic order.

  Returns:
    (prefixes, ranks, counts): prefixes[k] is (count_k, k); ranks[k][i] is the rank of prefix
    i's last card among the cards left before it (0 for the empty prefix).
  """
  prefixes = [np.zeros((1, 0), dtype=np.int64)]
  ranks = [np.zeros(1, dtype=np.int64)]
  for k in range(players):
    parents = prefixes[-1]
    left = deck - k
    mask = np.ones((len(parents), deck), dtype=bool)
    mask[np.arange(len(parents))[:, None], parents] = False
    remaining = np.nonzero(mask)[1].reshape(len(parents), left)
    prefixes.append(np.concatenate([np.repeat(parents, left, axis=0),
                                    remaining.reshape(-1, 1)], axis=1))
    ranks.append(np.tile(np.arange(left, dtype=np.int64), len(parents)))
  return prefixes, ranks, [len(p) for p in prefixes]


def _info_state_strings(rules: KuhnRules, player: int, histories: List[str]) -> List[str]:
  """Information-state strings of ``player`` holding each card (rows) after each history."""
  observer = kuhn_observer.KuhnObserver(rules, pyspiel.IIGObservationType(perfect_recall=True))
  strings = []
  for card in range(rules.deck_size):
    cards = [card] * rules.num_players
    strings.append([observer.string_from(types.SimpleNamespace(cards=cards, betting=h), player)
                    for h in histories])
  return strings


def _smallest_deal(deck: int, players: int, player: int, card: int,
                   by_string: List[int]) -> Tuple[int, ...]:
  """The deal giving ``player`` the ``card`` with the smallest history string: each other
  position, in order, takes the smallest card (as a string) still free."""
  deal, used = [], {card}
  for position in range(players):
    if position == player:
      deal.append(card)
      continue
    chosen = next(c for c in by_string if c not in used)
    used.add(chosen)
    deal.append(chosen)
  return tuple(deal)


def tree_fields(game: pyspiel.Game, rules: KuhnRules, max_nodes: int) -> Dict[str, object]:
  """The fields of the ``GameTree`` of a Kuhn game, as ``GameTree.from_game``'s walk makes them.

  Args:
    game: ``kuhn_poker_ante`` or ``kuhn_poker``, the game the tree is for.
    rules: its rules.
    max_nodes: refuse a tree with more histories.

  Raises:
    ValueError: if the tree has more than ``max_nodes`` histories.
  """
  n_players, deck = rules.num_players, rules.deck_size
  histories, t_parent, t_action = _template(rules)
  size = len(histories)
  t_terminal = np.array([rules.is_terminal(h) for h in histories])
  t_player = np.array([TERMINAL if rules.is_terminal(h) else rules.current_player(h)
                       for h in histories], dtype=np.int64)
  t_depth = np.array([len(h) for h in histories], dtype=np.int64)
  subtree = [0] * (n_players + 1)  # S_k.
  subtree[n_players] = size
  for k in range(n_players - 1, -1, -1):
    subtree[k] = 1 + (deck - k) * subtree[k + 1]
  num_nodes = subtree[0]
  if num_nodes > max_nodes:
    # Said of the solvers that have the option, so that it is true whoever builds the tree.
    # Three players: standard rules only (kuhn_poker_ante refuses simplified ones for them).
    hint = (f"; a {('two', 'three')[n_players - 2]}-player game this size runs only on the "
            "range-vector engine, which needs no tree: the full-width CFR solvers (CFRSolver, "
            "CFRPlusSolver, DCFRSolver and the others with an engine option) take engine='range'"
            if n_players in (2, 3) else "")
    raise ValueError(f"{game.get_type().short_name}(deck_size={deck}): the tree has "
                     f"{num_nodes:,} histories, more than max_nodes={max_nodes:,}; about "
                     f"{num_nodes * FLAT_BYTES_PER_HISTORY / 2**30:.1f} GiB for the flat engine"
                     + hint)

  prefixes, ranks, counts = _deal_levels(deck, n_players)
  # Preorder positions of the deal prefixes, level by level.
  positions = [np.zeros(1, dtype=np.int64)]
  for k in range(1, n_players + 1):
    parent_positions = np.repeat(positions[-1], deck - k + 1)
    positions.append(parent_positions + 1 + ranks[k] * subtree[k])
  deals, base = prefixes[n_players], positions[n_players]
  num_deals = len(deals)

  node_parent = np.empty(num_nodes, dtype=np.int64)
  node_player = np.empty(num_nodes, dtype=np.int64)
  node_action = np.empty(num_nodes, dtype=np.int64)
  node_depth = np.empty(num_nodes, dtype=np.int64)
  node_prob = np.empty(num_nodes)
  node_chance_reach = np.empty(num_nodes)
  position = np.full(num_nodes, -1, dtype=np.int64)
  reach = 1.0  # The walk's product: prob * parent's reach, root first.
  for k in range(n_players + 1):
    nodes = positions[k]
    prob = 1.0 if k == 0 else 1.0 / (deck - k + 1)
    reach = prob * reach
    if k < n_players:
      node_player[nodes] = CHANCE
      node_depth[nodes] = k
    node_parent[nodes] = -1 if k == 0 else np.repeat(positions[k - 1], deck - k + 1)
    node_action[nodes] = -1 if k == 0 else prefixes[k][:, -1]
    node_prob[nodes] = prob
    node_chance_reach[nodes] = reach
  below = (base[:, None] + np.arange(size)).reshape(-1)  # Betting nodes, deal-major.
  node_player[below] = np.tile(t_player, num_deals)
  node_depth[below] = np.tile(n_players + t_depth, num_deals)
  node_chance_reach[below] = reach
  rest = (base[:, None] + np.arange(1, size)).reshape(-1)
  node_parent[rest] = (base[:, None] + t_parent[1:]).reshape(-1)
  node_action[rest] = np.tile(t_action[1:], num_deals)
  node_prob[rest] = 1.0
  position[rest] = node_action[rest]  # Legal actions are (PASS, BET) = (0, 1).
  del below, rest

  # Information sets (card, template node) by first visit, per player.
  by_string = sorted(range(deck), key=str)
  players, representative = [], []
  node_infoset = np.full(num_nodes, -1, dtype=np.int64)
  row_offset = 0
  for p in range(n_players):
    acting = np.flatnonzero(t_player == p)  # Template nodes, preorder.
    column = np.full(size, -1, dtype=np.int64)
    column[acting] = np.arange(len(acting))
    _, first_deal = np.unique(deals[:, p], return_index=True)  # Per card.
    first_visit = base[first_deal][:, None] + acting[None, :]  # (cards, acting).
    order = np.argsort(first_visit, axis=None, kind="stable")  # Given index -> (card, j).
    given = np.empty(deck * len(acting), dtype=np.int64)
    given[order] = np.arange(len(order))
    given = given.reshape(deck, len(acting))
    cards, templates = np.divmod(order, len(acting))
    # The player's previous own action in the template: (its template node, the action).
    own_parent = np.full(size, -1, dtype=np.int64)
    own_action = np.zeros(size, dtype=np.int64)
    for j in range(1, size):
      up, action = t_parent[j], t_action[j]
      while up >= 0 and t_player[up] != p:
        up, action = t_parent[up], t_action[up]
      own_parent[j], own_action[j] = up, action
    parent_template = own_parent[acting[templates]]
    parent_infoset = np.where(parent_template >= 0,
                              given[cards, column[np.maximum(parent_template, 0)]], -1)
    strings = _info_state_strings(rules, p, histories)
    keys = [strings[c][acting[j]] for c, j in zip(cards.tolist(), templates.tolist())]
    smallest = [_smallest_deal(deck, n_players, p, c, by_string) for c in range(deck)]
    history = {}  # (card, j) -> smallest history string.
    for c in range(deck):
      prefix = ", ".join(map(str, smallest[c]))
      for j in acting.tolist():
        actions = [str(a) for a in _actions(t_parent, t_action, j)]
        history[c, j] = ", ".join([prefix] + actions)
    first_history = [history[c, acting[j]] for c, j in zip(cards.tolist(), templates.tolist())]
    by_history = sorted(range(len(order)), key=first_history.__getitem__)
    tabular_row = np.empty(len(order), dtype=np.int64)
    tabular_row[by_history] = row_offset + np.arange(len(order))
    row_offset += len(order)
    sequences, new_of_given = player_sequences(
        p, keys, [(PASS, BET)] * len(order), parent_infoset, own_action[acting[templates]],
        tabular_row)
    players.append(sequences)
    deal_position = np.array([_deal_position(d, deck, subtree) for d in smallest])
    nodes = np.empty(len(order), dtype=np.int64)
    nodes[new_of_given] = deal_position[cards] + acting[templates]
    representative.append(nodes)
    mine = (base[:, None] + acting[None, :]).reshape(-1)
    node_infoset[mine] = new_of_given[given[deals[:, p]].reshape(-1)]
  node_seq = node_sequences(node_parent, node_player, node_infoset, node_depth, position,
                            players)
  del position

  # Terminals, deal-major, template preorder; returns per (terminal template, winner).
  t_terminals = np.flatnonzero(t_terminal)
  terminal_node = (base[:, None] + t_terminals[None, :]).reshape(-1)
  node_terminal = np.full(num_nodes, -1, dtype=np.int64)
  node_terminal[terminal_node] = np.arange(len(terminal_node))
  utility = _utility(rules, histories, t_terminals, deals)
  return dict(
      game=game, players=tuple(players), node_parent=node_parent, node_player=node_player,
      node_infoset=node_infoset, node_action=node_action, node_depth=node_depth,
      node_prob=node_prob, node_seq=node_seq, node_terminal=node_terminal,
      node_chance_reach=node_chance_reach, terminal_node=terminal_node, utility=utility,
      terminal_seq=node_seq[terminal_node], utility_sum=float(sum(utility[0].tolist())),
      _representative_node=tuple(representative))


def terminal_utility(rules: KuhnRules) -> np.ndarray:
  """u_p(z) (T, N) of every terminal of the rules' tree, in the tree's terminal order.

  Equal to the ``utility`` of the tree (``GameTree.from_game``) of any game with these rules;
  variants with the same ``shape_key`` (every field but the stakes) share every other array.
  """
  histories, _, _ = _template(rules)
  t_terminals = np.flatnonzero([rules.is_terminal(h) for h in histories])
  prefixes, _, _ = _deal_levels(rules.deck_size, rules.num_players)
  return _utility(rules, histories, t_terminals, prefixes[-1])


def _utility(rules: KuhnRules, histories: List[str], t_terminals: np.ndarray,
             deals: np.ndarray) -> np.ndarray:
  """Returns (T, N) of the terminals, deal-major, from ``KuhnRules.returns`` per terminal
  history and winner: the highest card among the players in the hand."""
  n_players = rules.num_players
  in_hand = np.zeros((len(t_terminals), n_players), dtype=bool)
  table = np.zeros((len(t_terminals), n_players, n_players))
  for row, j in enumerate(t_terminals.tolist()):
    for w in rules.in_hand(histories[j]):
      in_hand[row, w] = True
      table[row, w] = rules.returns(histories[j], [int(i == w) for i in range(n_players)])
  winner = np.argmax(np.where(in_hand[None, :, :], deals[:, None, :], -1), axis=2)
  return table[np.arange(len(t_terminals))[None, :], winner].reshape(-1, n_players)


def _actions(t_parent: np.ndarray, t_action: np.ndarray, j: int) -> List[int]:
  """The betting actions from the template's root to node j."""
  actions = []
  while j > 0:
    actions.append(int(t_action[j]))
    j = int(t_parent[j])
  return actions[::-1]


def _deal_position(deal: Tuple[int, ...], deck: int, subtree: List[int]) -> int:
  """Preorder position of the node where ``deal`` is complete (the betting root)."""
  node, used = 0, []
  for k, card in enumerate(deal):
    node += 1 + (card - sum(1 for u in used if u < card)) * subtree[k + 1]
    used.append(card)
  return node


class KuhnPublicBeliefs:
  """A belief over a Kuhn public state's roots as the referee game's ``PublicBeliefState``.

  The roots of a public state differ only in the private deal (every card of every player), so a
  belief over roots is a belief over ``KuhnRules.deals()``.
  """

  def __init__(self, rules: KuhnRules):
    self._rules = rules
    self._num_deals = len(rules.deals())

  def belief_state(self, public_state: str, deals: np.ndarray,
                   belief: np.ndarray) -> PublicBeliefState:
    joint = [fractions.Fraction(0)] * self._num_deals
    for deal, b in zip(deals, belief):
      joint[deal] += fractions.Fraction(float(b))  # Exact conversion of the float.
    total = sum(joint)
    return PublicBeliefState(self._rules, public_state, tuple(b / total for b in joint))


def _tree_fields(game: pyspiel.Game, max_nodes: int) -> Optional[Dict[str, object]]:
  rules = kuhn_poker_ante.rules_of(game, num_players=None)
  return None if rules is None else tree_fields(game, rules, max_nodes)


def _public_beliefs(game: pyspiel.Game) -> Optional[KuhnPublicBeliefs]:
  rules = kuhn_poker_ante.rules_of(game)
  return None if rules is None else KuhnPublicBeliefs(rules)


# The fields of ``KuhnRules`` that change only the payoffs, never the tree: the stakes.
STAKES = frozenset({"ante", "bet"})


def shape_key(rules: KuhnRules) -> Tuple[Tuple[str, object], ...]:
  """Every field of ``rules`` but the ``STAKES``, by name: rules with equal keys have one tree
  but for the payoffs. A field added to ``KuhnRules`` joins the key by itself, so a new
  structural parameter cannot batch games of different trees."""
  return tuple((f.name, getattr(rules, f.name)) for f in dataclasses.fields(rules)
               if f.name not in STAKES)


def _shape(game: pyspiel.Game) -> Optional[Tuple[Tuple[str, object], ...]]:
  rules = kuhn_poker_ante.rules_of(game, num_players=None)
  return None if rules is None else shape_key(rules)


def _terminal_utility(game: pyspiel.Game) -> np.ndarray:
  return terminal_utility(kuhn_poker_ante.rules_of(game, num_players=None))


def _betting(rules: KuhnRules) -> Tuple[Tuple[str, ...], Tuple[str, ...], np.ndarray,
                                         np.ndarray]:
  """(decision histories, terminal histories, child, node_player) of a card tree of ``rules``.

  Decision nodes and terminals are the betting histories, shortest first (parents before
  children); action 0 is pass (check or fold), 1 bet (or call); child[d, a] is the decision node
  after action a at d, or terminal t as -(t + 1).
  """
  histories = rules.decision_histories()
  terminals = tuple(sorted(rules.terminal_histories, key=lambda h: (len(h), h)))
  child = np.array([[histories.index(h + a) if h + a in histories else -terminals.index(h + a) - 1
                     for a in ACTION_CHARS] for h in histories], dtype=np.int64)
  node_player = np.array([rules.current_player(h) for h in histories], dtype=np.int64)
  return histories, terminals, child, node_player


def card_tree(game: pyspiel.Game, rules: KuhnRules) -> CardTree:
  """The ``CardTree`` of two-player Kuhn poker with ``rules`` (either rule set, any deck).

  The betting as ``_betting`` lays it out. A terminal where both players are still in is a
  showdown for the stake each has put in (``KuhnRules.contributions``); otherwise player 0's
  payoff is ``KuhnRules.returns``, which does not depend on the cards there.
  """
  histories, terminals, child, node_player = _betting(rules)
  showdown = np.array([len(rules.in_hand(z)) == 2 for z in terminals])
  # u_0 with player 0 holding the higher card: +s at a showdown, the fold's payoff otherwise.
  payoff = np.array([rules.returns(z, (1, 0))[0] for z in terminals], dtype=np.float64)
  # The cards as strings in increasing order, as far as two players need them: "0" and "1" come
  # first among "0".."N-1", so the opponent's smallest card is 0, or 1 when the player holds 0.
  by_string = [0, 1]

  def state(node: int, card: int) -> pyspiel.State:
    player = rules.current_player(histories[node])
    s = game.new_initial_state()
    for c in _smallest_deal(rules.deck_size, 2, player, card, by_string):
      s.apply_action(c)
    for a in histories[node]:
      s.apply_action(ACTION_CHARS.index(a))
    return s

  return CardTree(game=game, histories=histories, node_player=node_player, child=child,
                  showdown=showdown, payoff=payoff, num_cards=rules.deck_size, state=state)


def smallest_state(game: pyspiel.Game, rules: KuhnRules, history: str,
                   card: int) -> pyspiel.State:
  """The state with the smallest ``history_str()`` in which the player to act after the betting
  ``history`` holds ``card``: the first of its information set in ``TabularPolicy``'s order.

  The history string starts with the deal, "c_0, c_1, ..."; the smallest one gives each other
  seat, in order, the card whose string is smallest among those still free ("10" sorts between
  "1" and "2"). Any number of players.
  """
  by_string = sorted(range(rules.deck_size), key=str)
  player = rules.current_player(history)
  state = game.new_initial_state()
  for c in _smallest_deal(rules.deck_size, rules.num_players, player, card, by_string):
    state.apply_action(c)
  for a in history:
    state.apply_action(ACTION_CHARS.index(a))
  return state


def kuhn_rules3(game: Union[pyspiel.Game, KuhnRules]) -> KuhnRules:
  """The rules of three-player standard Kuhn poker of ``game`` (a game or its ``KuhnRules``).

  Raises:
    ValueError: (one line) for a game that is not Kuhn poker, another number of players, or the
      simplified rule set.
  """
  rules = game if isinstance(game, KuhnRules) else kuhn_poker_ante.rules_of(game, None)
  if rules is None:
    raise ValueError(f"three-player range vectors need kuhn_poker(players=3) or "
                     f"kuhn_poker_ante(players=3); got {game}")
  if rules.num_players != 3:
    limit = ("engine='range' runs two players on a CardTree" if rules.num_players == 2 else
             "the flat engine (engine='flat') runs four or more, up to its max_nodes limit")
    raise ValueError(f"three-player range vectors need players=3, got players="
                     f"{rules.num_players}; {limit}")
  if rules.simplified:
    raise ValueError("three-player range vectors need simplified=False: the simplified rule set "
                     "is defined for two players only")
  return rules


def kuhn_card_tree3(game: pyspiel.Game) -> CardTree3:
  """The ``CardTree3`` of three-player Kuhn poker (any ante, bet and deck of N >= 3 cards):
  ``kuhn_poker(players=3)`` or ``kuhn_poker_ante(players=3, ...)``.

  The betting as ``_betting`` lays it out; ``in_hand`` and ``contribution`` are
  ``KuhnRules.in_hand`` and ``KuhnRules.contributions`` of each terminal history.

  Raises:
    ValueError: as ``kuhn_rules3``.
  """
  rules = kuhn_rules3(game)
  histories, terminals, child, node_player = _betting(rules)
  in_hand = np.array([[p in rules.in_hand(z) for p in range(rules.num_players)]
                      for z in terminals])
  contribution = np.array([rules.contributions(z) for z in terminals], dtype=np.float64)

  def state(node: int, card: int) -> pyspiel.State:
    return smallest_state(game, rules, histories[node], card)

  return CardTree3(game=game, histories=histories, node_player=node_player, child=child,
                   terminals=terminals, in_hand=in_hand, contribution=contribution,
                   num_cards=rules.deck_size, state=state)


def _card_tree(game: pyspiel.Game) -> Optional[AnyCardTree]:
  """The card tree of two-player Kuhn poker (either rule set) or three-player Kuhn poker
  (standard rules; ``kuhn_poker_ante`` refuses simplified ones for three players), else None."""
  rules = kuhn_poker_ante.rules_of(game, num_players=None)
  if rules is None or rules.num_players > 3:
    return None
  return card_tree(game, rules) if rules.num_players == 2 else kuhn_card_tree3(game)


# One entry for OpenSpiel's kuhn_poker and for kuhn_poker_ante: equal rules give equal trees.
KUHN_SHORTCUTS = game_shortcuts.GameShortcuts(
    tree_fields=_tree_fields, public_beliefs=_public_beliefs, shape=_shape,
    terminal_utility=_terminal_utility, card_tree=_card_tree)
for _name in ("kuhn_poker", kuhn_poker_ante.SHORT_NAME):
  game_shortcuts.register(_name, KUHN_SHORTCUTS)
