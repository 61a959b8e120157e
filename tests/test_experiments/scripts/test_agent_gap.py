"""The decomposition of the depth-1 agent's error (``experiments.scripts.agent_gap``).

References: CFR-D's output strategy (Burch, Johanson, Bowling, "Solving imperfect information
games using decomposition", AAAI 2014) is the w_t-weighted mixture of the full profiles (pi^t on
the trunk, the leaf equilibrium at pi^t's PBS below), which ``CFRAvgSolver`` averages and which
the agent plays when its nested searches return the leaf solver's equilibrium at the PBS it
passes on (same solver, same trembled PBS: the same solution); by Kuhn's theorem the mixture
and the reach-weighted average have the same realization plan. CFR-D's bound: that strategy's
NashConv is at most the trunk's weighted regret R_w / W_T. The T = 1 regret by hand from the
leaf values of ``tests/test_algorithms/rebel/test_agent.py`` (T = 2 case).
"""

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms import CFRAvgSolver
from algorithms.cfr import tree_passes
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from experiments.harness import game_loader
from experiments.scripts import agent_gap

GAMES = ["kuhn_poker", "kuhn_poker_ante(simplified=True)"]


@pytest.mark.parametrize("name", GAMES)
def test_exact_nested_searches_give_cfr_d_output(name):
  # With the leaf LP as nested search, the agent's realization plan is CFR-D's average: equal to
  # rounding. Simultaneous updates, so that player 1's continuation at t is solved at pi^t's PBS
  # in CFRAvgSolver too (at lookahead 1 player 1 has no trunk decision, so the root search's
  # iterates do not depend on the order of the updates).
  game = game_loader.load_game(name)
  variant = agent_gap.Variant(game, lookahead=1, iterations=7, nested="lp")
  plan = behaviour_strategy(variant).plan
  solver = CFRAvgSolver(game, depth_limit=1, leaf_beliefs="current", weighting="linear",
                        alternating_updates=False,
                        leaf_solver=SequenceFormLPSolver(split_ties=True))
  solver.solve(7)
  arrays = variant.arrays
  average = arrays.from_tabular(solver.average_policy().action_probability_array)
  np.testing.assert_allclose(plan, tree_passes.realization(arrays, average), atol=1e-10)


@pytest.mark.parametrize("name", GAMES)
def test_cfr_d_bound_holds(name):
  # NashConv of CFR-D's output <= R_w / W_T (Burch et al.), and the agent's exploitability is
  # OpenSpiel's on the same behaviour strategy.
  game = game_loader.load_game(name)
  variant = agent_gap.Variant(game, lookahead=1, iterations=20, nested="lp")
  row = agent_gap.variant_row("c", game, variant)
  regret = agent_gap.trunk_regret(variant, variant.root_record)
  assert 0 < 2 * row.exploitability <= regret
  expected = exploitability.exploitability(
      game, tabular_policy(variant, behaviour_strategy(variant).policy))
  assert row.exploitability == pytest.approx(expected, abs=1e-12)
  assert sum(row.gains) / 2 == pytest.approx(row.exploitability, abs=1e-12)


def test_trunk_regret_after_one_iteration_by_hand():
  # pi^1 uniform; per card the leaf values are check -1, -1/3, 7/6 and bet -2, -1/2, 3/2, so
  # the regrets are 1/2, 1/12, 1/6 per card, times chance 1/3 of the card: R / W = 1/4 (the
  # trembles move the beliefs by about 1e-6).
  game = pyspiel.load_game("kuhn_poker")
  variant = agent_gap.Variant(game, lookahead=1, iterations=1, nested="lp")
  variant.plays(*variant.root())
  assert agent_gap.trunk_regret(variant, variant.root_record) == pytest.approx(0.25, abs=1e-5)


def test_trunk_regret_refuses_a_deeper_trunk():
  game = pyspiel.load_game("kuhn_poker")
  variant = agent_gap.Variant(game, lookahead=2, iterations=1, nested="lp")
  variant.plays(*variant.root())
  with pytest.raises(ValueError, match="one decision of player 0"):
    agent_gap.trunk_regret(variant, variant.root_record)


def test_bad_parts_and_cli_errors(capsys):
  game = pyspiel.load_game("kuhn_poker")
  with pytest.raises(ValueError, match="root must be one of"):
    agent_gap.Variant(game, root="half")
  with pytest.raises(ValueError, match="nested must be one of"):
    agent_gap.Variant(game, nested="half")
  with pytest.raises(SystemExit) as exit_info:
    agent_gap.main(["--iterations", "0"])
  assert exit_info.value.code == 2
  assert "--iterations" in capsys.readouterr().err


def test_table_prints_every_row(capsys):
  # A tiny run of the CLI: the rows in order, CFR-D's average twice (the identity above), and the
  # bound above the row it bounds.
  assert agent_gap.main(["--game", "kuhn_poker_ante(simplified=True)", "--iterations", "3",
                         "--nested-factor", "2", "--cfr-iterations", "10"]) == 0
  lines = capsys.readouterr().out.splitlines()
  rows = {line[:62].strip(): [float(x) for x in line[62:].split()] for line in lines
          if line and line[0] in "a(C"}
  assert len(rows) == 12
  assert rows["(a) stitched CFR-D, simultaneous updates"] == \
      rows["(c) root search T, nested = leaf LP at the PBS passed on"]
  assert rows["CFR-D bound R_w / (2 W_T) on the row (c) leaf LP"][0] >= \
      rows["(c) root search T, nested = leaf LP at the PBS passed on"][0]
