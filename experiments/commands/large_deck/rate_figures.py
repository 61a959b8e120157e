"""The log-log figures: the distances to the continuous game against N with their fitted rates
(``plot_rates``), and the two engines' CPU time and peak memory against N (``plot_cost``).

A measurement that is only a bound (a value gap the solve does not resolve, a memory growth
below the measurement's resolution) is drawn as an open downward triangle at the bound.
"""

import matplotlib.axes
import matplotlib.figure
import numpy as np
import pandas as pd

from experiments.commands.large_deck import frames
from experiments.commands.large_deck import limit_figures
from experiments.commands.large_deck import plan
from experiments.harness import plotting

RULES_COLORS = {"simplified": plotting.BLUE, "standard": plotting.VERMILLION}
ENGINE_STYLE = {"range": {"color": plotting.BLUE, "marker": "o"},
                "flat": {"color": plotting.ORANGE, "marker": "s"}}
BOUND_MARKER = "v"
VALUE_GAP = r"value gap $|V - V_N|$"
THRESHOLD_GAP = r"largest threshold gap $\max\,|\theta_N - \theta|$"


def fit_label(k: float, c: float) -> str:
  """e.g. "fit 0.111 N^-1.00", as mathtext."""
  return f"fit ${c:.3g}\\,N^{{-{k:.2f}}}$"


def _series_label(rules: str, ratio: float) -> str:
  return f"{rules}, r = {ratio:g}"


def _fit_line(ax: matplotlib.axes.Axes, fit: dict, color: str) -> None:
  """A ``frames.rates_frame`` row's C N^-k over the decks it was fitted on (dashed at the main
  ratio, dash-dotted at the others), labelled."""
  if np.isnan(fit["k"]):
    return
  x = np.geomspace(fit["smallest_deck"], fit["largest_deck"], 20)
  ax.plot(x, fit["C"] * x**-fit["k"], color=color, linewidth=1, zorder=1,
          linestyle="--" if fit["ratio"] == plan.MAIN_RATIO else "-.",
          label=f"{_series_label(fit['rules'], fit['ratio'])}: {fit_label(fit['k'], fit['C'])}")


def plot_rates(solves: pd.DataFrame, rates: pd.DataFrame) -> matplotlib.figure.Figure:
  """Left: |V - V_N| against N (open triangles: bounds of unresolved gaps); right: the largest
  threshold gap against N with the one-card line 1/N; every series' fitted C N^-k dashed."""
  fig, axes = plotting.subplots(1, 2, figsize=(12.5, 6.6))
  ax_value, ax_threshold = axes[0]
  for (rules, ratio), group in solves.groupby(["rules", "ratio"], sort=False):
    color, marker = RULES_COLORS[rules], limit_figures.ratio_marker(ratio)
    label = _series_label(rules, ratio)
    resolved, bounded = group[group.value_resolved], group[~group.value_resolved]
    ax_value.plot(resolved.cards, resolved.value_gap.abs(), color=color, marker=marker,
                  linestyle="none", markersize=6, label=label)
    ax_value.plot(bounded.cards, bounded.value_bound, color=color, marker=BOUND_MARKER,
                  markerfacecolor="none", linestyle="none", markersize=7)
    ax_threshold.plot(group.cards, group.threshold_gap, color=color, marker=marker,
                      linestyle="none", markersize=6, label=label)
    for fit in rates[(rates.rules == rules) & (rates.ratio == ratio)].to_dict("records"):
      _fit_line(ax_value if fit["distance"] == frames.VALUE_DISTANCE else ax_threshold, fit,
                color)
  ax_value.plot([], [], color="0.4", marker=BOUND_MARKER, markerfacecolor="none",
                linestyle="none", label="not resolved by the solve: at most this")
  decks = np.array([solves.cards.min(), solves.cards.max()], dtype=float)
  ax_threshold.plot(decks, 1 / decks, color=plotting.REFERENCE_COLOR, linestyle=":",
                    linewidth=1.2, label="one card, 1/N")
  plotting.log_log(ax_value, "deck size N", VALUE_GAP, xunit="cards",
                   yunit="chips per hand, bet 1")
  plotting.log_log(ax_threshold, "deck size N", THRESHOLD_GAP, xunit="cards",
                   yunit="fraction of the deck")
  ax_value.set_title("value: first order in 1/N for the standard rules; the simplified "
                     "gap is second order or 0", fontsize=8.5)
  ax_threshold.set_title("thresholds: within about one card, so first order in 1/N",
                         fontsize=8.5)
  for ax in (ax_value, ax_threshold):  # Below each panel: its fits belong to it.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=7)
  fig.suptitle("Distance of the solved N-card game to the continuous game against N, with "
               r"least-squares fits $C\,N^{-k}$ (dashed at r = 1, dash-dotted at the other r)")
  return fig


def plot_cost(cost: pd.DataFrame) -> matplotlib.figure.Figure:
  """CPU time (left) and peak memory (right) of each engine's solves against N, the memory
  estimates dashed; the flat engine's largest deck marked."""
  fig, axes = plotting.subplots(1, 2, figsize=(12.5, 6.0))
  ax_time, ax_memory = axes[0]
  for engine, group in cost.groupby("engine", sort=False):
    style = ENGINE_STYLE[engine]
    label = f"{engine} engine"
    ax_time.plot(group.cards, group.cpu_seconds / group.iterations, linewidth=1.2,
                 markersize=6, label=label, **style)
    shown = group[group.peak_resolved]  # Measured, above the resolution.
    ax_memory.plot(shown.cards, shown.peak_mib, linewidth=1.2, markersize=6, label=label,
                   **style)
    below = group[group.peak_mib.notna() & ~group.peak_resolved]
    ax_memory.plot(below.cards, np.full(len(below), frames.MEMORY_RESOLUTION / frames.MEBIBYTE),
                   color=style["color"], marker=BOUND_MARKER, markerfacecolor="none",
                   linestyle="none", markersize=7)
    ax_memory.plot(group.cards, group.estimate_mib, color=style["color"], linestyle="--",
                   linewidth=1, label=f"{engine} engine's estimate")
  if (cost.peak_mib.notna() & ~cost.peak_resolved).any():
    ax_memory.plot([], [], color="0.4", marker=BOUND_MARKER, markerfacecolor="none",
                   linestyle="none", label="below the 1 MiB resolution: at most this")
  if not cost.peak_mib.notna().any():
    plotting.note(ax_memory, "no solve large enough to measure\n(estimates below "
                  f"{plan.FRESH_PROCESS_MIN_BYTES / frames.MEBIBYTE:g} MiB)", corner="lower right")
  for ax in (ax_time, ax_memory):
    ax.axvline(plan.FLAT_LARGEST_DECK, color=plotting.REFERENCE_COLOR, linestyle=":",
               linewidth=1)
    ax.annotate(f"flat engine's limit, {plan.FLAT_LARGEST_DECK} cards", (plan.FLAT_LARGEST_DECK, 1),
                xycoords=("data", "axes fraction"), xytext=(3, -12), textcoords="offset points",
                fontsize=7, color="0.3")
  plotting.log_log(ax_time, "deck size N", "CPU time per iteration", xunit="cards",
                   yunit="s")
  plotting.log_log(ax_memory, "deck size N", "peak memory added by the solve", xunit="cards",
                   yunit="MiB")
  ax_time.set_title("CPU time of the solve to the target / its iterations (exploitability "
                    "checks included)", fontsize=8.5)
  ax_memory.set_title("peak resident memory above the fresh process's baseline", fontsize=8.5)
  for ax in (ax_time, ax_memory):
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=7)
  targets = ", ".join(sorted({plan.short(t) for t in cost.target}))
  fig.suptitle(f"Discounted CFR on the standard rules at r = 1 to exploitability {targets}: "
               "the range-vector engine against the flat tree")
  return fig
