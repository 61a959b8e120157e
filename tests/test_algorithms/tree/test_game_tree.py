"""Tests of algorithms/tree/game_tree.py and tree_layout.py: the flat tree against OpenSpiel's own
walks and values."""

import numpy as np
from open_spiel.python import games  # noqa: F401  (registers OpenSpiel's Python games)
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
import pyspiel
import pytest

from algorithms.tree.game_tree import CHANCE
from algorithms.tree.game_tree import TERMINAL
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
from helpers import constant_sum_kuhn
from helpers import load
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

GAMES = ["kuhn_poker", "python_kuhn_poker", "leduc_poker", "kuhn_poker_ante(ante=2.0)",
         "kuhn_poker_ante(ante=2.0,simplified=true)", "kuhn_poker_ante(deck_size=5,bet=2.0)",
         "turn_based_simultaneous_game(game=matrix_rps())",
         # n players, general-sum and identical-interest games.
         "kuhn_poker(players=3)", "kuhn_poker(players=4)",
         "first_sealed_auction(players=3,max_value=3)",
         "turn_based_simultaneous_game(game=matching_pennies_3p())", "tiny_hanabi",
         "constant_sum_kuhn"]


@pytest.fixture(scope="module", params=GAMES)
def game_and_tree(request):
  game = load(request.param)
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


def test_utility_sum_by_utility_type():
  # The utility sum is recorded for zero- and constant-sum games (game.utility_sum()) and is
  # None for general-sum and identical-interest ones, where exploitability is undefined.
  for game in (pyspiel.load_game("kuhn_poker(players=3)"), constant_sum_kuhn(3, 2.0),
               pyspiel.load_game("first_sealed_auction(max_value=3)"),
               pyspiel.load_game("tiny_hanabi")):
    expected = None if game.get_type().utility in (
        pyspiel.GameType.Utility.GENERAL_SUM, pyspiel.GameType.Utility.IDENTICAL) else \
        game.utility_sum()
    assert GameTree.from_game(game).utility_sum == expected
  assert GameTree.from_game(constant_sum_kuhn(3, 2.0)).utility_sum == 6.0


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
  game, tree = game_and_tree
  assert tree.num_players == game.num_players() == tree.node_seq.shape[1]
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
    if node > 0:  # The edge's chance probability, and the product of them to the node.
      parent = tree.state_at(int(tree.node_parent[node]))
      edge = (dict(parent.chance_outcomes())[tree.node_action[node]]
              if parent.is_chance_node() else 1.0)
      assert tree.node_prob[node] == edge
      assert tree.node_chance_reach[node] == pytest.approx(
          tree.node_chance_reach[tree.node_parent[node]] * edge, rel=1e-15)
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


def test_multilinear_values_match_openspiel(game_and_tree):
  # sum_z u_i(z) pi_c(z) prod_p x_p[seq_p(z)] is player i's expected utility; the reference is
  # OpenSpiel's recursive expected_game_score.policy_value. The policy enters through the
  # layout's tabular map and each player's plan is built on its own PlayerSequences.
  game, tree = game_and_tree
  layout = TreeArrays(tree)
  for seed in range(3):
    tabular = random_tabular(game, seed)
    sigma = layout.from_tabular(tabular.action_probability_array)
    plans = []
    for p, own in zip(tree.players, layout.to_players(sigma)):
      x = np.ones(p.num_sequences)
      for i in range(p.num_infosets):  # parent_seq < seq_start: parents are done first.
        block = slice(p.seq_start[i], p.seq_start[i] + p.num_actions[i])
        x[block] = x[p.parent_seq[i]] * own[block]
      plans.append(x)
    reach = tree.chance_reach * np.prod(
        [plan[tree.terminal_seq[:, pl]] for pl, plan in enumerate(plans)], axis=0)
    reference = expected_game_score.policy_value(game.new_initial_state(),
                                                 [tabular] * game.num_players())
    np.testing.assert_allclose(tree.utility.T @ reach, reference, rtol=0, atol=1e-12)
    back = layout.to_tabular(layout.from_players(layout.to_players(sigma)),
                             np.zeros_like(tabular.action_probability_array))
    np.testing.assert_array_equal(back, tabular.action_probability_array)


def test_global_layout_levels(game_and_tree):
  # The layout of docs/tree_layout.md: empty sequences 0..n-1, then depth levels, each level's
  # sets and sequences contiguous by player, parents in the previous level, blocks contiguous.
  _, tree = game_and_tree
  a = TreeArrays(tree)
  n = a.num_players
  assert a.level_sequences[0] == n and a.level_sequences[-1] == a.num_sequences
  assert a.level_infosets[0] == 0 and a.level_infosets[-1] == a.num_infosets
  for d in range(a.num_levels):
    sets = np.arange(a.level_infosets[d], a.level_infosets[d + 1])
    assert np.all(np.diff(a.infoset_player[sets]) >= 0)
    first = a.level_sequences[d]
    previous = a.level_sequences[d - 1] if d else 0
    assert np.all((a.infoset_parent[sets] >= previous) & (a.infoset_parent[sets] < first))
    np.testing.assert_array_equal(a.infoset_level[sets], d)
  np.testing.assert_array_equal(a.infoset_start[1:], (a.infoset_start + a.infoset_num_actions)[:-1])
  for pl, p in enumerate(tree.players):
    np.testing.assert_array_equal(a.seq_player[a.global_seq[pl]], pl)
    np.testing.assert_array_equal(a.global_seq[pl][p.parent_seq],
                                  a.infoset_parent[a.global_infoset[pl]])
    np.testing.assert_array_equal(a.terminal_seq[:, pl], a.global_seq[pl][tree.terminal_seq[:, pl]])
    np.testing.assert_array_equal(a.player_mask[pl], (a.seq_player == pl) & (a.seq_infoset >= 0))
    # The kernel's pass lists: each player's sets in increasing index, then all of them.
    lay = a.kernel
    np.testing.assert_array_equal(
        lay.pass_infosets[lay.pass_infoset_ptr[pl]:lay.pass_infoset_ptr[pl + 1]],
        np.flatnonzero(a.infoset_player == pl))
  np.testing.assert_array_equal(a.kernel.pass_infosets[a.kernel.pass_infoset_ptr[n]:],
                                np.arange(a.num_infosets))
  np.testing.assert_array_equal(a.seq_parent[n:], a.infoset_parent[a.seq_infoset[n:]])


@pytest.mark.parametrize("game_string,message", [
    ("cliff_walking", "needs at least 2 players"),
    ("matrix_rps", "needs sequential dynamics"),
    ("bridge_uncontested_bidding", "needs deterministic or explicit stochastic chance"),
    ("crazy_eights", "needs information_state_string"),
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


class _SharedKeyState(_ForgetfulState):
  """Player 1 sees only its card, which is player 0's key at the root (e.g. "0")."""

  def child(self, action):
    return _SharedKeyState(self._state.child(action))

  def information_state_string(self, player):
    if player == 1:
      return self._state.information_state_string(1)[:1]
    return self._state.information_state_string(player)


class _SharedKeyGame(_ForgetfulGame):

  def new_initial_state(self):
    return _SharedKeyState(self._game.new_initial_state())


def test_information_state_shared_by_two_players_detected():
  # TabularPolicy keys rows by the string alone, so two players' sets with one string would
  # share a row; the tree refuses such a game.
  with pytest.raises(ValueError, match="belongs to players 0 and 1"):
    GameTree.from_game(_SharedKeyGame())
