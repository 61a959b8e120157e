"""The figures of the solved N-card games beside the continuous game: thresholds and value against
the deck size N (``plot_limits``) and against the stakes r = ante / bet (``plot_stakes``).

A threshold has one colour in every panel (``THRESHOLD_STYLE``); the continuous game is drawn
as lines (dashed horizontals against N, curves against r), the solved games as markers.
"""

from typing import Sequence

import matplotlib.axes
import matplotlib.figure
import numpy as np
import pandas as pd

from experiments.commands.large_deck import limits
from experiments.commands.large_deck import plan
from experiments.harness import plotting

# The thresholds in words (``continuous_kuhn.Thresholds``' fields), each with its colour.
THRESHOLD_WORDS = {
    "p0_bluff": "player 0 bluffs below",
    "p0_value": "player 0 bets for value above",
    "p1_call": "player 1 calls a bet above (standard rules: = player 0's check-bet call in "
               "the limit)",
    "p0_call": "player 0 calls check-bet above",
    "p1_bluff": "player 1 bluffs after a check below",
    "p1_value": "player 1 bets for value after a check above",
}
THRESHOLD_STYLE = dict(zip(THRESHOLD_WORDS, (plotting.BLUE, plotting.ORANGE, plotting.GREEN,
                                             plotting.VERMILLION, plotting.PURPLE,
                                             plotting.SKY_BLUE)))
RATIO_MARKERS = {1.0: "o", 2.0: "s"}  # Marker of each swept ratio (others: diamonds).
VALUE_COLOR = plotting.BLACK
LIMIT_LABEL = "continuous game (the limit N -> infinity), dashed"
CURVE_LABEL = "continuous game (lines; a threshold's in its colour)"
STRENGTH = "threshold (strength, fraction of the deck)"
VALUE = plotting.axis_label("player 0's value", "chips per hand, bet 1")
RELATIVE_VALUE = r"$V_N / V$ (N-card value over the continuous one)"


def ratio_marker(ratio: float) -> str:
  return RATIO_MARKERS.get(float(ratio), "D")


def _rules_title(simplified: bool) -> str:
  return ("simplified rules (von Neumann's poker model in the limit)" if simplified
          else "standard rules (Kuhn's betting)")


def _threshold_panel(ax: matplotlib.axes.Axes, group: pd.DataFrame, simplified: bool) -> None:
  """Each threshold of ``group`` (one series) against N, with its continuous limit."""
  for name in limits.threshold_names(simplified):
    color = THRESHOLD_STYLE[name]
    ax.plot(group.cards, group[name], color=color, marker="o", markersize=4, linewidth=1,
            label=THRESHOLD_WORDS[name])
    ax.axhline(group[f"{name}_limit"].iloc[0], color=color, linestyle="--", linewidth=1,
               zorder=1)
  ax.set_xscale("log")
  ax.set_xlabel(plotting.axis_label("deck size N", "cards", log=True))
  ax.set_ylabel(STRENGTH)
  ax.set_ylim(0, 1)
  ax.grid(True, which="major", alpha=0.3)


def _value_panel(ax: matplotlib.axes.Axes, data: pd.DataFrame) -> None:
  """Player 0's value over the continuous game's, V_N / V, against N for every ratio of ``data``
  (one rule set), with the limit 1; the panel's title gives V."""
  for ratio, group in data.groupby("ratio"):
    ax.plot(group.cards, group.value / group.continuous_value, color=VALUE_COLOR,
            marker=ratio_marker(ratio), markersize=4.5, linewidth=1,
            markerfacecolor="none" if ratio != plan.MAIN_RATIO else VALUE_COLOR,
            label=value_label(ratio))
  ax.axhline(1.0, color=plotting.REFERENCE_COLOR, linestyle="--", linewidth=1, zorder=1)
  ax.set_xscale("log")
  ax.set_xlabel(plotting.axis_label("deck size N", "cards", log=True))
  ax.set_ylabel(RELATIVE_VALUE)
  ax.grid(True, which="major", alpha=0.3)
  limits_text = ", ".join(f"{v:.4g} chips at r = {r:g}" for r, v in
                          data.groupby("ratio").continuous_value.first().items())
  ax.set_title(f"{data.rules.iloc[0]} rules: player 0's value (V = {limits_text})",
               fontsize=8.5)


def value_label(ratio: float) -> str:
  return f"player 0's value over V, r = {ratio:g}"


def plot_limits(solves: pd.DataFrame) -> matplotlib.figure.Figure:
  """One row per rule set: the thresholds of the main ratio's solved policies against N (left)
  and player 0's value at every ratio (right), the continuous game dashed."""
  fig, axes = plotting.subplots(2, 2, figsize=(12.0, 8.6), width_ratios=(1.5, 1.0))
  for row, simplified in enumerate(plan.RULE_SETS):
    data = solves[solves.rules == plan.RULES_NAME[simplified]]
    main = data[data.ratio == plan.MAIN_RATIO]
    _threshold_panel(axes[row, 0], main, simplified)
    axes[row, 0].set_title(f"{_rules_title(simplified)}: thresholds at r = "
                           f"{plan.MAIN_RATIO:g}")
    _value_panel(axes[row, 1], data)
  axes[0, 0].plot([], [], color="0.4", linestyle="--", linewidth=1, label=LIMIT_LABEL)
  values = [value_label(r) for r in sorted(solves.ratio.unique())]
  plotting.legend_below(fig, ncol=3, title="solved N-card game (markers; lines join the decks)",
                        order=[*THRESHOLD_WORDS.values(), *values, LIMIT_LABEL])
  fig.suptitle(f"N-card Kuhn poker solved by discounted CFR (exploitability at most "
               f"{plan.short(plan.TARGET_CAP)}, less on the largest simplified decks), bet 1, "
               "r = ante / bet")
  return fig


def _curves(ax_threshold: matplotlib.axes.Axes, ax_value: matplotlib.axes.Axes,
            simplified: bool, span: Sequence[float]) -> None:
  """The continuous game's thresholds and value against r over ``span``."""
  fine = np.geomspace(span[0], span[1], 120)
  for name in limits.threshold_names(simplified):
    ax_threshold.plot(fine, [limits.thresholds(r, simplified)[name] for r in fine],
                      color=THRESHOLD_STYLE[name], linewidth=1.2, zorder=1)
  ax_value.plot(fine, [limits.value(r, simplified) for r in fine], color=VALUE_COLOR,
                linewidth=1.2, zorder=1)


def plot_stakes(grid: pd.DataFrame) -> matplotlib.figure.Figure:
  """One row per rule set: the solved thresholds (left) and value (right) of one deck against
  r (log scale), on the continuous game's curves."""
  cards = int(grid.cards.iloc[0])
  span = (grid.ratio.min(), grid.ratio.max())
  fig, axes = plotting.subplots(2, 2, figsize=(12.0, 8.6), width_ratios=(1.5, 1.0))
  for row, simplified in enumerate(plan.RULE_SETS):
    data = grid[grid.rules == plan.RULES_NAME[simplified]]
    ax_threshold, ax_value = axes[row]
    _curves(ax_threshold, ax_value, simplified, span)
    for name in limits.threshold_names(simplified):
      ax_threshold.plot(data.ratio, data[name], color=THRESHOLD_STYLE[name], marker="o",
                        markersize=5, markerfacecolor="none", linestyle="none",
                        label=THRESHOLD_WORDS[name])
    ax_value.plot(data.ratio, data.value, color=VALUE_COLOR, marker="o", markersize=5,
                  markerfacecolor="none", linestyle="none", label="player 0's value")
    for ax, ylabel in ((ax_threshold, STRENGTH), (ax_value, VALUE)):
      ax.set_xscale("log")
      ax.set_xlabel(plotting.axis_label("r = ante / bet", log=True))
      ax.set_ylabel(ylabel)
      ax.grid(True, which="major", alpha=0.3)
    ax_threshold.set_ylim(0, 1)
    ax_threshold.set_title(f"{_rules_title(simplified)}: thresholds")
    ax_value.set_title(f"{plan.RULES_NAME[simplified]} rules: player 0's value")
  axes[0, 0].plot([], [], color="0.4", linewidth=1.2, label=CURVE_LABEL)
  plotting.legend_below(fig, ncol=3, title=f"solved {cards:,}-card game (circles)",
                        order=[*THRESHOLD_WORDS.values(), "player 0's value", CURVE_LABEL])
  fig.suptitle(f"{cards:,}-card Kuhn poker at {len(grid) // 2} stakes, solved as one batch per "
               f"rule set by CFR+ to exploitability {plan.short(plan.STAKES_TARGET)}, on the "
               "continuous game's closed forms")
  return fig
