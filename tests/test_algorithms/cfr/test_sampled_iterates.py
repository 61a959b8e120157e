"""Chance-sampling CFR's iterates against a fixture written by an earlier implementation.

``sampled_iterates.npz`` holds the regrets, average numerators and current policy after 50
iterations of ``ChanceSamplingCFRSolver`` for each configuration of ``CONFIGS`` (games with one
history per visited information set, with several (the turn-based goofspiel), with three
players, with 100 cards; every option of the solver), computed at commit b1b9acd, before the
sampled pass was rewritten to cost what it samples (``sampled_kernel``). The rewrite must give
the same numbers bit for bit: the same draws, the same visited histories, the same sums in the
same order. ``python -m tests.test_algorithms.cfr.test_sampled_iterates`` rewrites the file from
the code of the checkout; do that only for a deliberate change of the iterates, and say so.
"""

import pathlib

import numpy as np
import pyspiel
import pytest

import algorithms
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

FIXTURE = pathlib.Path(__file__).with_name("sampled_iterates.npz")
ITERATIONS = 50
GOOFSPIEL = ("turn_based_simultaneous_game(game=goofspiel(imp_info=true,num_cards=3,"
             "points_order=random))")
# name: (game, seed, alternating_updates, linear_averaging, regret_matching_plus)
CONFIGS = {
    "leduc_cfr": ("leduc_poker", 0, True, False, False),
    "leduc_simultaneous_plus": ("leduc_poker", 1, False, True, True),
    "kuhn3_plus": ("kuhn_poker(players=3)", 2, True, True, True),
    "kuhn100_cfr": ("kuhn_poker_ante(deck_size=100)", 0, True, False, False),
    "goofspiel_linear": (GOOFSPIEL, 3, True, True, False),
    "goofspiel_simultaneous_plus": (GOOFSPIEL, 4, False, False, True),
}
FIELDS = ("regrets", "cumulative", "sigma")


def run(name):
  game_string, seed, alternating, linear, plus = CONFIGS[name]
  solver = algorithms.ChanceSamplingCFRSolver(
      pyspiel.load_game(game_string), seed=seed, alternating_updates=alternating,
      linear_averaging=linear, regret_matching_plus=plus)
  return solver.solve(ITERATIONS).engine


@pytest.mark.parametrize("name", list(CONFIGS))
def test_iterates_equal_the_fixture(name):
  engine = run(name)
  with np.load(FIXTURE) as stored:
    for field in FIELDS:
      expected = stored[f"{name}/{field}"]
      ours = getattr(engine, field)
      assert ours.shape == expected.shape
      # Bit for bit: the largest difference is printed when it is not.
      assert np.array_equal(ours, expected), (field, np.max(np.abs(ours - expected)))


def main():
  arrays = {}
  for name in CONFIGS:
    engine = run(name)
    for field in FIELDS:
      arrays[f"{name}/{field}"] = getattr(engine, field)
  np.savez_compressed(FIXTURE, **arrays)
  print(f"wrote {FIXTURE}")


if __name__ == "__main__":
  main()
