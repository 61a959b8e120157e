"""The three-player large-deck experiment's figures.

* ``plot_structure(components, x)``: one panel per opening node (player 0 opens, player 1 after
  a check, player 2 after two checks) with each betting component drawn as a vertical bar over
  its cards (fractions of the deck) at each N (or P), coloured by its kind against the two
  opponents (``solve.bet_kinds``); a last panel with the calling thresholds.
* ``plot_values(solves, distance, rates)``: the players' values against N, and the distances of
  the values and calling thresholds from the largest deck's with their fits C N^-k.
"""

import matplotlib.figure
import matplotlib.ticker
import numpy as np
import pandas as pd

from experiments.commands.three_player_large import frames
from experiments.harness import plotting

OPENINGS = (("(open)", "player 0 opens"), ("p", "player 1 after a check"),
            ("pp", "player 2 after two checks"))
KIND_STYLE = {("bluff", "bluff"): ("tab:blue", "bluff against both"),
              ("value", "value"): ("tab:red", "value bet against both"),
              ("bluff", "value"): ("tab:green", "bluff vs first answerer, value vs second"),
              ("value", "bluff"): ("tab:olive", "value vs first answerer, bluff vs second")}
CALLS = (("b", "player 1 calls player 0's bet"), ("bp", "player 2 calls, player 1 folded"),
         ("pb", "player 2 calls player 1's bet"), ("pbp", "player 0 calls, player 2 folded"),
         ("ppb", "player 0 calls player 2's bet"), ("ppbp", "player 1 calls, player 0 folded"))
AXIS = {"cards": ("deck size N", "one slot per deck, not to scale"),
        "pot": ("initial pot P", "chips, bet = 1")}


def plot_structure(components: pd.DataFrame, x: str) -> matplotlib.figure.Figure:
  """Betting components and calling thresholds against ``x`` ("cards" or "pot")."""
  fig, grid = plotting.subplots(1, 4, figsize=(16, 4.8))
  axes = grid[0]
  values = np.sort(components[x].unique())
  # The decks (4 to 10,000 cards, four of them from 4 to 8) in equal slots, every one labelled
  # (on a log axis the small decks' labels and bars crowd together); the pots to scale.
  slot = {v: float(i) if x == "cards" else float(v) for i, v in enumerate(values)}
  positions = np.array([slot[v] for v in values])
  width = 0.35 * (np.min(np.diff(positions)) if len(positions) > 1 else 1.0)
  for ax, (node, title) in zip(axes, OPENINGS):
    part = components[components.node == node]
    for row in part.itertuples():
      color, label = KIND_STYLE[(row.kind_first, row.kind_second)]
      ax.bar(slot[getattr(row, x)], row.high - row.low, bottom=row.low, width=width,
             color=color, alpha=0.75, label=label)
    ax.set_title(title, fontsize=10)
    ax.set_ylim(0, 1)
    ax.set_ylabel("betting cards (fraction of the deck)")
  ax = axes[3]
  for node, label in CALLS:
    part = components[components.node == node]
    top = part.loc[part.groupby(x).component.idxmax()].sort_values(x)
    ax.plot(top[x].map(slot), top.low, marker="o", markersize=3, label=label)
  ax.set_title("calling thresholds (lowest calling card)", fontsize=10)
  ax.set_ylim(0, 1)
  ax.set_ylabel("fraction of the deck")
  ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
  quantity, unit = AXIS[x]
  for ax in axes:
    ax.set_xlabel(plotting.axis_label(quantity, unit))
    if x == "cards":
      ax.set_xticks(positions, [f"{v:,}" for v in values], rotation=60, fontsize=7)
      ax.set_xlim(positions[0] - 0.6, positions[-1] + 0.6)  # The same slots in every panel.
  plotting.legend_below(fig, ncol=2, order=[label for _, label in KIND_STYLE.values()])
  return fig


def plot_values(solves: pd.DataFrame, distance: pd.DataFrame,
                rates: pd.DataFrame) -> matplotlib.figure.Figure:
  """Values against N; distances from the largest deck's with their fits."""
  fig, grid = plotting.subplots(1, 2, figsize=(11, 4.4))
  left, right = grid[0]
  deck = solves.sort_values("cards")
  for i in range(3):
    left.plot(deck.cards, deck[f"u{i}"], marker="o", markersize=3, label=f"player {i}")
  left.axhline(0, color="0.6", linewidth=0.8)
  left.set_xscale("log")
  left.set_xlabel(plotting.axis_label("deck size N", log=True))
  left.set_ylabel(plotting.axis_label("value u_i", "chips per hand"))
  left.set_title("players' values at P = 3", fontsize=10)
  left.legend(fontsize=8)
  for name, marker in ((frames.VALUE_DISTANCE, "o"), (frames.THRESHOLD_DISTANCE, "s")):
    if name not in distance or distance.empty:
      continue
    d = distance[distance[name] > 0]
    line, = right.plot(d.cards, d[name], marker=marker, linestyle="none", label=name)
    fit = rates[rates.distance == name]
    if len(fit) and np.isfinite(fit.k.iloc[0]):
      n = np.geomspace(d.cards.min(), d.cards.max(), 20)
      right.plot(n, fit.C.iloc[0] * n ** -fit.k.iloc[0], "--", color=line.get_color(),
                 label=f"fit C N^-k, k = {fit.k.iloc[0]:.2f}")
  plotting.log_log(right, "deck size N", "distance from the largest deck's")
  right.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
  right.set_title("how fast the solutions settle", fontsize=10)
  right.legend(fontsize=7)
  return fig

