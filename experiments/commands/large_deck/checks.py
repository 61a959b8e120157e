"""The large-deck experiment's checks: every solve against its target and its references, the
rates against first order, the memory against the engines' estimates.

Tolerances, each stated where it is used:

* ``deck_thresholds.VALUE_BAND`` and ``THRESHOLD_BAND``: |V - V_N| <= 0.08 (a + b) / N plus the
  solve's NashConv, and every threshold within 3 cards (3 / N of the deck) of the continuous one:
  the measured bands of the N-card game around its limit, stated with their measurements in
  ``algorithms.exact.deck_thresholds`` (the value: at most 0.071 (a + b) / N, standard rules near
  r = 2; the thresholds: at most 2.25 cards, player 0's value-bet threshold in the standard rules,
  which converges slowly: at 1,000 cards and r = 4.6 it moves from 2.0 to 2.25 cards between
  exploitability 1e-7 and 1e-8).
* ``RATE_TOLERANCE``: the fitted k of a first-order distance, over decks spanning a factor of
  at least ``MIN_RATE_SPAN`` in N: within 0.1 of 1 for the standard rules' value gap
  (N (V - V_N) is b / 9 at r = 1 and 0.21 b at r = 2, constant within 10% from 13 cards on, so
  k moves from 1 by at most about log(1.1) / log(50) = 0.03), and within 0.4 of 1 for the
  largest threshold gap: a threshold of the N-card game sits on the card grid, and N times its
  gap ranges from 0.03 to 2.3 cards over the decks measured (where the limit falls in its card
  decides it), which moves a fit over a factor 50 of N by up to about 0.4; a gap shrinking like
  N^-1/2 still fails. The simplified rules' value gap has no first-order term (it is 0 on many
  decks and below 0.7 b / N^2 on the others), so its rate is reported, not checked.
* ``MEMORY_TOLERANCE``: a measured peak within 50% of the engine's own estimate (measured: 0.83
  to 0.87 of it on the range engine; on the flat one 240 bytes per history with the fused
  kernel's sweep layout, which ``kuhn_tree.FLAT_BYTES_PER_HISTORY`` now states, 180 before).
"""

import math
from typing import List

import pandas as pd

from algorithms.exact import deck_thresholds
from experiments.commands.large_deck import frames
from experiments.commands.large_deck import plan
from experiments.harness import checks
from experiments.harness.checks import Check

RATE_TOLERANCE = {"value": 0.1, "thresholds": 0.4}
MIN_RATE_SPAN = 50
MEMORY_TOLERANCE = 0.5
_DOCSTRING = "tolerance stated in experiments/commands/large_deck/checks.py"
# A solve stops at the first exact measurement at or below its target: the check fails only if
# the iteration cap (plan.MAX_ITERATIONS) came first, so it holds by construction otherwise.
TARGET_SOURCE = ("the engine's exact exploitability, measured every 50 iterations until at "
                 "most the target (fails only at the iteration cap)")


def _label(row) -> str:
  return f"large deck, {row.rules} rules, r = {row.ratio:g}, {int(row.cards):,} cards"


def target_check(label: str, exploitability: float, target: float) -> Check:
  """A solve's exploitability against the target it was solved to (``TARGET_SOURCE``)."""
  return checks.at_most(f"{label}: exploitability at most the target {plan.short(target)}",
                        exploitability, target, TARGET_SOURCE, by_construction=True)


def lp_checks(row, label: str) -> List[Check]:
  """Player 0's value within the NashConv of the LP's exact V_N, where the LP was solved."""
  if math.isnan(row.lp_value):
    return []
  return [checks.within_nash_conv(f"{label}: value u_0 against the LP's V_N", row.value,
                                  row.lp_value, row.nash_conv, "sequence-form LP")]


def limit_checks(row, label: str, tolerance_source: str) -> List[Check]:
  """A solved game's value and thresholds against the continuous closed forms."""
  ante_plus_bet = (row.ratio + 1) * plan.BET
  return [
      checks.within(f"{label}: player 0's value u_0 against the continuous game's V", row.value,
                    row.continuous_value,
                    deck_thresholds.VALUE_BAND * ante_plus_bet / row.cards + row.nash_conv,
                    f"continuous closed form (continuous_kuhn); tolerance 0.08 (a + b) / N + "
                    f"NashConv, {tolerance_source}"),
      checks.within(f"{label}: largest threshold gap {row.worst_threshold} (fraction of the "
                    "deck)", row.threshold_gap, 0.0, deck_thresholds.THRESHOLD_BAND / row.cards,
                    f"continuous closed form (continuous_kuhn); tolerance "
                    f"{deck_thresholds.THRESHOLD_BAND:g} cards, {tolerance_source}"),
  ]


def solve_checks(solves: pd.DataFrame) -> List[Check]:
  """Per solve: the target, OpenSpiel's exploitability, the LP's value, the continuous game."""
  found = []
  for row in solves.itertuples():
    label = _label(row)
    found.append(target_check(label, row.exploitability, row.target))
    if not pd.isna(row.openspiel_exploitability):
      found.append(checks.same_number(f"{label}: exploitability, range engine vs OpenSpiel",
                                      row.exploitability, row.openspiel_exploitability,
                                      "OpenSpiel exploitability of the same average policy"))
    found += lp_checks(row, label) + limit_checks(row, label, _DOCSTRING)
  return found


def series_checks(solves: pd.DataFrame, rates: pd.DataFrame) -> List[Check]:
  """Per series: the distances shrink from the smallest deck to the largest, and the fitted
  rates of the first-order distances are near 1."""
  found = []
  for (rules, ratio), group in solves.groupby(["rules", "ratio"], sort=False):
    first, last = group.loc[group.cards.idxmin()], group.loc[group.cards.idxmax()]
    name = f"large deck, {rules} rules, r = {ratio:g}"
    span = f"{int(last.cards):,} cards vs {int(first.cards):,}"
    found.append(checks.at_most(f"{name}: largest threshold gap at {span}", last.threshold_gap,
                                first.threshold_gap, "the smallest deck's gap: it shrinks"))
    found.append(checks.at_most(
        f"{name}: |V - V_N| at {span} (its bound where not resolved)",
        abs(last.value_gap) if last.value_resolved else last.value_bound,
        abs(first.value_gap), "the smallest deck's gap: it shrinks"))
  for row in rates.itertuples():
    kind = "value" if row.distance == frames.VALUE_DISTANCE else "thresholds"
    if (math.isnan(row.k) or row.largest_deck < MIN_RATE_SPAN * row.smallest_deck
        or (kind == "value" and row.rules == plan.RULES_NAME[True])):
      continue
    found.append(checks.within(
        f"large deck, {row.rules} rules, r = {row.ratio:g}: fitted rate k of the "
        f"{row.distance} over {row.points} decks", row.k, 1.0, RATE_TOLERANCE[kind],
        f"first order, N^-1; {_DOCSTRING}"))
  return found


def cost_checks(cost: pd.DataFrame, flat_solves: pd.DataFrame) -> List[Check]:
  """The flat engine's solves against their target and the LP, and every resolved peak memory
  against the engine's estimate."""
  found = []
  for row in flat_solves.itertuples():
    label = f"large deck, flat engine, {int(row.cards):,} cards"
    found += [target_check(label, row.exploitability, row.target)] + lp_checks(row, label)
  for row in cost[cost.peak_resolved].itertuples():
    found.append(checks.within(
        f"large deck, {row.engine} engine, {int(row.cards):,} cards: peak memory (MiB)",
        row.peak_mib, row.estimate_mib, MEMORY_TOLERANCE * row.estimate_mib,
        "the engine's estimate (range_memory, FLAT_BYTES_PER_HISTORY); " + _DOCSTRING))
  return found


def stakes_checks(grid: pd.DataFrame) -> List[Check]:
  """Each game of the stakes grid: its target and the continuous game."""
  found = []
  for row in grid.itertuples():
    label = f"large deck, stakes grid, {row.rules} rules, r = {row.ratio:.3g}, {row.cards:,} cards"
    found += [target_check(label, row.exploitability, plan.STAKES_TARGET)]
    found += limit_checks(row, label, _DOCSTRING)
  return found


def all_checks(solves: pd.DataFrame, rates: pd.DataFrame, cost: pd.DataFrame,
               flat_solves: pd.DataFrame, grid: pd.DataFrame) -> List[Check]:
  return (solve_checks(solves) + series_checks(solves, rates) + cost_checks(cost, flat_solves)
          + stakes_checks(grid))

