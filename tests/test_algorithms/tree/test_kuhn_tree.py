"""Kuhn trees generated from the rules (algorithms/tree/kuhn_tree.py) against the walked trees.

The reference is ``GameTree``'s walk through OpenSpiel's state API (``game_tree._walk`` and
``_index``, which ``tests/test_algorithms/tree/test_game_tree.py`` checks against OpenSpiel's own
states, values and ``TabularPolicy``): every field must be equal, with the same dtype and shape,
floats included.
"""

import dataclasses
import itertools

import numpy as np
import pyspiel
import pytest

import algorithms
from algorithms.tree import game_tree
from algorithms.tree import kuhn_tree
from algorithms.tree.game_tree import GameTree
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games import kuhn_poker_ante

SETTINGS = [
    "kuhn_poker", "kuhn_poker(players=3)", "kuhn_poker(players=4)",  # OpenSpiel's C++ game.
    "kuhn_poker_ante", "kuhn_poker_ante(ante=0.3,bet=0.7)", "kuhn_poker_ante(deck_size=2)",
    "kuhn_poker_ante(deck_size=4,ante=1.7,bet=0.1)", "kuhn_poker_ante(deck_size=5,bet=2.5)",
    "kuhn_poker_ante(deck_size=6)", "kuhn_poker_ante(deck_size=12)",
    "kuhn_poker_ante(simplified=true)", "kuhn_poker_ante(simplified=true,deck_size=5,ante=0.7)",
    "kuhn_poker_ante(players=3)", "kuhn_poker_ante(players=3,deck_size=3)",
    "kuhn_poker_ante(players=3,deck_size=5,ante=0.3,bet=0.7)",
    "kuhn_poker_ante(players=4,deck_size=4,ante=2.5)",
]


def assert_same_fields(generated, walked, where):
  for field in dataclasses.fields(walked):
    name = f"{where}.{field.name}"
    mine, theirs = getattr(generated, field.name), getattr(walked, field.name)
    if isinstance(theirs, np.ndarray):
      assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, name
      np.testing.assert_array_equal(mine, theirs, err_msg=name)
    elif field.name == "players" or field.name == "_representative_node":
      assert len(mine) == len(theirs), name
      for p, (a, b) in enumerate(zip(mine, theirs)):
        if isinstance(b, np.ndarray):
          np.testing.assert_array_equal(a, b, err_msg=f"{name}[{p}]")
        else:
          assert_same_fields(a, b, f"{name}[{p}]")
    elif field.name != "game":
      assert mine == theirs, name


@pytest.mark.parametrize("game_string", SETTINGS)
def test_generated_tree_equals_walked_tree(game_string):
  game = pyspiel.load_game(game_string)
  generated = GameTree.from_game(game)
  walked = game_tree._index(game, game_tree._walk(game, 10**6))  # pylint: disable=protected-access
  assert generated.game is game
  assert_same_fields(generated, walked, game_string)
  assert generated.chance_reach.dtype == np.float64
  # What the tree hands to OpenSpiel: the TabularPolicy and replayed states.
  tabular = generated.tabular_policy()
  assert tabular.state_lookup == walked.tabular_policy().state_lookup
  node = int(generated.terminal_node[-1])
  assert generated.state_at(node).returns() == generated.utility[-1].tolist()


def test_generated_tree_respects_max_nodes():
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=5)")
  # 1 + 5 (1 + 4 * 9) = 186 histories (the deal levels times the 9-node betting template).
  with pytest.raises(ValueError, match=r"tree has 186 histories, more than max_nodes=100; "
                     r"about 0\.0 GiB .*engine='range'"):
    GameTree.from_game(game, max_nodes=100)
  assert GameTree.from_game(game, max_nodes=186).num_nodes == 186


def test_the_large_deck_hint_is_true_for_a_class_without_an_engine_option():
  """The refusal is shared by every class that builds a tree; it names the solvers that take
  engine='range' instead of telling the caller to pass an option it may not have."""
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=3000)")
  for build in (algorithms.ExternalSamplingSolver, algorithms.TreeEvaluator):
    with pytest.raises(ValueError) as refused:
      build(game)
    message = str(refused.value)
    assert "the full-width CFR solvers (CFRSolver, CFRPlusSolver, DCFRSolver" in message
    assert "take engine='range'" in message
    with pytest.raises(TypeError):  # The class itself has no such option.
      build(game, engine="range")


@pytest.mark.parametrize("game_string", [
    "kuhn_poker", "kuhn_poker_ante(deck_size=5,ante=0.3,bet=0.7)",
    "kuhn_poker_ante(simplified=true,ante=1.7,bet=0.1)", "kuhn_poker(players=3)",
    "kuhn_poker_ante(players=3,deck_size=4,ante=0.75,bet=1.25)"])
def test_card_tree_terminals_give_the_rules_payoffs(game_string):
  # The one terminal form the range engine reads of either card tree (in_hand, contribution):
  # the highest card in the hand gains the others' entries, every other player loses its own.
  # Reference: KuhnRules.returns of each terminal history under every order of the cards.
  game = pyspiel.load_game(game_string)
  rules = kuhn_poker_ante.rules_of(game, num_players=None)
  tree = kuhn_tree.KUHN_SHORTCUTS.card_tree(game)
  terminals = sorted(rules.terminal_histories, key=lambda h: (len(h), h))
  assert tree.num_players == rules.num_players and tree.in_hand.shape == (len(terminals),
                                                                          rules.num_players)
  for t, history in enumerate(terminals):
    for cards in itertools.permutations(range(rules.num_players)):
      winner = max(np.flatnonzero(tree.in_hand[t]), key=lambda p: cards[p])
      loses = tree.contribution[t]
      payoffs = [sum(loses) - loses[p] if p == winner else -loses[p]
                 for p in range(rules.num_players)]
      assert payoffs == pytest.approx(rules.returns(history, cards), abs=1e-15), (history, cards)
