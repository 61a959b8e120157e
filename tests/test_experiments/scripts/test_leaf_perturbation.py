"""The depth-1 agent with one leaf's values perturbed (``experiments.scripts.leaf_perturbation``).

References: the exact-leaf agent ``ReBeLAgent(game)`` (its default leaf solver, the exact LP with
one-player ties split) measured by OpenSpiel's ``exploitability``, which the agent with
unperturbed values (delta = 0, or a perturbation of a public state that is no leaf) must equal;
OpenSpiel's ``nash_conv`` (NashConv = the sum of the players' best-response gains); the root
search's first iterate, uniform play, which gives every leaf root positive mass (so the draw mass
at a zero-mass root is 0 at T = 1).
"""

from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import tabular_policy
from experiments.scripts import leaf_perturbation as lp

T = 6


def _exact_leaf_agent(game) -> float:
  agent = ReBeLAgent(game, lookahead=1, iterations=T)
  return exploitability.exploitability(game, tabular_policy(agent,
                                                            behaviour_strategy(agent).policy))


@pytest.mark.parametrize("name", ["kuhn_poker", "kuhn_poker_ante(ante=2.0)"])
def test_unperturbed_values_give_the_exact_leaf_agent(name):
  # delta = 0 at any leaf, and any delta at a public state that is no leaf of any search ("bb"
  # ends the hand), leave the agent as it is: its exploitability to 1e-9, and so the first row.
  game = pyspiel.load_game(name)
  reference = _exact_leaf_agent(game)
  rows = lp.perturbation_rows(name, T, ["p", "pb", "bb"], [0.0, 0.3], [0, 1])
  found = lp.per_seed(rows)
  assert found["none 0"][0] == pytest.approx(reference, abs=1e-9)
  for key in ("p 0", "pb 0", "bb 0", "bb 0.3"):
    assert found[key] == pytest.approx([reference] * 2, abs=1e-9), key
  # A real perturbation does change the agent.
  assert abs(found["p 0.3"][0] - reference) > 1e-6
  for row in rows:
    for gains, value in zip(row.gains, row.exploitability):
      assert sum(gains) / 2 == pytest.approx(value, abs=1e-12)


def test_no_zero_mass_draw_after_one_uniform_iteration():
  game = pyspiel.load_game("kuhn_poker")
  assert lp.measure_agent(game, 1, lp.leaf_solver(0.1, 0, "all")).zero_mass == 0.0
  # At T = 6 some iterates give a root of "p" no mass: the draw mass is positive, at most 1.
  assert 0 < lp.measure_agent(game, T, lp.leaf_solver(0.0, 0, "all")).zero_mass <= 1


def test_quick_table_and_cli_errors(capsys):
  assert lp.main(["--quick"]) == 0
  lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
  assert len(lines) == 1 + 1 + 2 * 2  # header, the exact row, 2 leaves x 2 deltas
  assert lines[1].startswith("| none | 0 | - |")
  with pytest.raises(SystemExit) as exit_info:
    lp.main(["--seeds", "0"])
  assert exit_info.value.code == 2
  assert "--seeds" in capsys.readouterr().err
  with pytest.raises(SystemExit) as exit_info:
    lp.main(["--delta", "-1"])
  assert exit_info.value.code == 2
