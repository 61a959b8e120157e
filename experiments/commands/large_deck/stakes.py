"""The stakes grid: one deck at many ratios r = ante / bet, solved as one batch, against the
continuous closed forms.

All games of the grid share the deck and the rule set and differ only in their payoffs, so
``algorithms.BatchedCFRPlusSolver`` solves them together on one ``RangeEngine`` (CFR+: Tammelin,
"Solving large imperfect information games using CFR+", arXiv 2014; the batched classes offer
CFR and CFR+, not discounted CFR). ``solve_until`` measures every game's exact exploitability
every ``plan.CHECK_EVERY`` iterations and stops each game at ``plan.STAKES_TARGET``. Each game's
value interval, value and thresholds are read from the batch's engine
(``RangeEngine.values``, ``RangeEngine.policy``) and compared with the continuous game by
``limits.distances``.
"""

import time
from typing import Sequence, Tuple

import pandas as pd

import algorithms
from algorithms.exact import deck_thresholds
from experiments.commands.large_deck import limits
from experiments.commands.large_deck import plan
from spiel_games import kuhn_poker_ante


def solve_grid(cards: int, ratios: Sequence[float]) -> Tuple[pd.DataFrame, float]:
  """Both rule sets on a ``cards``-card deck at every ratio of ``ratios``, one batch per rule
  set.

  Returns:
    One row per game (rules, ratio, cards, iterations, exploitability, value, NashConv and
    ``limits.distances``), and the CPU seconds of the two batches.
  """
  rows, cpu = [], 0.0
  for simplified in plan.RULE_SETS:
    games = [kuhn_poker_ante.game_from_rules(plan.rules(cards, r, simplified)) for r in ratios]
    start = time.process_time()
    batch = algorithms.BatchedCFRPlusSolver(games, engine="range")
    batch.solve_until(plan.STAKES_TARGET, max_iterations=plan.MAX_ITERATIONS,
                      check_every=plan.CHECK_EVERY)
    exploitabilities = batch.exploitabilities()
    cpu += time.process_time() - start
    for i, ratio in enumerate(ratios):
      best, expected = batch.range_engine.values(game=i)
      measured = deck_thresholds.thresholds_from_policy(
          batch.range_engine.policy(game=i).bet_probabilities(), simplified)
      rows.append({"rules": plan.RULES_NAME[simplified], "ratio": float(ratio), "cards": cards,
                   "iterations": int(batch.iterations[i]),
                   "exploitability": float(exploitabilities[i]), "value": float(expected[0]),
                   "nash_conv": float(best[0] + best[1]),
                   **limits.distances(cards, float(ratio), simplified, float(expected[0]),
                                      (float(best[0]), float(best[1])),
                                      {k: float(v) for k, v in measured.as_dict().items()})})
  return pd.DataFrame(rows), cpu
