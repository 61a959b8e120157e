"""Tests of algorithms/game_tree.py: the flat tree against OpenSpiel's own walks and values."""

import numpy as np
import pytest
import pyspiel

from open_spiel.python import games as _openspiel_python_games  # pylint: disable=unused-import
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score

import spiel_games  # pylint: disable=unused-import
from algorithms.game_tree import CHANCE, TERMINAL, GameTree

GAMES = ["kuhn_poker", "python_kuhn_poker", "leduc_poker", "kuhn_poker_ante(ante=2.0)",
         "kuhn_poker_ante(ante=2.0,simplified=true)", "kuhn_poker_ante(deck_size=5,bet=2.0)",
         "turn_based_simultaneous_game(game=matrix_rps())"]


@pytest.fixture(scope="module", params=GAMES)
def game_and_tree(request):
  game = pyspiel.load_game(request.param)
  return game, GameTree.from_game(game)


def random_tabular(game, seed):
  tabular = policy_lib.TabularPolicy(game)
  rng = np.random.default_rng(seed)
  probs = rng.random(tabular.action_probability_array.shape) * tabular.legal_actions_mask
  probs[rng.random(probs.shape) < 0.2] = 0.0  # Some zero probabilities, as CFR produces.
  probs += 1e-3 * tabular.legal_actions_mask
  tabular.action_probability_array = probs / probs.sum(axis=1, keepdims=True)
  return tabular


def test_kuhn_poker_sizes():
  # Kuhn poker: root deal (1) + player 1's deal nodes (3) + 6 deals x (4 decision histories
  # "", p, b, pb + 5 terminals pp, pbp, pbb, bp, bb); 6 information sets and 1 + 6 x 2 sequences
  # per player (Kuhn 1950; OpenSpiel's kuhn_poker has 12 information states).
  tree = GameTree.from_game(pyspiel.load_game("kuhn_poker"))
  assert tree.num_nodes == 1 + 3 + 6 * 9
  assert tree.num_terminals == 30
  assert [p.num_infosets for p in tree.players] == [6, 6]
  assert [p.num_sequences for p in tree.players] == [13, 13]
  assert tree.utility_sum == 0.0
  np.testing.assert_allclose(tree.chance_reach, 1 / 6)


def test_tabular_rows_match_openspiel(game_and_tree):
  game, tree = game_and_tree
  reference = policy_lib.TabularPolicy(game)
  for p in tree.players:
    assert [reference.state_lookup[k] for k in p.infoset_keys] == p.tabular_row.tolist()
  assert tree.num_tabular_rows == len(reference.state_lookup)
  built = tree.tabular_policy()
  assert built.state_lookup == reference.state_lookup
  np.testing.assert_array_equal(built.legal_actions_mask, reference.legal_actions_mask)


def test_sequence_form_structure(game_and_tree):
  _, tree = game_and_tree
  for p in tree.players:
    assert np.all(np.diff(p.depth) >= 0)
    assert np.all(p.parent_seq < p.seq_start)
    ends = p.seq_start + p.num_actions
    np.testing.assert_array_equal(p.seq_start[1:], ends[:-1])  # Contiguous blocks.
    assert p.num_sequences == 1 + p.num_actions.sum()
    for i, actions in enumerate(p.legal_actions):
      block = slice(p.seq_start[i], p.seq_start[i] + p.num_actions[i])
      assert p.seq_action[block].tolist() == list(actions)
      assert np.all(p.seq_infoset[block] == i)
      parent_infoset = p.seq_infoset[p.parent_seq[i]]
      expected_depth = 0 if p.parent_seq[i] == 0 else p.depth[parent_infoset] + 1
      assert p.depth[i] == expected_depth


def test_nodes_replay_openspiel_states(game_and_tree):
  game, tree = game_and_tree
  assert np.all(tree.node_parent[1:] < np.arange(1, tree.num_nodes))
  rng = np.random.default_rng(0)
  for node in rng.choice(tree.num_nodes, size=min(200, tree.num_nodes), replace=False):
    state = tree.state_at(int(node))
    assert len(state.history()) == tree.node_depth[node]
    player = tree.node_player[node]
    if state.is_terminal():
      assert player == TERMINAL
      np.testing.assert_array_equal(tree.utility[tree.node_terminal[node]], state.returns())
    elif state.is_chance_node():
      assert player == CHANCE
    else:
      assert player == state.current_player()
      p = tree.players[player]
      assert p.infoset_keys[tree.node_infoset[node]] == state.information_state_string(player)


def test_bilinear_value_matches_openspiel(game_and_tree):
  # sum_z u_0(z) pi_c(z) x_0[seq_0(z)] x_1[seq_1(z)] is player 0's expected utility; the
  # reference is OpenSpiel's recursive expected_game_score.policy_value.
  game, tree = game_and_tree
  for seed in range(3):
    tabular = random_tabular(game, seed)
    sigmas = tree.behavioural_from_tabular(tabular.action_probability_array)
    plans = []
    for p, sigma in zip(tree.players, sigmas):
      x = np.ones(p.num_sequences)
      for i in range(p.num_infosets):  # parent_seq < seq_start: parents are done first.
        block = slice(p.seq_start[i], p.seq_start[i] + p.num_actions[i])
        x[block] = x[p.parent_seq[i]] * sigma[block]
      plans.append(x)
    value = np.sum(tree.utility0 * tree.chance_reach * plans[0][tree.terminal_seq[:, 0]] *
                   plans[1][tree.terminal_seq[:, 1]])
    reference = expected_game_score.policy_value(game.new_initial_state(), [tabular, tabular])
    assert value == pytest.approx(reference[0], abs=1e-12)
    back = tree.tabular_from_behavioural(
        sigmas, out=np.zeros_like(tabular.action_probability_array))
    np.testing.assert_array_equal(back, tabular.action_probability_array)


@pytest.mark.parametrize("game_string,message", [
    ("kuhn_poker(players=3)", "needs exactly 2 players"),
    ("matrix_rps", "needs sequential dynamics"),
    ("lewis_signaling", "zero-sum or constant-sum"),
])
def test_unsupported_games_rejected_before_walk(game_string, message):
  with pytest.raises(ValueError, match=message):
    GameTree.from_game(pyspiel.load_game(game_string))


def test_max_nodes():
  with pytest.raises(ValueError, match="more than max_nodes=100"):
    GameTree.from_game(pyspiel.load_game("leduc_poker"), max_nodes=100)
  with pytest.raises(ValueError, match="max_nodes must be >= 1"):
    GameTree.from_game(pyspiel.load_game("kuhn_poker"), max_nodes=0)


class _ForgetfulState:
  """A kuhn_poker state whose player 0 forgets its own first action (imperfect recall)."""

  def __init__(self, state):
    self._state = state

  def __getattr__(self, name):
    return getattr(self._state, name)

  def child(self, action):
    return _ForgetfulState(self._state.child(action))

  def information_state_string(self, player):
    if player == 0:
      return self._state.information_state_string(0)[:1]  # The card only.
    return self._state.information_state_string(player)


class _ForgetfulGame:

  def __init__(self):
    self._game = pyspiel.load_game("kuhn_poker")

  def __getattr__(self, name):
    return getattr(self._game, name)

  def new_initial_state(self):
    return _ForgetfulState(self._game.new_initial_state())


def test_imperfect_recall_detected():
  with pytest.raises(ValueError, match="imperfect recall"):
    GameTree.from_game(_ForgetfulGame())
