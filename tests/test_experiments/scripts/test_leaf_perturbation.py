"""The depth-1 agent with one leaf's values perturbed (``experiments.scripts.leaf_perturbation``).

References: the exact-leaf agent ``ReBeLAgent(game)`` (its default leaf solver, the exact LP with
one-player ties split) measured by OpenSpiel's ``exploitability``, which the agent with
unperturbed values (delta = 0, or a perturbation of a public state that is no leaf) must equal;
OpenSpiel's ``nash_conv`` (NashConv = the sum of the players' best-response gains); the root
search's first iterate, uniform play, which gives every leaf root positive mass (so the draw mass
at a zero-mass root is 0 at T = 1); Kuhn's theorem for the draws: at an information state where
player 1 acts for the first time (Kuhn's "1p") its own reach is 1 under every draw, so the
agent's behaviour there is the P(t)-weighted mixture of its play per draw of the root search.
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


@pytest.mark.parametrize("delta", [0.0, 0.1])
def test_play_split_by_draw_mixes_to_the_behaviour(delta):
  game = pyspiel.load_game("kuhn_poker")
  solver = lp.leaf_solver(delta, 0, "all")
  whole = lp.measure_agent(game, T, solver)
  split = lp.by_draw(game, T, solver, "1p", 1)
  expected = whole.policy[whole.states.index("1p"), 1]
  assert split.zero_mass == pytest.approx(whole.zero_mass, abs=1e-12)
  mixed = split.zero_mass * split.probability[0] + (1 - split.zero_mass) * split.probability[1]
  assert mixed == pytest.approx(expected, abs=1e-9)
  assert split.pbs_gap >= 0 and min(split.value_gap) >= 0


def test_quick_table_and_cli_errors(capsys):
  assert lp.main(["--quick"]) == 0
  lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
  # The table (the exact row, 2 leaves x 2 deltas) and the by-draw table (the exact agent for
  # each action studied and the 4 perturbed rows), each with its header.
  assert len(lines) in (6 + 6, 6 + 7)  # header, exact, 4 rows; header, 1 or 2 exact, 4 rows
  assert "P(action), zero-mass draws" in lines[6]
  assert lines[1].startswith("| none | 0 | - |")
  with pytest.raises(SystemExit) as exit_info:
    lp.main(["--seeds", "0"])
  assert exit_info.value.code == 2
  assert "--seeds" in capsys.readouterr().err
  with pytest.raises(SystemExit) as exit_info:
    lp.main(["--game", "no_such_game"])
  assert exit_info.value.code == 2
  with pytest.raises(SystemExit) as exit_info:
    lp.main(["--delta", "-1"])
  assert exit_info.value.code == 2
