"""The three-player large-deck experiment's tables from its solves.

* ``solves_frame``: one row per solve (sweep, N, P, NashConv by each evaluator, values, cost, and
  the mid-range bet where the structure has one);
* ``components_frame``: one row per component of a betting or calling set (``solve``);
* ``rates_frame``: the distances of the N sweep's values and thresholds from the largest deck's,
  d(N), fitted as C N^-k by least squares on log d against log N over the decks from
  ``plan.LARGE_MIN_CARDS`` to the second largest. The largest deck stands in for the limit, so a
  fitted k measures how fast the solutions settle, not a proven rate.
"""

import math
from typing import Dict, List, Sequence

import numpy as np
import pandas as pd

from experiments.commands.three_player_large import plan
from experiments.commands.three_player_large import solve as solve_lib

DECK_SWEEP, POT_SWEEP = "deck", "pot"
# The tracked thresholds of the rates: each opening node's component edges and each answering
# node's calling threshold (the lower edge of its top component).
CALL_NODES = ("b", "bb", "bp", "pb", "pbb", "pbp", "ppb", "ppbb", "ppbp")
VALUE_DISTANCE = "largest value distance max_i |u_i(N) - u_i(N_max)|"
THRESHOLD_DISTANCE = "largest calling-threshold distance (fraction of the deck)"


def _mid_range(record: solve_lib.Solve) -> Dict[str, object]:
  """The mid-range bet of the first opening node that has one (player 0's, else player 1's,
  ...): its opening component that is a bluff against one opponent and a value bet against
  the other (``solve.bet_kinds``), the one with most of the mass where the bet comes in pieces
  (large pots), as columns."""
  for node in solve_lib.OPENING_NODES:
    found = [component for component in solve_lib.node_components(record, node)
             if len(set(solve_lib.bet_kinds(record, node, component))) == 2]
    if found:
      component = max(found, key=lambda c: c.mass)
      return {"mid_range_bet": True, "mid_range_node": node or "(open)",
              "mid_range_low": component.low, "mid_range_high": component.high,
              "mid_range_mass": component.mass}
  return {"mid_range_bet": False, "mid_range_node": "", "mid_range_low": math.nan,
          "mid_range_high": math.nan, "mid_range_mass": math.nan}


def solves_frame(records: Sequence[solve_lib.Solve], sweep: str) -> pd.DataFrame:
  rows = []
  for r in records:
    rows.append({"sweep": sweep, "cards": r.cards, "pot": r.pot, "iterations": r.iterations,
                 "cpu_seconds": r.cpu_seconds, "nash_conv": r.nash_conv,
                 "openspiel_nash_conv": r.openspiel_nash_conv if r.openspiel_nash_conv is not None
                 else math.nan,
                 "flat_nash_conv": r.flat_nash_conv if r.flat_nash_conv is not None else math.nan,
                 **{f"u{i}": v for i, v in enumerate(r.values)}, **_mid_range(r)})
  return pd.DataFrame(rows)


def components_frame(records: Sequence[solve_lib.Solve], sweep: str) -> pd.DataFrame:
  rows = []
  for r in records:
    for d, node in enumerate(r.histories):
      for k, c in enumerate(solve_lib.node_components(r, node)):
        kinds = (solve_lib.bet_kinds(r, node, c) if node in solve_lib.OPENING_NODES
                 else ("", ""))
        rows.append({"sweep": sweep, "cards": r.cards, "pot": r.pot, "node": node or "(open)",
                     "player": r.node_player[d], "component": k, "low": c.low, "high": c.high,
                     "mass": c.mass, "kind_first": kinds[0], "kind_second": kinds[1]})
  return pd.DataFrame(rows)


def calling_thresholds(record: solve_lib.Solve) -> Dict[str, float]:
  """{answering node: lower edge of its top calling component} (nan if it never calls)."""
  found = {}
  for node in CALL_NODES:
    parts = solve_lib.node_components(record, node)
    found[node] = parts[-1].low if parts else math.nan
  return found


def fit_rate(cards: Sequence[float], distances: Sequence[float]) -> Dict[str, float]:
  """C N^-k by least squares on the log-log points with d > 0 (k, C; nan below two points)."""
  x, y = np.asarray(cards, float), np.asarray(distances, float)
  keep = y > 0
  if keep.sum() < 2:
    return {"k": math.nan, "C": math.nan, "points": int(keep.sum())}
  slope, intercept = np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)
  return {"k": float(-slope), "C": float(np.exp(intercept)), "points": int(keep.sum())}


def distances(records: Sequence[solve_lib.Solve]) -> pd.DataFrame:
  """Per deck of the N sweep from ``plan.LARGE_MIN_CARDS`` on: the value and calling-threshold
  distances from the largest deck's."""
  large = sorted((r for r in records if r.cards >= plan.LARGE_MIN_CARDS), key=lambda r: r.cards)
  if not large:
    return pd.DataFrame(columns=["cards", VALUE_DISTANCE, THRESHOLD_DISTANCE])
  last = large[-1]
  last_thresholds = calling_thresholds(last)
  rows = []
  for r in large[:-1]:
    mine = calling_thresholds(r)
    gaps = [abs(mine[k] - last_thresholds[k]) for k in CALL_NODES
            if not (math.isnan(mine[k]) or math.isnan(last_thresholds[k]))]
    rows.append({"cards": r.cards,
                 VALUE_DISTANCE: max(abs(a - b) for a, b in zip(r.values, last.values)),
                 THRESHOLD_DISTANCE: max(gaps) if gaps else math.nan})
  return pd.DataFrame(rows)


def rates_frame(distance: pd.DataFrame) -> pd.DataFrame:
  rows: List[Dict[str, object]] = []
  for name in (VALUE_DISTANCE, THRESHOLD_DISTANCE):
    if name in distance:
      fit = fit_rate(distance.cards, distance[name])
      rows.append({"distance": name, **fit,
                   "smallest_deck": int(distance.cards.min()) if len(distance) else 0,
                   "largest_deck": int(distance.cards.max()) if len(distance) else 0})
  return pd.DataFrame(rows)
