"""The continuous game's closed forms and a solved N-card policy's distances to them.

The references are ``algorithms.exact.continuous_kuhn``'s exact closed forms at ante a = r b,
bet b: von Neumann's poker model (J. von Neumann and O. Morgenstern, Theory of Games and
Economic Behavior, 1944, section 19) for the simplified rules, with value
V = a^2 b / ((a + b)(4a + b)), and its standard-rules twin with
V = -a^2 b^2 / ((2a + b)^2 (a + b)); their thresholds are fractions of the strength range [0, 1].

Distances of one solved deck (``distances``):

* the value: the N-card value V_N lies in [-BR_1, BR_0] (``solve``), an interval of width the
  NashConv, so |V - V_N| lies between d, V's distance to the interval, and d + NashConv. The gap
  is *resolved* when d >= NashConv, so that it is known to within a factor 2; its estimate is
  then V - u_0, u_0 player 0's value of the average policy. An unresolved gap is only bounded:
  |V - V_N| <= max(|V + BR_1|, |V - BR_0|);
* the thresholds: |theta_N - theta| per field of ``deck_thresholds.threshold_gaps`` and their
  maximum, as a fraction of the deck and in cards (N times it).
"""

from typing import Dict, Mapping, Tuple

from algorithms.exact import continuous_kuhn
from algorithms.exact import deck_thresholds
from experiments.commands.large_deck import plan


def value(ratio: float, simplified: bool) -> float:
  """V, player 0's value of the continuous game at r = ``ratio``, bet ``plan.BET`` (chips)."""
  return float(continuous_kuhn.game_value(ratio * plan.BET, plan.BET, simplified))


def thresholds(ratio: float, simplified: bool) -> Dict[str, float]:
  """The continuous game's thresholds at r = ``ratio`` by field name (fractions of [0, 1])."""
  exact = continuous_kuhn.thresholds(ratio * plan.BET, plan.BET, simplified)
  return {name: float(x) for name, x in exact.as_dict().items()}


def threshold_names(simplified: bool) -> Tuple[str, ...]:
  """The thresholds of a rule set, in ``continuous_kuhn.Thresholds``' order."""
  return tuple(thresholds(plan.MAIN_RATIO, simplified))


def distances(cards: int, ratio: float, simplified: bool, value_n: float,
              best_responses: Tuple[float, float],
              measured: Mapping[str, float]) -> Dict[str, object]:
  """The distances of one solved deck to the continuous game (module docstring).

  Args:
    cards: N.
    ratio: r = ante / bet.
    simplified: the rule set.
    value_n: u_0, player 0's value of the average policy (chips per hand).
    best_responses: (BR_0, BR_1) against the average policy.
    measured: the policy's thresholds by field name (``deck_thresholds``).

  Returns:
    {"continuous_value", "value_low", "value_high" (the interval holding V_N), "value_gap"
    (V - u_0), "value_resolved", "value_bound" (max |V - endpoint|), "threshold_gap" (the
    largest |theta_N - theta|), "threshold_gap_cards" (N times it), "worst_threshold" (its
    field), and per field "<name>" (measured) and "<name>_limit" (continuous)}.
  """
  limit_value = value(ratio, simplified)
  low, high = -best_responses[1], best_responses[0]
  outside = max(low - limit_value, limit_value - high, 0.0)  # d, V's distance to [low, high].
  reference = continuous_kuhn.Thresholds(simplified=simplified, **thresholds(ratio, simplified))
  gaps = deck_thresholds.threshold_gaps(
      continuous_kuhn.Thresholds(simplified=simplified, **measured), reference)
  worst = max(gaps, key=gaps.get)
  row = {"continuous_value": limit_value, "value_low": low, "value_high": high,
         "value_gap": limit_value - value_n,
         "value_resolved": outside >= high - low,
         "value_bound": max(abs(limit_value - low), abs(limit_value - high)),
         "threshold_gap": gaps[worst], "threshold_gap_cards": cards * gaps[worst],
         "worst_threshold": worst}
  for name, x in reference.as_dict().items():
    row[name] = measured[name]
    row[f"{name}_limit"] = float(x)
  return row
