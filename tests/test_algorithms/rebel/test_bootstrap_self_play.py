"""Tests of ReBeL's self-play with bootstrapped targets (algorithms/rebel/learning/bootstrap.py).

References: the search's root values (``SearchRecord.root_values``, tested against
``LeafSubgame.root_values`` in test_agent.py) are the targets; seeded runs repeat bit for bit.
"""

import numpy as np
import pyspiel
import pytest

from algorithms.rebel.learning.bootstrap import BootstrapSelfPlay
from algorithms.rebel.learning.self_play import SelfPlayOptions
from algorithms.rebel.learning.training import TrainingOptions
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

pytest.importorskip("torch")

TINY = TrainingOptions(hidden=(8, 8), steps=5, batch_size=16)
OPTIONS = SelfPlayOptions(search_iterations=5, episodes_per_round=6, train_steps=5)


def test_cuts_and_examples():
  # kuhn_poker with lookahead 1: the agent's searches have leaves at depths 1 (p, b) and 2 (pb).
  run = BootstrapSelfPlay(pyspiel.load_game("kuhn_poker"), 1, OPTIONS, TINY)
  assert run.depths == [1, 2]
  new = run.run_round()
  # Every episode reaches a public state at depth 1 ("p" or "b"), so one example each there.
  assert new[1] == OPTIONS.episodes_per_round
  buffer = run.buffers[1]
  assert buffer.beliefs.shape == (6, 6) and np.allclose(buffer.beliefs.sum(axis=1), 1.0)
  # Values are player 0's chips from each deal: within the game's payoffs, +-(ante + bet) = 2.
  assert np.all(np.abs(buffer.values) <= 2.0 + 1e-12)


def test_seeded_runs_repeat():
  first, second = (BootstrapSelfPlay(pyspiel.load_game("kuhn_poker"), 1, OPTIONS, TINY)
                   for _ in range(2))
  first.run_round()
  second.run_round()
  for depth in first.depths:
    assert first.models()[depth].digest() == second.models()[depth].digest()


def test_refuses_a_game_without_leaves():
  with pytest.raises(ValueError, match="no leaf at depth 2"):
    BootstrapSelfPlay(pyspiel.load_game("kuhn_poker_ante(simplified=True)"), 2, OPTIONS, TINY)
