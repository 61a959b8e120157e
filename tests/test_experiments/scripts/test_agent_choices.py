"""Ties, trembles and averaging of the exact-leaf agent (``experiments.scripts.agent_choices``).

References: the default agent ``ReBeLAgent(game, lookahead=1, iterations=T)`` measured here by
OpenSpiel's ``exploitability`` on its enumerated behaviour (the script's default cell must be that
agent); the agent written from the paper alone outside the project (issue 33: 0.0206 / 0.0120 /
0.00683 at T = 10 / 30 / 100 on kuhn_poker, lookahead 1, equal to ours to six digits); the
rebel-agent experiment's measurement 0 for the other weightings (docs/rebel.md, "The paper's agent
and the other variants": uniform weighting 0.0301, ``weighting="linear_cfr"`` 0.0307 and 0.0183
at T = 10 and 30).
"""

from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel
import pytest

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.leaf_step import TREMBLE
from experiments.scripts import agent_choices


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
  out = tmp_path_factory.mktemp("agent_choices")
  assert agent_choices.main(["--quick", "--out", str(out)]) == 0
  # The markdown tables beside the CSVs show the default cell (0.02064 at T = 10, 4 digits).
  for name in ("ties", "weighting"):
    assert "0.02064" in (out / f"agent_choices_{name}.md").read_text()
  return (pd.read_csv(out / "agent_choices_ties.csv"),
          pd.read_csv(out / "agent_choices_weighting.csv"))


def _default_agent(game_string: str, iterations: int) -> float:
  game = pyspiel.load_game(game_string)
  agent = ReBeLAgent(game, lookahead=1, iterations=iterations)
  return exploitability.exploitability(game, tabular_policy(agent,
                                                            behaviour_strategy(agent).policy))


def _cell(frame, **where):
  rows = frame
  for key, value in where.items():
    rows = rows[rows[key] == value]
  assert len(rows) == 1, where
  return rows.iloc[0]


def test_quick_tables_cover_every_choice(quick):
  ties, weighting = quick
  assert sorted(ties["tremble"].unique()) == sorted(agent_choices.QUICK_TREMBLES)
  assert set(ties["split_ties"]) == {True, False} and len(ties) == 6
  assert list(weighting["weighting"]) == ["linear", "linear_cfr", "uniform"]
  # Two exact measures of the same behaviour strategy (the script stops otherwise).
  for frame in quick:
    assert (frame["exploitability"] - frame["tree_exploitability"]).abs().max() <= 1e-9
    assert (frame["searches"] == 1 + 2 * 10 + 10**2).all()  # Every draw at lookahead 1.


def test_default_cells_are_the_default_agent(quick):
  ties, weighting = quick
  reference = _default_agent("kuhn_poker", 10)
  for frame in quick:
    cell = _cell(frame, split_ties=True, tremble=TREMBLE, weighting="linear")
    assert cell["exploitability"] == pytest.approx(reference, abs=1e-9)
  # The outside implementation's number.
  assert reference == pytest.approx(0.0206, abs=5e-5)


def test_other_weightings_match_measurement_zero(quick):
  _, weighting = quick
  assert _cell(weighting, weighting="uniform")["exploitability"] == pytest.approx(0.0301, abs=5e-5)
  assert _cell(weighting, weighting="linear_cfr")["exploitability"] == pytest.approx(0.0307,
                                                                                      abs=5e-5)
  assert agent_choices.measure("kuhn_poker", 30, weighting="linear_cfr").exploitability == \
      pytest.approx(0.0183, abs=5e-5)


def test_tremble_zero_stalls_and_trembles_agree_on_kuhn_poker(quick):
  # Without trembles the agent stalls (tests/test_algorithms/rebel/test_agent_tremble.py); with
  # any of them, kuhn_poker's one-player leaves meet no tie at positive mass, so splitting ties
  # changes nothing (docs/rebel.md: "the 3-card games never hit such a tie with CFR-D").
  ties, _ = quick
  for split in (True, False):
    assert _cell(ties, split_ties=split, tremble=0.0)["exploitability"] > 0.07
    assert _cell(ties, split_ties=split, tremble=TREMBLE)["exploitability"] == pytest.approx(
        0.0206, abs=5e-5)


def test_default_at_thirty_iterations_is_the_outside_number():
  assert agent_choices.measure("kuhn_poker", 30).exploitability == pytest.approx(0.0120, abs=5e-5)


@pytest.mark.parametrize("argv, message", [
    (["--tremble", "1"], "expected a number in [0, 1), got 1"),
    (["--tremble", "x"], "expected a number in [0, 1), got 'x'"),
    (["--iterations", "0"], "expected a positive integer, got 0"),
    (["--tie-games", "no_such_game"], "no_such_game"),
    (["--out", ""], "expected a folder path"),
])
def test_bad_argument_is_one_line_and_exit_2(argv, message, capsys, tmp_path):
  with pytest.raises(SystemExit) as exit_info:
    agent_choices.main(argv + ([] if "--out" in argv else ["--out", str(tmp_path)]))
  assert exit_info.value.code == 2
  error = capsys.readouterr().err.strip().splitlines()
  assert error[-1].startswith("python -m experiments.scripts.agent_choices: error: ")
  assert message in error[-1] and "Traceback" not in "\n".join(error)
  assert not list(tmp_path.iterdir())


def test_lookahead_two_ties_at_thirteen_cards():
  # 13 cards, d = 2, T = 100: the first tied action gave 0.0029, ties split 0.00046
  # (docs/rebel.md and tests/test_algorithms/rebel/test_cfr_d_stall.py, measured with the
  # rebel-agent experiment when the tie was found).
  game = "kuhn_poker_ante(deck_size=13)"
  split, first = (agent_choices.measure(game, 100, split_ties=s, lookahead=2) for s in (True,
                                                                                          False))
  assert split.lookahead == first.lookahead == 2
  assert split.exploitability == pytest.approx(0.00046, abs=5e-6)
  assert first.exploitability == pytest.approx(0.0029, abs=5e-5)
