"""Tests of value functions for a family of stakes (algorithms/rebel/learning/value_network.py,
``LeafDomain.stakes``), their files, and the visited PBSs as data (learning/dataset.py).

References: Kuhn poker's payoff rule (every terminal payoff is 0, +-ante or +-(ante + bet), so the
game at (2 ante, 2 bet) is the game with every payoff doubled), OpenSpiel's exploitability of the
same policy at two stakes, the exact LP and the exact-leaf agent (the perfect value function),
PyTorch's forward pass. Tests that train need PyTorch (the ``learn`` extra) and are skipped
without it.
"""

import dataclasses

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.file_formats import checkpoint
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.dataset import RecordingLeafSolver
from algorithms.rebel.learning.dataset import sample_beliefs
from algorithms.rebel.learning.dataset import supervised_dataset
from algorithms.rebel.learning.dataset import visited_dataset
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.learning.value_network import deal_belief
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.tree.game_tree import GameTree
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

TORCH_REASON = "PyTorch not installed (the 'learn' extra: pip install -e '.[learn]')"
ROUNDING = 1e-12


def _game(ante, bet=1.0, deck=3):
  return pyspiel.load_game(f"kuhn_poker_ante(ante={float(ante)!r},bet={float(bet)!r},"
                           f"deck_size={deck})")


def test_payoffs_are_linear_in_the_stakes():
  # Kuhn poker's rule: every terminal payoff is 0, +-ante (showdown after two checks, a fold)
  # or +-(ante + bet) (a called bet). So (ante, bet) -> (s ante, s bet) multiplies every payoff
  # by s, and in units of ante + bet the payoffs depend on ante/bet alone.
  base = GameTree.from_game(_game(1.5, 1.0, deck=4)).utility
  assert set(np.unique(np.abs(base))) == {1.5, 2.5}
  for scale in (0.5, 2.0, 3.0):
    scaled = GameTree.from_game(_game(1.5 * scale, scale, deck=4)).utility
    np.testing.assert_allclose(scaled, scale * base, rtol=ROUNDING)
    np.testing.assert_allclose(scaled / (2.5 * scale), base / 2.5, rtol=ROUNDING)


@pytest.mark.parametrize("deck", [3, 13])
def test_exploitability_scales_with_the_stakes(deck):
  # Reference: OpenSpiel's exploitability of one fixed policy at (ante, bet) and at
  # (3 ante, 3 bet): best responses are the same (payoffs times 3), the value 3 times larger.
  rng = np.random.default_rng(0)
  small, large = _game(0.75, 1.0, deck), _game(2.25, 3.0, deck)
  policy = policy_lib.TabularPolicy(small)
  policy.action_probability_array = rng.dirichlet(np.ones(2), len(policy.states))
  assert exploitability.exploitability(large, policy) == pytest.approx(
      3 * exploitability.exploitability(small, policy), rel=1e-12)


def test_exact_agent_at_doubled_stakes_plays_the_same_and_is_twice_as_exploitable():
  # Doubling is exact in binary floating point, so the exact LP and every best response of the
  # leaves see payoffs times 2 exactly and choose the same solutions (measured: the same
  # behaviour bit for bit); the exploitability doubles.
  runs = []
  for ante, bet in ((1.5, 1.0), (3.0, 2.0)):
    agent = ReBeLAgent(_game(ante, bet), lookahead=1, iterations=10)
    behaviour = behaviour_strategy(agent)
    runs.append((behaviour.policy, TreeEvaluator(agent.arrays).exploitability(behaviour.policy)))
  np.testing.assert_array_equal(runs[0][0], runs[1][0])
  assert runs[1][1] == pytest.approx(2 * runs[0][1], rel=ROUNDING)


class ExactFamily(PBSValueFunction):
  """A "perfect" family model: the network replaced by the exact LP of the normalised game.

  At rho = ante / (ante + bet) the game in units of ante + bet is ``kuhn_poker_ante`` with ante
  rho and bet 1 - rho (the scaling fact); ``normalised_values`` returns that game's LP values at
  the leaf and belief, and ``PBSValueFunction`` does the rest: the leaf's index and stakes, the
  deal belief, the unit ante + bet, the restriction to the leaf's deals.
  """

  def __init__(self, game, depth, stakes):
    _, domain = cut_of(game, depth, stakes)
    super().__init__(domain, (), {"w_out": np.zeros((domain.num_deals, domain.input_size)),
                                  "b_out": np.zeros(domain.num_deals)})
    self.lp = SequenceFormLPSolver()
    self.trees = {}

  def normalised_values(self, leaf_index, beliefs, stakes):
    out = np.zeros_like(beliefs)
    for k, (index, belief, (ante, bet)) in enumerate(zip(leaf_index, beliefs, stakes)):
      rho = ante / (ante + bet)
      if rho not in self.trees:
        game = _game(rho, 1 - rho, self.domain.rules.deck_size)
        self.trees[rho] = cut_of(game, self.domain.depth_limit)[0]
      leaf = self.trees[rho].leaves[index]
      out[k, leaf.deals] = self.lp(leaf, belief[leaf.deals]).root_values
    return out


@pytest.mark.parametrize("deck,lookahead,iterations", [
    (3, 1, 10), (3, 2, 30), pytest.param(13, 1, 10, marks=pytest.mark.slow), (13, 2, 30)])
def test_perfect_family_model_is_the_exact_agent(deck, lookahead, iterations):
  # Reference: the exact-leaf agent. Stakes whose ante + bet is a power of 2 (ratios 3, 1 and
  # 1/3), so that rho, 1 - rho and the rescaling are exact in floating point and every tie of
  # the leaf solvers breaks the same way (at ante 1.5, bet 1 the unit 2.5 is not: measured, a
  # best response at pb flips on 3 cards at lookahead 2). The LP vertices are then the same,
  # and the behaviour strategies agree to rounding (measured: bit for bit).
  for ante, bet in ((3.0, 1.0), (1.0, 1.0), (0.5, 1.5)):
    game = _game(ante, bet, deck)
    models = [ExactFamily(game, d, (1 / 3, 3.0)) for d in ((1, 2) if lookahead == 1 else (2,))]
    # CFR-AVG (average beliefs, no trembles): CFR-D's trembling beliefs break exact ties of the
    # leaf solvers by masses of 1e-6, where the rescaled game's rounding differs.
    options = {"leaf_beliefs": "average", "weighting": "uniform"}
    exact = behaviour_strategy(ReBeLAgent(game, lookahead=lookahead, iterations=iterations,
                                          **options))
    perfect = behaviour_strategy(ReBeLAgent(
        game, lookahead=lookahead, iterations=iterations,
        leaf_solver=ValueFunctionLeafSolver(ByLeaf(models)), **options))
    assert np.abs(exact.policy - perfect.policy).max() <= ROUNDING


def _random_family(deck=3, depth=1, stakes=(0.5, 4.0), seed=0) -> PBSValueFunction:
  _, domain = cut_of(_game(1.0, 1.0, deck), depth, stakes)
  rng = np.random.default_rng(seed)
  shapes = {"w0": (8, domain.input_size), "b0": (8,), "g0": (8,), "n0": (8,),
            "w_out": (domain.num_deals, 8), "b_out": (domain.num_deals,)}
  return PBSValueFunction(domain, (8,), {k: rng.normal(size=s) for k, s in shapes.items()},
                          {"note": "random"})


def test_family_model_inputs_and_units():
  # One more input (rho) than a model of one game; predictions at (s ante, s bet) are s times
  # those at (ante, bet) (the same inputs, units times s: the scaling fact); rho changes them.
  model = _random_family()
  single = cut_of(_game(1.0), 1)[1]
  assert model.domain.input_size == single.input_size + 1 == 2 + 6 + 1
  tree, _ = cut_of(_game(1.0), 1)
  beliefs = sample_beliefs(tree.leaves[0], 4, np.random.default_rng(0))
  index = np.zeros(4, dtype=np.int64)
  stakes = np.array([[1.5, 1.0]] * 4)
  base = model.predict(index, beliefs, stakes)
  np.testing.assert_allclose(model.predict(index, beliefs, 2.5 * stakes), 2.5 * base,
                             rtol=ROUNDING)
  assert np.abs(model.predict(index, beliefs, np.array([[3.0, 1.0]] * 4)) / 4 -
                base / 2.5).max() > 1e-3
  features = model.domain.features(index, beliefs, stakes)
  np.testing.assert_allclose(features[:, -1], 0.6, rtol=1e-7)  # 1.5 / 2.5 in float32.
  # root_values: the leaf's own stakes, the same numbers as predict.
  game = _game(3.0, 2.0)
  leaf = cut_of(game, 1)[0].leaves[1]
  belief = sample_beliefs(leaf, 1, np.random.default_rng(1))[0]
  expected = model.predict(np.array([1]), belief[None], np.array([[3.0, 2.0]]))[0][leaf.deals]
  np.testing.assert_allclose(model.root_values(leaf, belief[leaf.deals]), expected, rtol=1e-12)


def test_family_model_refuses_stakes_outside_its_range_and_other_games():
  model = _random_family()  # ante/bet 0.5 to 4, 3 cards, depth 1.
  outside = cut_of(_game(8.0), 1)[0].leaves[0]
  with pytest.raises(ValueError, match="ante/bet = 8, outside the range \\[0.5, 4\\]"):
    model.root_values(outside, np.full(6, 1 / 6))
  other_deck = cut_of(_game(1.0, deck=4), 1)[0].leaves[0]
  with pytest.raises(ValueError, match="differs from the model's .* in more than the stakes"):
    model.root_values(other_deck, np.full(12, 1 / 12))
  index, beliefs = np.zeros(1, dtype=np.int64), np.full((1, 6), 1 / 6)
  with pytest.raises(ValueError, match="needs the stakes"):
    model.predict(index, beliefs)
  with pytest.raises(ValueError, match="ante/bet = 0.25, outside"):
    model.predict(index, beliefs, np.array([[0.25, 1.0]]))
  with pytest.raises(ValueError, match="stakes must be an array \\(1, 2\\)"):
    model.predict(index, beliefs, np.array([1.0, 1.0]))
  with pytest.raises(ValueError, match="stakes must be a range"):
    dataclasses.replace(model.domain, stakes=(4.0, 0.5))
  # A model of one game refuses examples of other stakes.
  single = cut_of(_game(1.0), 1)[1]
  with pytest.raises(ValueError, match="belongs to another game than the model's"):
    single.features(index, beliefs, np.array([[2.0, 1.0]]))


def test_family_model_file_round_trip(tmp_path):
  model = _random_family()
  path = str(tmp_path / "family.npz")
  model.save(path)
  loaded = PBSValueFunction.load(path, _game(3.0), 1)  # Any game of the family in the range.
  assert loaded.domain == model.domain and loaded.domain.stakes == (0.5, 4.0)
  tree, _ = cut_of(_game(3.0), 1)
  for leaf in tree.leaves:
    belief = sample_beliefs(leaf, 1, np.random.default_rng(2))[0][leaf.deals]
    np.testing.assert_array_equal(loaded.root_values(leaf, belief),
                                  model.root_values(leaf, belief))
  assert np.allclose(deal_belief(tree.leaves[0], belief).sum(), 1.0)


def test_family_model_files_refused_with_one_line(tmp_path):
  good = str(tmp_path / "good.npz")
  model = _random_family()
  model.save(good)
  header, arrays = checkpoint.read_checkpoint(good)
  del header["format"], header["version"], header["sha256"]
  bad_range = str(tmp_path / "range.npz")
  checkpoint.write_checkpoint(bad_range, dict(header, stakes=[4.0, 0.5]), arrays)
  version = str(tmp_path / "version.npz")
  checkpoint.write_checkpoint(version, dict(header, model_version=99), arrays)
  cases = [
      (lambda: PBSValueFunction.load(good, _game(8.0)),
       "game 'kuhn_poker_ante\\(.*ante=8.0.*\\)' has stakes ante/bet = 8, outside the range"),
      (lambda: PBSValueFunction.load(good, _game(1.0, deck=4)),
       "in more than the stakes"),
      (lambda: PBSValueFunction.load(good, pyspiel.load_game("leduc_poker")),
       "model is for game"),
      (lambda: PBSValueFunction.load(bad_range), "bad pbs-value-function header: stakes must be"),
      (lambda: PBSValueFunction.load(version),
       "version 99 is not supported \\(supported: 1, 2, 3\\)"),
  ]
  for load, message in cases:
    with pytest.raises(ValueError, match=message) as info:
      load()
    assert "\n" not in str(info.value)


def test_version_1_files_still_load(tmp_path):
  # A file written before the stakes field (model_version 1, no "stakes" in the header) loads as
  # a model of its one game, with the same predictions.
  tree, domain = cut_of(_game(1.0), 1)
  rng = np.random.default_rng(0)
  shapes = {"w0": (8, domain.input_size), "b0": (8,), "g0": (8,), "n0": (8,),
            "w_out": (domain.num_deals, 8), "b_out": (domain.num_deals,)}
  model = PBSValueFunction(domain, (8,), {k: rng.normal(size=s) for k, s in shapes.items()})
  old = str(tmp_path / "v1.npz")
  checkpoint.write_checkpoint(old, {
      "kind": "pbs-value-function", "model_version": 1, "game": domain.game, "depth_limit": 1,
      "leaves": list(domain.leaves), "deals": [list(d) for d in domain.rules.deals()],
      "hidden": [8], "info": {}}, model.params)
  loaded = PBSValueFunction.load(old, _game(1.0), 1)
  assert loaded.domain.stakes is None and loaded.domain == domain
  belief = np.full(6, 1 / 6)
  np.testing.assert_array_equal(loaded.root_values(tree.leaves[0], belief),
                                model.root_values(tree.leaves[0], belief))
  with pytest.raises(ValueError, match="model is for game"):
    PBSValueFunction.load(old, _game(2.0))


def test_recorded_leaf_pbs_are_the_agents_calls_with_lp_labels():
  # The exact-leaf agent on 3 cards at lookahead 2 evaluates leaf pb twice per iteration of its
  # root search (alternating updates: one call per pass) and nowhere else (the searches at pb
  # reach the end of the game): 2 T records, each labelled by the LP at its belief.
  game = _game(2.0)
  recorder = RecordingLeafSolver()
  behaviour_strategy(ReBeLAgent(game, lookahead=2, iterations=7, leaf_solver=recorder))
  assert recorder.calls == len(recorder.records) == 14
  tree, domain = cut_of(game, 2)
  data = visited_dataset(recorder.records, domain)
  assert len(data) == 14 and set(data.leaf_index) == {0}
  np.testing.assert_array_equal(data.stakes, np.tile([2.0, 1.0], (14, 1)))
  lp = SequenceFormLPSolver()
  (pb,) = tree.leaves
  for belief, values in zip(data.beliefs, data.values):
    np.testing.assert_allclose(values[pb.deals], lp(pb, belief[pb.deals]).root_values,
                               atol=ROUNDING)
  assert len(visited_dataset(recorder.records, cut_of(game, 1)[1])) == 0  # No p or b calls.
  # A fixed-seed reservoir sample of 5 of the 14 calls, the same for the same seed.
  samples = []
  for _ in range(2):
    sampler = RecordingLeafSolver(size=5, seed=3)
    behaviour_strategy(ReBeLAgent(game, lookahead=2, iterations=7, leaf_solver=sampler))
    samples.append(np.array([b for _, b, _ in sampler.records]))
  assert samples[0].shape == (5, 6) and np.array_equal(samples[0], samples[1])


def test_data_of_several_stakes():
  # supervised_dataset records its game's stakes; data with and without stakes do not mix.
  parts = [supervised_dataset(cut_of(_game(ante), 2)[0], 3, seed=0) for ante in (0.5, 4.0)]
  data = Dataset.concatenate(parts)
  np.testing.assert_array_equal(data.stakes[:, 0], [0.5] * 3 + [4.0] * 3)
  with pytest.raises(ValueError, match="with and without stakes"):
    Dataset.concatenate([parts[0], dataclasses.replace(parts[1], stakes=None)])


def test_family_training_numpy_equals_pytorch():
  pytest.importorskip("torch", reason=TORCH_REASON)
  from algorithms.rebel.learning.training import Trainer  # pylint: disable=import-outside-toplevel
  from algorithms.rebel.learning.training import TrainingOptions  # pylint: disable=import-outside-toplevel
  data = Dataset.concatenate([supervised_dataset(cut_of(_game(ante), 1)[0], 20, seed=k)
                              for k, ante in enumerate((0.5, 4.0))])
  _, family = cut_of(_game(0.5), 1, (0.5, 4.0))
  trainer = Trainer(family, TrainingOptions(hidden=(16, 16), steps=20, batch_size=8, seed=1))
  trainer.fit(data, 20)
  model = trainer.model()
  # The numpy forward pass (deployed) = PyTorch's, in chips of each example's stakes.
  np.testing.assert_allclose(model.predict(data.leaf_index, data.beliefs, data.stakes),
                             trainer.torch_predict(data.leaf_index, data.beliefs, data.stakes),
                             atol=1e-5)
  with pytest.raises(ValueError, match="ante/bet = 8, outside"):
    trainer.fit(dataclasses.replace(data, stakes=np.tile([8.0, 1.0], (len(data), 1))), 1)
