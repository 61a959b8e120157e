"""Tests of each player's private states at a cut's roots (algorithms/rebel/public_views/
private_states.py, ``PublicTree.private_labels``, ``LeafSubgame.private_states``) and of ReBeL's
value layout on them beyond Kuhn poker (algorithms/rebel/learning/leaf_domain.py) on Liar's Dice.

References: OpenSpiel's ``liars_dice`` histories (chance action k rolls face k + 1; player 0's
dice are rolled first, then player 1's) for the private states; ``KuhnRules.deals()`` for Kuhn
poker's deals; the exact-leaf agent (``ReBeLAgent(game)``, the LP at every leaf) for the perfect
value function of the "infostate" layout (``InfostateProjection`` of the exact values), exact for
CFR-D up to the trembles (value_network.py's docstring).
"""

import itertools

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.rebel import public_views
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.learning.leaf_domain import LeafDomain
from algorithms.rebel.learning.value_network import InfostateProjection
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.leaves import forest
from algorithms.rebel.leaves import solvers
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.public_tree import PublicTree
from spiel_games import kuhn_poker_ante

LD_1X2 = "liars_dice(numdice=1,dice_sides=2)"
LD_1X3 = "liars_dice(numdice=1,dice_sides=3)"
LD_1X4 = "liars_dice(numdice=1,dice_sides=4)"
LD_2X2 = "liars_dice(numdice=2,dice_sides=2)"


def _dice(history, numdice, player):
  """Player's dice faces from an OpenSpiel liars_dice history, sorted, as OpenSpiel's string."""
  own = history[player * numdice:(player + 1) * numdice]
  return "".join(str(a + 1) for a in sorted(own))


@pytest.mark.parametrize("game_string,numdice,faces", [(LD_1X2, 1, 2), (LD_1X4, 1, 4),
                                                       (LD_2X2, 2, 2)])
def test_liars_dice_private_states_are_each_players_dice(game_string, numdice, faces):
  tree = PublicTree.from_game(pyspiel.load_game(game_string), 2)
  # 1 die: the faces "1".."f"; 2 dice of 2 faces: the sorted pairs "11", "12", "22".
  expected = tuple("".join(map(str, dice)) for dice in
                   itertools.combinations_with_replacement(range(1, faces + 1), numdice))
  assert tree.private_labels == (expected, expected)
  for leaf in tree.leaves:
    for r, node in enumerate(leaf.root_nodes):
      history = tree.tree.history(int(node))
      for i in (0, 1):
        assert tree.private_labels[i][leaf.private_states[r, i]] == _dice(history, numdice, i)
      np.testing.assert_array_equal(tree.deal_states[leaf.deals[r]], leaf.private_states[r])
  # Liar's Dice deals with replacement: every pair of private states is a deal.
  assert len(tree.deal_states) == len(expected) ** 2


def test_kuhn_private_states_are_the_cards_and_the_deals_the_rules():
  # Kuhn poker's cut numbers private states in card order and deals as KuhnRules.deals(), so the
  # models and data of the "deal" layout keep their meaning.
  for game_string, depth in (("kuhn_poker", 1), ("kuhn_poker_ante(deck_size=13)", 2)):
    game = pyspiel.load_game(game_string)
    tree = PublicTree.from_game(game, depth)
    rules = kuhn_poker_ante.rules_of(game)
    cards = tuple(str(c) for c in range(rules.deck_size))
    assert tree.private_labels == (cards, cards)
    assert [tuple(d) for d in tree.deal_states] == list(rules.deals())
    for leaf in tree.leaves:
      for r, node in enumerate(leaf.root_nodes):
        assert tuple(leaf.private_states[r]) == tuple(tree.tree.history(int(node))[:2])


def test_private_states_that_are_not_the_information_states_are_refused(monkeypatch):
  # A view that gives every history the same private state: at a public state of 1x2f two roots
  # in different information sets of a player would share its label; the cut checks and refuses.
  monkeypatch.setattr(public_views, "private_state_function",
                      lambda game: lambda history: ("same", "same"))
  with pytest.raises(ValueError, match=r"^liars_dice: player 0's private states at the cut's "
                     r"roots are not its information states less the public state"):
    PublicTree.from_game(pyspiel.load_game(LD_1X2), 2)


def test_the_deal_layout_and_stakes_stay_kuhn_only():
  tree = PublicTree.from_game(pyspiel.load_game(LD_1X2), 2)
  for kwargs in ({"outputs": "deal"}, {"outputs": "infostate", "stakes": (1.0, 2.0)}):
    with pytest.raises(ValueError, match=r"^the 'deal' layout and stakes families are for Kuhn "
                       r"poker \(kuhn_poker, kuhn_poker_ante\); liars_dice.* takes "
                       r"outputs='infostate' without stakes$"):
      LeafDomain.of(tree, **kwargs)


def test_infostate_domain_of_liars_dice():
  # 1x4f at depth 2: 28 leaves (test_public_views), 4 faces per player, 16 deals; input
  # 28 + 4 + 4, output 4 + 4; unit 1 (a Liar's Dice payoff is +-1).
  _, domain = cut_of(pyspiel.load_game(LD_1X4), 2, outputs="infostate")
  assert (domain.num_deals, domain.input_size, domain.num_outputs, domain.unit) == \
      (16, 36, 8, 1.0)
  beliefs = np.random.default_rng(0).dirichlet(np.ones(16), size=2)
  features = domain.features(np.array([0, 27]), beliefs)
  for i in (0, 1):
    for face in range(4):
      np.testing.assert_allclose(features[:, 28 + 4 * i + face],
                                 beliefs[:, domain.deal_cards[:, i] == face].sum(axis=1),
                                 atol=1e-6)


@pytest.mark.parametrize("game_string,iterations,policy_tolerance",
                         [(LD_1X2, 8, 1e-5), (LD_1X3, 4, None)])
def test_perfect_infostate_values_reproduce_the_exact_agent_on_liars_dice(
    game_string, iterations, policy_tolerance):
  # As test_infostate_values.py on Kuhn poker: the exact leaf values projected on each player's
  # information-set values, at EVERY leaf (one-player ones too), give CFR-D the exact
  # counterfactual values up to the trembles, so the agent (every draw enumerated) is the
  # exact-leaf agent. Measured: on 1x2f (T = 8) the behaviour policies differ by at most 2.7e-6.
  # On 1x3f (T = 4) the exploitabilities (OpenSpiel's) differ by 2e-7, but player 1's policy at
  # a few information sets (e.g. die 3 after bids 1-1, 1-3, 2-1) by up to 0.41: there its
  # actions tie exactly, regret matching turns a tremble-sized difference of the values (1e-7)
  # into another iterate, and the choice between tied actions leaves the exploitability as it
  # is (without trembles the exploitabilities differ by 4e-3: the trembles are needed).
  game = pyspiel.load_game(game_string)
  exact = ReBeLAgent(game, lookahead=2, iterations=iterations)
  perfect = ValueFunctionLeafSolver(InfostateProjection(ExactValueFunction(exact_leaf_solver())),
                                    one_player_exact=False, split_ties=splits_ties())
  projected = ReBeLAgent(game, lookahead=2, iterations=iterations, leaf_solver=perfect)
  reference = behaviour_strategy(exact, max_searches=5_000).policy
  ours = behaviour_strategy(projected, max_searches=5_000).policy
  assert exploitability.exploitability(game, tabular_policy(projected, ours)) == pytest.approx(
      exploitability.exploitability(game, tabular_policy(exact, reference)), abs=1e-5)
  if policy_tolerance is not None:
    assert np.abs(reference - ours).max() < policy_tolerance


torch = pytest.importorskip("torch")


def test_self_play_on_liars_dice_asks_no_exact_solver(monkeypatch, tmp_path):
  # Algorithm 1 with the network at every leaf of liars_dice 1x2f: no exact leaf solver is ever
  # called, the targets are each player's values per deal (4 deals), and the end-of-game searches
  # (no leaf below) give zero-sum targets.
  from algorithms.rebel.learning.bootstrap import BootstrapSelfPlay  # noqa: PLC0415
  from algorithms.rebel.learning.self_play import SelfPlayOptions  # noqa: PLC0415
  from algorithms.rebel.learning.training import TrainingOptions  # noqa: PLC0415

  def refuse(*_args, **_kwargs):
    raise AssertionError("an exact leaf solver was asked")
  for cls, name in ((solvers.SequenceFormLPSolver, "__call__"), (solvers.CFRLeafSolver, "__call__"),
                    (forest.ForestCFRLeafSolver, "__call__"),
                    (forest.ForestCFRLeafSolver, "solve_leaves")):
    monkeypatch.setattr(cls, name, refuse)
  run = BootstrapSelfPlay(pyspiel.load_game(LD_1X2), 2,
                          SelfPlayOptions(search_iterations=5, episodes_per_round=32,
                                          train_steps=5, seed=3),
                          TrainingOptions(hidden=(8, 8), batch_size=16), outputs="infostate",
                          weighting="linear_cfr")
  assert run.depths == [2, 4] and run.agent(5).weighting == "linear_cfr"
  new = run.run_round()
  assert sum(new.values()) > 0
  for depth in run.depths:
    buffer = run.buffers[depth]
    if buffer is None:
      continue
    assert buffer.beliefs.shape[1] == 4 and buffer.values.shape[1:] == (4, 2)
    np.testing.assert_allclose(buffer.beliefs.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(np.abs(buffer.values) <= 1.0 + 1e-9)  # Liar's Dice pays +-1.
  # At depth 4 of 1x2f at most one more bid and the call remain: no leaf below its searches.
  assert run.buffers[4] is not None
  np.testing.assert_allclose(run.buffers[4].values[..., 1], -run.buffers[4].values[..., 0],
                             atol=1e-12)
  model = run.models()[2]
  leaf = PublicTree.from_game(pyspiel.load_game(LD_1X2), 2).leaves[0]
  values = model.root_values(leaf, np.full(leaf.num_roots, 1.0 / leaf.num_roots))
  assert values.shape == (leaf.num_roots, 2) and np.all(np.isfinite(values))
  # The file keeps the model: loaded for its game and cut, it answers the same values.
  model.save(str(tmp_path / "model.npz"))
  loaded = PBSValueFunction.load(str(tmp_path / "model.npz"), pyspiel.load_game(LD_1X2), 2)
  np.testing.assert_array_equal(loaded.root_values(leaf, np.full(4, 0.25)), values)
  with pytest.raises(ValueError, match="model is for game"):
    PBSValueFunction.load(str(tmp_path / "model.npz"), pyspiel.load_game(LD_1X3), 2)
