"""The game-shortcuts seam (algorithms/tree/game_shortcuts.py): generic code consults the registry
and knows no game by name.

References: the walk through OpenSpiel's state API (``game_tree._walk`` / ``_index``) for the
trees, OpenSpiel's exploitability for the batched solver, and the modules' own import statements
for "knows no game".
"""

import ast
import dataclasses

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.cfr import engine_choice
from algorithms.rebel.public_tree import PublicTree
from algorithms.tree import game_shortcuts
from algorithms.tree import game_tree
from algorithms.tree import kuhn_tree
from algorithms.tree.card_tree import CardTree
from algorithms.tree.card_tree3 import CardTree3
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
import helpers
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games.kuhn_poker_ante import game_from_rules
from spiel_games.kuhn_rules import KuhnRules

# The generic modules: they work on any game and must reach game-specific code only through the
# registry.
GENERIC = ("algorithms/tree/game_tree.py", "algorithms/tree/tree_layout.py",
           "algorithms/tree/sequence_form.py", "algorithms/rebel/public_tree.py",
           "algorithms/cfr/batched_solver.py", "algorithms/cfr/cfr_engine.py",
           "algorithms/cfr/solvers.py", "algorithms/cfr/tree_exploitability.py",
           "algorithms/cfr/engine_choice.py", "algorithms/cfr/solver_backends.py",
           "algorithms/cfr/range_engine.py", "algorithms/cfr/evaluation.py",
           "experiments/harness/solver_registry.py", "experiments/harness/solver_runs.py")


def _walked(game):
  return game_tree._index(game, game_tree._walk(game, 10**6))  # pylint: disable=protected-access


@pytest.mark.parametrize("path", GENERIC)
def test_generic_modules_import_no_game_specific_code(path):
  tree = ast.parse((helpers.REPO / path).read_text())
  names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
  names |= {f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            for a in n.names}
  specific = sorted(n for n in names if "kuhn" in n)
  assert not specific, f"{path} imports game-specific code: {specific}"


def test_kuhn_registers_one_entry_for_both_names():
  for name in ("kuhn_poker", "kuhn_poker(players=3)", "kuhn_poker_ante(deck_size=5)"):
    assert game_shortcuts.for_game(pyspiel.load_game(name)) is kuhn_tree.KUHN_SHORTCUTS
  assert game_shortcuts.for_game(pyspiel.load_game("leduc_poker")) is None


def test_a_registered_entry_is_consulted_and_none_falls_back_to_the_walk(monkeypatch):
  # A new game adds an entry: here leduc_poker, whose "shortcut" is the walk itself, counted.
  game = pyspiel.load_game("leduc_poker")
  calls = []

  def tree_fields(g, max_nodes):
    calls.append(max_nodes)
    fields = {f.name: getattr(_walked(g), f.name) for f in dataclasses.fields(GameTree)}
    return fields if max_nodes > 10 else None  # None: not covered, the walk runs instead.

  entry = game_shortcuts.GameShortcuts(tree_fields=tree_fields, public_beliefs=lambda g: None,
                                       shape=lambda g: None, terminal_utility=None)
  monkeypatch.setitem(game_shortcuts._REGISTRY, "leduc_poker", entry)  # pylint: disable=protected-access
  tree = GameTree.from_game(game)
  assert calls == [game_tree.DEFAULT_MAX_NODES]
  np.testing.assert_array_equal(tree.utility, _walked(game).utility)
  with pytest.raises(ValueError, match="more than max_nodes=10"):  # The walk refuses.
    GameTree.from_game(game, max_nodes=10)
  assert calls == [game_tree.DEFAULT_MAX_NODES, 10]


def test_leaf_beliefs_come_from_the_registry():
  # kuhn_poker: the referee game's PublicBeliefState, uniform over the deals under "p" after a
  # uniform trunk; a game without registered beliefs gets a one-line error.
  kuhn = PublicTree.cut(TreeArrays(GameTree.from_game(pyspiel.load_game("kuhn_poker"))), 1)
  leaf = kuhn.leaves[0]
  pbs = leaf.pbs(np.full(leaf.num_roots, 1.0 / leaf.num_roots))
  assert pbs.belief == tuple([pbs.belief[0]] * 6) and sum(pbs.belief) == 1
  leduc = PublicTree.cut(TreeArrays(GameTree.from_game(pyspiel.load_game("leduc_poker"))), 1)
  assert leduc.leaves[0].beliefs is None  # Its deals are the cut's (public_views.private_states).
  with pytest.raises(ValueError, match="registered public beliefs"):
    leduc.leaves[0].pbs(np.ones(leduc.leaves[0].num_roots))


def test_batched_payoffs_from_the_registry_equal_the_trees():
  # Games of one registered shape get their payoffs without a tree; they equal the tree's, and
  # the batch's exploitabilities equal OpenSpiel's on each game.
  games = [game_from_rules(KuhnRules(ante=a, bet=b, simplified=True))
           for a, b in ((1.0, 1.0), (0.5, 2.0), (3.0, 0.75))]
  for g in games:
    np.testing.assert_array_equal(kuhn_tree.KUHN_SHORTCUTS.terminal_utility(g),
                                  GameTree.from_game(g).utility)
  batch = algorithms.BatchedCFRPlusSolver(games).solve(40)
  for i, g in enumerate(games):
    assert batch.exploitabilities()[i] == pytest.approx(
        exploitability.exploitability(g, batch.average_policy(i)), abs=1e-12)


# Pairs of rules that differ in one field that is not a stake, and the number of histories of
# each walked tree (the walk, ``game_tree._walk``, is the reference). With n cards, N players and
# a betting template of S nodes a Kuhn tree has S_0 histories, S_k = 1 + (n - k) S_{k+1} and
# S_N = S (kuhn_tree's docstring).
STRUCTURAL_PAIRS = {
    # The deal: 1 + 3 (1 + 2 * 9) = 58 against 1 + 4 (1 + 3 * 9) = 113 (template of 9 nodes).
    "deck_size": (KuhnRules(), KuhnRules(deck_size=4), (58, 113)),
    # The betting: two players' 9-node template (5 terminals) against three players' 25-node
    # one (13 terminals): 113 against 1 + 4 (1 + 3 (1 + 2 * 25)) = 617.
    "num_players": (KuhnRules(deck_size=4), KuhnRules(deck_size=4, num_players=3), (113, 617)),
    # Simplified: player 0's pass ends the hand (terminals p, bp, bb: a 5-node template),
    # 1 + 3 (1 + 2 * 5) = 34 histories against 58.
    "simplified": (KuhnRules(), KuhnRules(simplified=True), (58, 34)),
}


def _tree_without_payoffs(rules):
  """The walked tree's fields but the payoffs (utility, utility_sum) and the game object."""
  walked = _walked(game_from_rules(rules))
  return {f.name: getattr(walked, f.name) for f in dataclasses.fields(GameTree)
          if f.name not in ("game", "utility", "utility_sum")}


def _same_fields(a, b):
  return a.keys() == b.keys() and all(
      np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else repr(a[k]) == repr(b[k])
      for k in a)


def test_the_batching_key_is_every_field_of_the_rules_but_the_stakes():
  # Derived, not listed: every structural field is in the key, and each has a pair below.
  names = {f.name for f in dataclasses.fields(KuhnRules)} - kuhn_tree.STAKES
  assert {name for name, _ in kuhn_tree.shape_key(KuhnRules())} == names
  assert set(STRUCTURAL_PAIRS) == names, "a structural field of KuhnRules without a test pair"

  # A rule set with a new structural parameter gets it into the key without an edit.
  @dataclasses.dataclass(frozen=True)
  class WithRaises(KuhnRules):
    max_raises: int = 0

  assert kuhn_tree.shape_key(WithRaises(max_raises=1)) != kuhn_tree.shape_key(WithRaises())


@pytest.mark.parametrize("field", sorted(STRUCTURAL_PAIRS))
def test_structurally_different_games_never_share_a_batch(field):
  rules, other, histories = STRUCTURAL_PAIRS[field]
  games = [game_from_rules(rules), game_from_rules(other)]
  trees = [_tree_without_payoffs(rules), _tree_without_payoffs(other)]
  assert tuple(len(tree["node_parent"]) for tree in trees) == histories
  shape = kuhn_tree.KUHN_SHORTCUTS.shape
  assert shape(games[0]) != shape(games[1])
  with pytest.raises(ValueError, match="share one tree shape"):
    algorithms.BatchedCFRSolver(games, engine="flat")


@pytest.mark.parametrize("rules", [KuhnRules(deck_size=4), KuhnRules(simplified=True),
                                   KuhnRules(num_players=3)])
def test_games_that_differ_only_in_their_stakes_share_a_batch(rules):
  other = dataclasses.replace(rules, ante=0.5, bet=2.0)
  assert _same_fields(_tree_without_payoffs(rules), _tree_without_payoffs(other))
  shape = kuhn_tree.KUHN_SHORTCUTS.shape
  assert shape(game_from_rules(rules)) == shape(game_from_rules(other))
  # OpenSpiel's kuhn_poker is kuhn_poker_ante's default rules: one key.
  assert shape(pyspiel.load_game("kuhn_poker")) == shape(game_from_rules(KuhnRules()))
  algorithms.BatchedCFRSolver([game_from_rules(rules), game_from_rules(other)], engine="flat")


def test_card_trees_of_two_and_three_players_come_from_the_registry_only(monkeypatch):
  two = pyspiel.load_game("kuhn_poker_ante(deck_size=13)")
  three = pyspiel.load_game("kuhn_poker_ante(players=3,deck_size=13)")
  assert type(kuhn_tree.KUHN_SHORTCUTS.card_tree(two)) is CardTree
  assert type(kuhn_tree.KUHN_SHORTCUTS.card_tree(three)) is CardTree3
  assert kuhn_tree.KUHN_SHORTCUTS.card_tree(pyspiel.load_game("kuhn_poker(players=4)")) is None
  assert algorithms.CFRSolver(three).engine_name == "range"
  # No way around the registry: with the entry's hook gone, neither game has range vectors.
  entry = dataclasses.replace(kuhn_tree.KUHN_SHORTCUTS, card_tree=lambda game: None)
  monkeypatch.setitem(game_shortcuts._REGISTRY, "kuhn_poker_ante", entry)  # pylint: disable=protected-access
  for game in (two, three):
    assert engine_choice.range_card_tree(game, "auto") is None
    assert algorithms.CFRSolver(game).engine_name == "flat"
