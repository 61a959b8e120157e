"""Tests of ReBeL's value layout: one value per player and card (algorithms/rebel/learning/
value_network.py, ``LeafDomain.outputs == "infostate"``), its training, and its use in the agent.

References: brute-force loops over the deals for the targets and features; PyTorch's forward pass
for the numpy evaluation; the exact-leaf agent (``ReBeLAgent(game)``) for the perfect value
function of this layout (``InfostateProjection`` of the exact leaf solver), whose counterfactual
values equal the exact ones up to the trembles (module docstring of value_network.py).
"""

import numpy as np
import pyspiel
import pytest

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.learning.bootstrap import BootstrapSelfPlay
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.dataset import sample_beliefs
from algorithms.rebel.learning.self_play import SelfPlayOptions
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.value_network import InfostateProjection
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.leaves import solvers
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

DECK_4 = "kuhn_poker_ante(deck_size=4)"


def _domain(game_string: str = DECK_4, depth: int = 1):
  return cut_of(pyspiel.load_game(game_string), depth, outputs="infostate")


def _brute_force_targets(domain, beliefs, values):
  """V_i(c) = sum_{d: c_i(d) = c} beta(d) u_i(d) / sum_{d: c_i(d) = c} beta(d), loop by loop."""
  deals, deck = domain.rules.deals(), domain.rules.deck_size
  out = np.zeros((len(beliefs), 2 * deck))
  defined = np.zeros_like(out, dtype=bool)
  for n in range(len(beliefs)):
    for i in (0, 1):
      for card in range(deck):
        mass = sum(beliefs[n, d] for d, deal in enumerate(deals) if deal[i] == card)
        total = sum(beliefs[n, d] * values[n, d, i] for d, deal in enumerate(deals)
                    if deal[i] == card)
        defined[n, i * deck + card] = mass > 0
        out[n, i * deck + card] = total / mass if mass > 0 else 0.0
  return out, defined


def test_targets_are_each_players_conditional_expectations():
  _, domain = _domain()
  rng = np.random.default_rng(0)
  beliefs = rng.dirichlet(np.ones(domain.num_deals), size=4)
  beliefs[0, domain.deal_cards[:, 0] == 2] = 0.0  # Player 0's card 2 without mass.
  beliefs[0] /= beliefs[0].sum()
  per_player = rng.normal(size=(4, domain.num_deals, 2))
  expected, expected_defined = _brute_force_targets(domain, beliefs, per_player)
  units = np.array([1.0, 2.0, 3.0, 4.0])
  targets, defined = domain.targets(beliefs, per_player, units)
  np.testing.assert_allclose(targets, expected / units[:, None], atol=1e-12)
  np.testing.assert_array_equal(defined, expected_defined)
  assert not defined[0, 2] and defined[0].sum() == 2 * 4 - 1
  # Player 0's values alone: player 1's are minus them (zero-sum).
  zero_sum, _ = domain.targets(beliefs, per_player[..., 0], np.ones(4))
  expected, _ = _brute_force_targets(domain, beliefs, np.stack([per_player[..., 0],
                                                                -per_player[..., 0]], -1))
  np.testing.assert_allclose(zero_sum, expected, atol=1e-12)


def test_features_and_outputs_are_per_player_and_card():
  tree, domain = _domain()
  deck = domain.rules.deck_size
  assert (domain.num_outputs, domain.input_size) == (2 * deck, len(tree.leaves) + 2 * deck)
  beliefs = np.random.default_rng(1).dirichlet(np.ones(domain.num_deals), size=3)
  features = domain.features(np.array([0, 1, 0]), beliefs)
  for i in (0, 1):
    for card in range(deck):
      np.testing.assert_allclose(features[:, len(tree.leaves) + i * deck + card],
                                 beliefs[:, domain.deal_cards[:, i] == card].sum(axis=1),
                                 atol=1e-6)
  outputs = np.arange(3 * 2 * deck, dtype=float).reshape(3, 2 * deck)
  per_deal = domain.per_deal(outputs)
  assert per_deal.shape == (3, domain.num_deals, 2)
  for d, (c0, c1) in enumerate(domain.rules.deals()):
    np.testing.assert_array_equal(per_deal[:, d], outputs[:, [c0, deck + c1]])


def test_projection_of_exact_values_keeps_the_pbs_value_and_the_card_values():
  # InfostateProjection of the exact LP: sum_h beta(h) u_i(h) is unchanged for each player and
  # card (the conditional expectation keeps each card's total), so the PBS value too.
  tree, domain = _domain()
  exact = ExactValueFunction(solvers.SequenceFormLPSolver())
  projection = InfostateProjection(exact)
  rng = np.random.default_rng(2)
  for leaf in tree.leaves:
    for belief in sample_beliefs(leaf, 3, rng):
      roots = belief[leaf.deals]
      u0 = exact.root_values(leaf, roots)
      projected = projection.root_values(leaf, roots)
      cards = domain.deal_cards[leaf.deals]
      for i, u in ((0, u0), (1, -u0)):
        for card in range(domain.rules.deck_size):
          mine = cards[:, i] == card
          assert roots[mine] @ projected[mine, i] == pytest.approx(roots[mine] @ u[mine],
                                                                    abs=1e-12)


@pytest.mark.parametrize("game_string,tolerance", [("kuhn_poker", 1e-12),
                                                   ("kuhn_poker_ante(ante=2.0)", 1e-12),
                                                   (DECK_4, 1e-4)])
def test_perfect_infostate_values_reproduce_the_exact_agent(game_string, tolerance):
  # CFR-D's leaf beliefs come from the current reaches, so information-set values give the
  # trunk the exact counterfactual values up to the trembles (value_network's docstring): the
  # agent with the projection of the exact leaves at EVERY leaf, one-player ones included, plays
  # as the default exact-leaf agent. Measured: equal to rounding on the 3-card games (1e-15);
  # 6.5e-5 with 4 cards, where a tremble's mass (1e-6 of a reach) weights a deal differently in
  # the belief and in the opponent's counterfactual weight (value_network's docstring).
  game = pyspiel.load_game(game_string)
  exact = ReBeLAgent(game, lookahead=1, iterations=30)
  perfect = ValueFunctionLeafSolver(InfostateProjection(ExactValueFunction(exact_leaf_solver())),
                                    one_player_exact=False, split_ties=splits_ties())
  learned = ReBeLAgent(game, lookahead=1, iterations=30, leaf_solver=perfect)
  reference = behaviour_strategy(exact, max_searches=5_000).policy
  ours = behaviour_strategy(learned, max_searches=5_000).policy
  assert np.abs(reference - ours).max() < tolerance


torch = pytest.importorskip("torch")


def test_numpy_equals_torch_and_the_file_keeps_the_layout(tmp_path):
  from algorithms.rebel.learning.training import Trainer  # pylint: disable=import-outside-toplevel
  tree, domain = _domain()
  rng = np.random.default_rng(3)
  beliefs = np.concatenate([sample_beliefs(leaf, 20, rng) for leaf in tree.leaves])
  index = np.repeat(np.arange(len(tree.leaves)), 20)
  data = Dataset(leaf_index=index, beliefs=beliefs,
                 values=rng.normal(size=(len(index), domain.num_deals, 2)))
  trainer = Trainer(domain, TrainingOptions(hidden=(16, 16), steps=20, batch_size=16, seed=1))
  trainer.fit(data, 20)
  model = trainer.model()
  predicted = model.predict(index, beliefs)
  assert predicted.shape == (len(index), domain.num_deals, 2)
  np.testing.assert_allclose(predicted, trainer.torch_predict(index, beliefs), atol=1e-5)
  path = tmp_path / "model.npz"
  model.save(str(path))
  loaded = PBSValueFunction.load(str(path), pyspiel.load_game(DECK_4), 1)
  assert loaded.domain.outputs == "infostate"
  np.testing.assert_array_equal(loaded.predict(index, beliefs), predicted)
  leaf = tree.leaves[0]
  assert loaded.root_values(leaf, beliefs[0, leaf.deals]).shape == (leaf.num_roots, 2)


def test_trains_and_answers_at_100_cards():
  # 9,900 deals: the per-deal layout would have 9,900 inputs and outputs; this one 2 + 200 in,
  # 200 out. The targets are the card values of random per-deal values (only the shapes and the
  # fit are under test): the loss falls, and the model answers a leaf with (R, 2) finite values.
  from algorithms.rebel.learning.training import Trainer  # pylint: disable=import-outside-toplevel
  tree, domain = _domain("kuhn_poker_ante(deck_size=100)")
  assert (domain.input_size, domain.num_outputs) == (len(tree.leaves) + 200, 200)
  rng = np.random.default_rng(4)
  beliefs = np.concatenate([sample_beliefs(leaf, 8, rng) for leaf in tree.leaves])
  index = np.repeat(np.arange(len(tree.leaves)), 8)
  cards = domain.deal_cards[:, 0] / 100.0
  values = np.stack([np.tile(cards, (len(index), 1)), -np.tile(cards, (len(index), 1))], -1)
  trainer = Trainer(domain, TrainingOptions(hidden=(32, 32), batch_size=16, seed=0))
  first = trainer.fit(Dataset(leaf_index=index, beliefs=beliefs, values=values), 20)
  last = trainer.fit(Dataset(leaf_index=index, beliefs=beliefs, values=values), 200)
  assert last < 0.2 * first
  leaf = tree.leaves[0]
  answer = trainer.model().root_values(leaf, beliefs[0, leaf.deals])
  assert answer.shape == (9_900, 2) and np.all(np.isfinite(answer))


def test_self_play_with_the_network_at_every_leaf_asks_no_exact_solver(monkeypatch):
  # Algorithm 1 with the network at every leaf: no exact label anywhere (the exact solver is
  # never called), the targets are each player's values, and the searches without leaves (the
  # end of the game) give zero-sum targets.
  def refuse(*_args, **_kwargs):
    raise AssertionError("an exact leaf solver was asked")
  monkeypatch.setattr(solvers.SequenceFormLPSolver, "__call__", refuse)
  run = BootstrapSelfPlay(pyspiel.load_game("kuhn_poker"), 1,
                          SelfPlayOptions(search_iterations=5, episodes_per_round=6,
                                          train_steps=5),
                          TrainingOptions(hidden=(8, 8), batch_size=16), outputs="infostate",
                          one_player_exact=False)
  assert not run.agent(5).leaf_solver.one_player_exact
  run.run_round()
  buffer = run.buffers[2]  # Leaf pb: its searches reach the end of the game.
  assert buffer.values.shape[1:] == (6, 2)
  np.testing.assert_allclose(buffer.values[..., 1], -buffer.values[..., 0], atol=1e-12)
