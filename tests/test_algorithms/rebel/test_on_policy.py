"""Tests of the on-policy (DAgger) rounds and of the per-information-set value error
(algorithms/rebel/learning/on_policy.py, learning/value_network.py ``infostate_errors``).

References: a spy value function written here, which counts and copies every query the agent
makes with the same models (the rounds' records must be those queries); a value function with a
constructed error of known size (hand-computed errors); a second run with the same seeds.
Tests that train need PyTorch and are skipped without it.
"""

import numpy as np
import pyspiel
import pytest

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.dataset import supervised_dataset
from algorithms.rebel.learning.on_policy import OnPolicyOptions
from algorithms.rebel.learning.on_policy import labelled
from algorithms.rebel.learning.on_policy import on_policy_rounds
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.learning.value_network import infostate_errors
from algorithms.rebel.learning.value_network import value_errors
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from spiel_games import kuhn_poker_ante

TORCH_REASON = "PyTorch not installed (the 'learn' extra: pip install -e '.[learn]')"


def test_infostate_error_of_a_constructed_value_function():
  # Kuhn: deals (c0, c1) of 3 cards. A belief with no mass on player 0 holding card 2.
  rules = kuhn_poker_ante.rules_of(pyspiel.load_game("kuhn_poker"))
  deals = rules.deals()
  rng = np.random.default_rng(0)
  belief = rng.random(len(deals))
  belief[[k for k, d in enumerate(deals) if d[0] == 2]] = 0.0
  belief /= belief.sum()
  exact = rng.normal(size=len(deals))
  # Every deal off by e: every reached information set's value is off by exactly e; the
  # counterfactual (unnormalised) error is e times the largest card mass.
  e = 0.3
  assert infostate_errors(rules, belief, exact + e, exact)[0] == pytest.approx(e, abs=1e-12)
  masses = [belief[[k for k, d in enumerate(deals) if d[i] == c]].sum()
            for i in (0, 1) for c in range(3)]
  assert value_errors(rules, belief[None], (exact + e)[None], exact[None])[0] == pytest.approx(
      e * max(masses), abs=1e-12)
  # One deal d* = (0, 1) off by e: player 0's card 0 is off by e beta(d*) / m_0(0), player 1's
  # card 1 by e beta(d*) / m_1(1); the larger is the PBS's error.
  star = deals.index((0, 1))
  off = exact.copy()
  off[star] += e
  m0 = belief[[k for k, d in enumerate(deals) if d[0] == 0]].sum()
  m1 = belief[[k for k, d in enumerate(deals) if d[1] == 1]].sum()
  assert infostate_errors(rules, belief, off, exact)[0] == pytest.approx(
      e * belief[star] / min(m0, m1), abs=1e-12)


class _Spy:
  """Counts and copies the queries of the value function it wraps (written for this test)."""

  def __init__(self, inner):
    self.inner, self.asked = inner, []

  def root_values(self, leaf, belief):
    self.asked.append((leaf.public_state, np.array(belief)))
    return self.inner.root_values(leaf, belief)


def _rounds(game, agent_options, games=None):
  domains, base = {}, {}
  for k, depth in enumerate((1, 2)):
    tree, domains[depth] = cut_of(game, depth)
    base[depth] = supervised_dataset(tree, 20, seed=k)
  options = OnPolicyOptions(rounds=2, iterations=(4,), lookahead=1, agent=agent_options,
                            max_searches=1000)
  return on_policy_rounds([game] if games is None else games, domains, base, options,
                          TrainingOptions(hidden=(8,), steps=30, batch_size=16, seed=3))


@pytest.mark.parametrize("agent_options", [{}, {"leaf_beliefs": "current", "play": "iterate",
                                                "weighting": "linear"}])
def test_on_policy_rounds_record_the_agents_queries_and_are_deterministic(agent_options):
  pytest.importorskip("torch", reason=TORCH_REASON)
  game = pyspiel.load_game("kuhn_poker")
  rounds = _rounds(game, agent_options)
  again = _rounds(game, agent_options)
  assert [r.index for r in rounds] == [0, 1, 2]
  for ours, theirs in zip(rounds, again):
    for depth, model in ours.models.items():
      for name, value in model.params.items():
        np.testing.assert_array_equal(value, theirs.models[depth].params[name])
  for r in (1, 2):
    # The same agent with the previous round's models, watched by the spy.
    spy = _Spy(ByLeaf([rounds[r - 1].models[d] for d in (1, 2)]))
    behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=4,
                                  leaf_solver=ValueFunctionLeafSolver(spy), **agent_options))
    recorded = rounds[r].queries
    assert len(recorded) == len(spy.asked) > 0
    for (game_string, t, leaf, belief), (state, asked) in zip(recorded, spy.asked):
      assert (game_string, t, leaf.public_state) == (str(game), 4, state)
      np.testing.assert_array_equal(belief, asked)
    # Only the two-player leaf p asks the network; each query is one more example of cut 1.
    assert {leaf.public_state for _, _, leaf, _ in recorded} == {"p"}
    assert rounds[r].examples[1] - rounds[r - 1].examples[1] == len(recorded)
    assert rounds[r].examples[2] == rounds[r - 1].examples[2]


def test_rounds_play_the_games_of_their_round_and_label_a_repeated_query_once():
  pytest.importorskip("torch", reason=TORCH_REASON)
  game = pyspiel.load_game("kuhn_poker")
  asked = []

  def games(index):  # Round r plays the game r times: r copies of the same agent's queries.
    asked.append(index)
    return [game] * index

  rounds = _rounds(game, {}, games)
  fixed = _rounds(game, {})
  assert asked == [1, 2]
  for r in (1, 2):
    spy = _Spy(ByLeaf([rounds[r - 1].models[d] for d in (1, 2)]))
    behaviour_strategy(ReBeLAgent(game, lookahead=1, iterations=4,
                                  leaf_solver=ValueFunctionLeafSolver(spy)))
    assert len(rounds[r].queries) == r * len(spy.asked) > 0
  # Round 1 plays the one game in both runs: the same data, the same round-1 models.
  for name, value in rounds[1].models[1].params.items():
    np.testing.assert_array_equal(value, fixed[1].models[1].params[name])


def test_labelled_labels_each_distinct_query_once():
  game = pyspiel.load_game("kuhn_poker")
  tree, _ = cut_of(game, 1)
  (leaf,) = [z for z in tree.leaves if z.public_state == "p"]
  beliefs = [np.full(leaf.num_roots, 1 / leaf.num_roots), np.linspace(1, 2, leaf.num_roots)]
  beliefs[1] /= beliefs[1].sum()
  calls = []

  def labeller(z, belief):
    calls.append(belief)
    return SequenceFormLPSolver()(z, belief)

  queries = [(leaf, beliefs[0]), (leaf, beliefs[1]), (leaf, beliefs[0].copy())]
  records = labelled(queries, labeller)
  assert len(calls) == 2
  for (z, belief, values), (query_leaf, query_belief) in zip(records, queries):
    assert z is query_leaf and belief is query_belief
    np.testing.assert_array_equal(values, SequenceFormLPSolver()(z, belief).root_values)
