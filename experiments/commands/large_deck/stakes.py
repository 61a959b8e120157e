"""The stakes grid: one deck at many ratios r = ante / bet, solved as one batch, against the
continuous closed forms.

All games of the grid share the deck and the rule set and differ only in their payoffs, so
``algorithms.BatchedCFRPlusSolver`` solves them together on one ``RangeEngine`` (CFR+: Tammelin,
"Solving large imperfect information games using CFR+", arXiv 2014; the batched classes offer
CFR and CFR+, not discounted CFR). ``solve_until`` measures every game's exact exploitability
every ``plan.CHECK_EVERY`` iterations and stops each game at ``plan.STAKES_TARGET``. Each game's
value interval, value and thresholds are read from the batch's engine
(``RangeEngine.values``, ``RangeEngine.policy``) and compared with the continuous game by
``limits.distances``. Each rule set's batch is a task (``grid_task``, ``grid_tasks``), saved as
it finishes like the sweep's solves.
"""

import time
from typing import Any, Dict, List, Sequence, Tuple

import pandas as pd

import algorithms
from algorithms.exact import deck_thresholds
from experiments.commands.large_deck import limits
from experiments.commands.large_deck import plan
from experiments.harness import tasks
from spiel_games import kuhn_poker_ante

# The estimate of one rule set's batch: about 4 s at 1,000 cards and 15 ratios, CFR+ to 1e-6
# (seconds per card and ratio), and the task's start.
_SECONDS_PER_CARD_AND_RATIO = 3e-4
_TASK_SECONDS = 1.0


def solve_grid(cards: int, ratios: Sequence[float], rule_sets: Sequence[bool] = plan.RULE_SETS
               ) -> Tuple[pd.DataFrame, float]:
  """Each rule set of ``rule_sets`` (default both) on a ``cards``-card deck at every ratio of
  ``ratios``, one batch per rule set.

  Returns:
    One row per game (rules, ratio, cards, iterations, exploitability, value, NashConv and
    ``limits.distances``), and the CPU seconds of the two batches.
  """
  rows, cpu = [], 0.0
  for simplified in rule_sets:
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


def grid_task(cards: int, ratios: List[float], simplified: bool) -> Dict[str, Any]:
  """The task of one rule set's batch: ``solve_grid``'s rows and CPU seconds."""
  rows, cpu = solve_grid(cards, ratios, (simplified,))
  return {"rows": rows, "cpu": cpu}


def grid_tasks(cards: int, ratios: Sequence[float]) -> List[tasks.Task]:
  """The tasks of the grid, one per rule set, in ``plan.RULE_SETS`` order."""
  estimate = _TASK_SECONDS + _SECONDS_PER_CARD_AND_RATIO * cards * len(ratios)
  return [tasks.Task.make(plan.NAME, grid_task, label=f"stakes grid {plan.RULES_NAME[s]} rules",
                          estimate=estimate, cards=int(cards),
                          ratios=[float(r) for r in ratios], simplified=bool(s))
          for s in plan.RULE_SETS]


def grid(results: Sequence[tasks.TaskResult]) -> Tuple[pd.DataFrame, float]:
  """The grid's rows and CPU seconds from ``grid_tasks``'s results."""
  values = [result.value for result in results]
  return (pd.concat([v["rows"] for v in values], ignore_index=True),
          float(sum(v["cpu"] for v in values)))
