"""Measurement 6's figures: learned / exact over the on-policy rounds (median and range over the
seeds), and the agent's exploitability against the value error on its own queries."""

from typing import List, Tuple

import matplotlib.figure
import numpy as np
import pandas as pd

from experiments.commands.rebel_agent.learned import LEARNED
from experiments.commands.rebel_agent.learned import LearnedPlan
from experiments.harness import plotting

T_COLORS = [plotting.ORANGE, plotting.BLUE, plotting.PURPLE]


def _panels(keys: List[Tuple[int, float, str]], width: float = 4.6, height: float = 3.4):
  cols = min(2, len(keys))
  rows = (len(keys) + cols - 1) // cols
  fig, axes = plotting.subplots(rows, cols, figsize=(width * cols, height * rows + 1.0))
  flat = [axes[k // cols][k % cols] for k in range(rows * cols)]
  for ax in flat[len(keys):]:
    ax.set_visible(False)
  return fig, list(zip(keys, flat))


def _title(deck: int, stakes: float, seen: str) -> str:
  return f"{deck} cards, ante/bet {stakes:g} ({'trained on' if seen == 'yes' else 'unseen'})"


def plot_rounds(frame: pd.DataFrame, exact: pd.DataFrame, plan: LearnedPlan
                ) -> matplotlib.figure.Figure:
  """One panel per deck and stakes: learned / exact against the round, one line per T (median
  over the seeds, band: best to worst seed), and the targets' bounds."""
  learned = frame[frame.leaves == LEARNED].merge(exact, on=["deck", "stakes", "T"])
  learned["ratio"] = learned.exploitability / learned["exact"]
  keys = list(learned.groupby(["deck", "stakes", "trained on"], sort=True).groups)
  fig, panels = _panels(keys)
  for (deck, stakes, seen), ax in panels:
    data = learned[(learned.deck == deck) & (learned.stakes == stakes)]
    for color, (t, run) in zip(T_COLORS, data.groupby("T", sort=True)):
      runs = run.pivot_table(index="seed", columns="round", values="ratio")
      x = np.asarray(runs.columns, dtype=float)
      style = {"color": color, "marker": "o", "markersize": 4}
      if len(x) > 1:
        plotting.line_with_band(ax, x, runs.to_numpy(), f"T = {t}", **style)
      else:
        values = runs.to_numpy()[:, 0]
        median = np.median(values)
        ax.errorbar(x, [median], yerr=[[median - values.min()], [values.max() - median]],
                    capsize=4, linestyle="none", label=f"T = {t} (last round)", **style)
    measured = set(data["T"])
    if seen == "yes":
      bounds = ([(1.5, "1.5x bound (trained stakes, T = 100)")] if min(measured) <= 100
                else []) + ([(2.0, "2x bound (trained stakes, T = 300)")]
                            if max(measured) > 100 else [])
    else:
      bounds = [(2.0, "unseen stakes bound (2x)")]
    for value, label in bounds:
      ax.axhline(value, color=plotting.REFERENCE_COLOR, linestyle=(0, (4, 2)) if value == 1.5
                 else ":", linewidth=1, label=label)
    ax.axhline(1.0, color=plotting.BLACK, linewidth=0.6)
    ax.set_xticks(range(plan.rounds + 1))
    ax.set_xlabel("on-policy round (0: random and exact-agent PBSs only)")
    ax.set_ylabel("exploitability, learned / exact leaves")
    ax.set_title(_title(deck, stakes, seen), fontsize=10)
    ax.grid(True, alpha=0.3)
  plotting.legend_below(fig, ncol=4)
  fig.suptitle(f"Learned leaves over the on-policy rounds (lookahead {plan.lookahead}; median "
               f"and best-to-worst band over {frame.seed[frame.seed >= 0].nunique()} seeds)")
  return fig


def plot_error_relation(frame: pd.DataFrame, exact: pd.DataFrame, t: int
                        ) -> matplotlib.figure.Figure:
  """One panel per deck: the learned agent's exploitability in excess of the exact-leaf agent's
  (same stakes and T) against the mean per-information-set value error on its own queries at T
  = ``t`` (a point per seed, round and stakes), and the least-squares line."""
  learned = frame[(frame.leaves == LEARNED) & (frame["T"] == t)].merge(
      exact, on=["deck", "stakes", "T"])
  learned["excess"] = learned.exploitability - learned["exact"]
  decks = sorted(learned.deck.unique())
  fig, axes = plotting.subplots(1, len(decks), figsize=(5.2 * len(decks), 4.4))
  for deck, ax in zip(decks, axes[0]):
    data = learned[learned.deck == deck]
    for color, ((stakes, seen), run) in zip(T_COLORS + [plotting.GREEN],
                                             data.groupby(["stakes", "trained on"], sort=True)):
      ax.scatter(run["infostate error"], run.excess, color=color, s=18,
                 label=f"ante/bet {stakes:g} ({'trained' if seen == 'yes' else 'unseen'})")
    x, y = data["infostate error"].to_numpy(), data.excess.to_numpy()
    slope, intercept = np.polyfit(x, y, 1)
    r = np.corrcoef(x, y)[0, 1]
    grid = np.linspace(0.0, x.max() * 1.05, 50)
    ax.plot(grid, intercept + slope * grid, color=plotting.REFERENCE_COLOR,
            linestyle=(0, (4, 2)), linewidth=1, label="least squares")
    ax.axhline(0.0, color=plotting.BLACK, linewidth=0.6)
    plotting.note(ax, f"slope {slope:.3g}\nintercept {intercept:.3g}\nPearson r {r:.2f}",
                  "lower right")
    ax.set_xlim(0.0, x.max() * 1.08)
    ax.set_xlabel(plotting.axis_label("mean per-infoset value error on own queries", "chips"))
    ax.set_ylabel(plotting.axis_label("exploitability, learned - exact leaves", "chips per hand"))
    ax.set_title(f"{deck} cards, lookahead 1, T = {t}", fontsize=10)
    ax.grid(True, alpha=0.3)
  plotting.legend_below(fig, ncol=4)
  fig.suptitle("Learned agent: excess exploitability against its value error "
               "(a point per seed, round and stakes)")
  return fig
