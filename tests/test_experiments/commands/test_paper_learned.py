"""Tests of measurement 7's learned leaves (experiments/commands/rebel_agent/paper_learned.py).

References: OpenSpiel's exploitability of the estimate's own policy (``reference``) for each
plug-in; the ratios by hand from the rows.
"""

import pandas as pd
import pytest

from experiments.commands.rebel_agent import paper_learned

pytest.importorskip("torch")

TINY = paper_learned.LearnedPlan(game="liars_dice(numdice=1,dice_sides=2)", iterations=4,
                                 replicates=3, rounds=2, episodes=4, train_steps=5,
                                 hidden=(8, 8), batch_size=16)


def test_one_seed_measures_both_agents_with_the_same_estimator():
  rows = pd.DataFrame(paper_learned.learned_seed(TINY, seed=1))
  assert list(rows.kind) == [paper_learned.LEARNED, paper_learned.EXACT]
  assert list(rows.episodes) == [TINY.rounds * TINY.episodes, 0]
  for r in rows.itertuples():
    assert r.exploitability == pytest.approx(r.reference, abs=1e-12)  # OpenSpiel's.
    assert 0 <= r.exploitability <= 1  # Liar's Dice pays +-1.
  table = paper_learned.ratios(rows)
  assert list(table.seed) == [1, "median"]
  assert table.ratio.iloc[0] == pytest.approx(rows.exploitability[0] / rows.exploitability[1])
