"""The experiment's tables: every solve against the continuous game, the rates fitted to its
distances, and the engines' costs.

Rates (``power_law``): a distance d(N) of the N sweep is fitted as d = C N^-k by least squares of
log d on log N over the series' decks (for the value, over the decks whose gap is resolved,
``limits``; at least ``MIN_FIT_POINTS``).
"""

import math
from typing import Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from experiments.commands.large_deck import limits
from experiments.commands.large_deck import plan
from experiments.commands.large_deck import solve
from experiments.commands.large_deck import sweep

# The two distances of ``rates_frame``.
VALUE_DISTANCE = "value gap |V - V_N| (chips per hand)"
THRESHOLD_DISTANCE = "largest threshold gap (fraction of the deck)"
MIN_FIT_POINTS = 3  # Fewer points fit no rate (two always lie on a line).
MEBIBYTE = 2.0**20
# The peak-memory measurement's resolution (``footprint``): smaller growths read as "at most".
MEMORY_RESOLUTION = MEBIBYTE


def solves_frame(records: Sequence[solve.DeckSolve], lp: Dict[sweep.GameKey, float],
                 engine: str = "range") -> pd.DataFrame:
  """One row per solve on ``engine``: the spec, the run, the LP value where computed, and
  ``limits.distances``."""
  rows = []
  for r in records:
    spec = r.spec
    if spec.engine != engine:
      continue
    rows.append({
        "rules": plan.RULES_NAME[spec.simplified], "ratio": spec.ratio, "cards": spec.cards,
        "target": spec.target, "iterations": r.iterations, "exploitability": r.exploitability,
        "openspiel_exploitability": r.openspiel_exploitability, "value": r.value,
        "lp_value": lp.get(sweep.game_key(spec), math.nan), "nash_conv": r.nash_conv,
        "cpu_seconds": r.cpu_seconds,
        **limits.distances(spec.cards, spec.ratio, spec.simplified, r.value, r.best_responses,
                           r.thresholds)})
  return pd.DataFrame(rows)


def power_law(cards: Sequence[float], distances: Sequence[float]) -> Tuple[float, float]:
  """(k, C) of the least-squares line log d = log C - k log N (NaN, NaN with fewer than
  ``MIN_FIT_POINTS`` points or a distance <= 0)."""
  x, y = np.asarray(cards, dtype=float), np.asarray(distances, dtype=float)
  if len(x) < MIN_FIT_POINTS or np.any(y <= 0):
    return math.nan, math.nan
  slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
  return float(-slope), float(np.exp(intercept))


def rates_frame(solves: pd.DataFrame) -> pd.DataFrame:
  """Per series (rule set, ratio) and distance (value, largest threshold gap): the fitted k and
  C, the points fitted and the decks they span."""
  rows = []
  for (rules, ratio), group in solves.groupby(["rules", "ratio"], sort=False):
    for quantity, points, column in (
        (VALUE_DISTANCE, group[group.value_resolved], "value_gap"),
        (THRESHOLD_DISTANCE, group, "threshold_gap")):
      k, c = power_law(points.cards, points[column].abs())
      rows.append({"rules": rules, "ratio": ratio, "distance": quantity, "points": len(points),
                   "smallest_deck": int(points.cards.min()) if len(points) else 0,
                   "largest_deck": int(points.cards.max()) if len(points) else 0,
                   "k": k, "C": c})
  return pd.DataFrame(rows)


def in_cost_comparison(spec: solve.Spec) -> bool:
  """The flat engine's solves and the range engine's of the same game (standard rules, main
  ratio)."""
  return spec.engine == "flat" or (not spec.simplified and spec.ratio == plan.MAIN_RATIO)


def cost_frame(records: Sequence[solve.DeckSolve]) -> pd.DataFrame:
  """One row per solve of the cost comparison: engine, deck, histories, iterations,
  exploitability, CPU time, peak memory (MiB; NaN where not measured, ``sweep``), whether it is
  above the measurement's resolution, and the engine's estimate (MiB)."""
  rows = []
  for r in records:
    spec = r.spec
    if not in_cost_comparison(spec):
      continue
    peak = math.nan if r.peak_bytes is None else r.peak_bytes / MEBIBYTE
    rows.append({"engine": spec.engine, "cards": spec.cards,
                 "histories": spec.game().num_histories(), "target": spec.target,
                 "iterations": r.iterations, "exploitability": r.exploitability,
                 "cpu_seconds": r.cpu_seconds, "peak_mib": peak,
                 "peak_resolved": peak >= MEMORY_RESOLUTION / MEBIBYTE,
                 "estimate_mib": spec.estimate_bytes() / MEBIBYTE})
  return pd.DataFrame(rows)


def speedups(cost: pd.DataFrame) -> List[Tuple[int, float]]:
  """(deck, flat / range CPU time per iteration) on the decks both engines solved."""
  by_engine = {e: (g.cpu_seconds / g.iterations).set_axis(g.cards)
               for e, g in cost.groupby("engine")}
  if set(by_engine) != {"flat", "range"}:
    return []
  common = sorted(set(by_engine["flat"].index) & set(by_engine["range"].index))
  return [(int(n), float(by_engine["flat"][n] / by_engine["range"][n])) for n in common]
