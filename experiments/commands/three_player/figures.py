"""The three-player experiment's figures: NashConv against iterations and time, the values against
the Szafron-Gibson-Sturtevant family, every player's values on a game without a known
equilibrium; and their saving with their captions.

Colour is the solver's (``plotting.solver_style``) and, where runs of several seeds are drawn
point by point, the marker's shape is the seed's (``seed_marker``), named in a second legend
(``seed_legend``). Markers are hollow where runs can meet (two implementations of one algorithm
reach the very same values), so that none hides another.
"""

import pathlib
from typing import List, Sequence, Tuple

import matplotlib.axes
import matplotlib.figure
import matplotlib.lines
import numpy as np
import pandas as pd

from experiments.commands.three_player.captions import CAPTIONS
from experiments.commands.three_player.frames import value_runs
from experiments.commands.three_player.plan import FAMILY_GAMES
from experiments.commands.three_player.plan import PLAYERS
from experiments.harness import game_loader
from experiments.harness import plotting
from experiments.harness import references
from experiments.harness import solver_registry
from experiments.harness import solver_runs

NASH_CONV_UNIT = "chips per hand"  # The sum of the players' best-response gains, in chips.
MARKERS = ("o", "s", "^", "D", "v", "P")  # The seeds' markers, in order from the first seed.
SEED_COLOR = "0.35"  # The seed legend's markers (the colour is the solver's in the data).
SOLVER_LEGEND = "solver (colour)"
SEED_LEGEND = "marker: seed"


def seed_marker(seed: int, first: int) -> str:
  """The marker of ``seed`` in a figure whose first seed is ``first`` (deterministic solvers run
  once, with the first seed)."""
  return MARKERS[(seed - first) % len(MARKERS)]


def seed_label(seed: int, first: int) -> str:
  """The seed legend's entry of ``seed``."""
  return f"seed {seed}" + (" (and every deterministic solver)" if seed == first else "")


def seed_legend(fig: matplotlib.figure.Figure, seeds: Sequence[int]) -> None:
  """A second legend, right of the axes: the marker of each of ``seeds`` (``seed_marker``)."""
  seeds = sorted(set(int(s) for s in seeds))
  if not seeds:
    return
  handles = [matplotlib.lines.Line2D([], [], color=SEED_COLOR, linestyle="none",
                                     marker=seed_marker(s, seeds[0]), markersize=7,
                                     markerfacecolor="none", markeredgewidth=1.4)
             for s in seeds]
  fig.legend(handles, [seed_label(s, seeds[0]) for s in seeds], loc="outside right upper",
             title=SEED_LEGEND)


def plot_nash_conv(curves: pd.DataFrame, game_strings: Sequence[str],
                   solvers: Sequence[str]) -> matplotlib.figure.Figure:
  """NashConv against iterations (top row) and solver time (bottom row), one column per game,
  log-log; sampled solvers as the median and min-max band over seeds; the O(1/sqrt(T)) guide
  from the highest first point."""
  fig, axes = plotting.subplots(2, len(game_strings), figsize=(4.6 * len(game_strings), 8.4),
                                sharey="row")
  for column, game in enumerate(game_strings):
    ax_it, ax_time = axes[0, column], axes[1, column]
    data = curves[curves.game == game]
    anchor = None
    for solver in solvers:
      runs = data[data.solver == solver]
      if runs.empty:
        continue
      label = solver_registry.get_solver(solver).label
      values = runs.pivot(index="seed", columns="iteration", values="nash_conv")
      x = values.columns.to_numpy(dtype=float)
      style = plotting.solver_style(solver)
      plotting.line_with_band(ax_it, x, values.to_numpy(), label, **style)
      times = runs.pivot(index="seed", columns="iteration", values="seconds").to_numpy()
      plotting.line_with_band(ax_time, np.median(times, axis=0), values.to_numpy(), label,
                              **style)
      first = float(np.median(values.to_numpy()[:, 0]))
      anchor = first if anchor is None else max(anchor, first)
    if anchor is not None and anchor > 0:
      x = np.sort(data.iteration.unique()).astype(float)
      plotting.sqrt_guide(ax_it, x, x[0], anchor)
    ax_it.set_title(game)
    plotting.log_log(ax_it, "iterations T", "NashConv", yunit=NASH_CONV_UNIT)
    plotting.log_log(ax_time, "solver time", "NashConv",
                     xunit=solver_runs.SOLVER_TIME_UNIT, yunit=NASH_CONV_UNIT)
  for ax in axes[:, 1:].flat:
    ax.set_ylabel("")  # Shared with the left column.
  plotting.legend_below(fig, ncol=4, title="solver (sampled: median and min-max band over seeds)")
  fig.suptitle("Three-player Kuhn poker: NashConv of the average policy against iterations "
               "(top) and time (bottom); no n-player convergence guarantee")
  return fig


# ``plot_family``'s middle panel enlarges the family's segment of values with this margin (chips),
# where the runs' final points gather.
ZOOM_MARGIN = 0.004


def _draw_values(ax: matplotlib.axes.Axes, data: pd.DataFrame, labelled: bool) -> None:
  """``plot_family``'s left (and, enlarged, middle) panel on ``ax``: the family's segment and
  every run of ``data`` (labelled for the legend if ``labelled``)."""
  betas = np.linspace(0, 0.25, 2)
  ax.plot(1 / 24 + betas / 24, -1 / 48 - betas / 24, color="black", linewidth=4, alpha=0.25,
          solid_capstyle="round",
          label="family: (1/24 + beta/24, -1/48 - beta/24), beta in [0, 1/4]" if labelled
          else None)
  first = int(data.seed.min()) if not data.empty else 0
  seen = set()
  for (solver, seed), group in data.groupby(["solver", "seed"], sort=False):
    group = group.sort_values("T")
    color = plotting.solver_style(solver)["color"]
    marker = seed_marker(seed, first)
    ax.plot(group.value_2, group.value_0, color=color, marker=marker, linewidth=0.8,
            markersize=3, alpha=0.7)
    last = group.iloc[-1]
    # Hollow, OpenSpiel's larger: an engine run at the same point shows inside the ring.
    ours = solver_registry.get_solver(solver).ours
    label = solver_registry.get_solver(solver).label if labelled and solver not in seen else None
    ax.plot([last.value_2], [last.value_0], color=color, marker=marker, linestyle="none",
            markersize=8 if ours else 13, markerfacecolor="none",
            markeredgewidth=1.8 if ours else 1.2, zorder=4 if ours else 3, label=label)
    ax.plot([last.value_2, last.member_value_2], [last.value_0, last.member_value_0],
            linestyle=":", color=color, linewidth=0.8)
    seen.add(solver)


def plot_family(runs: pd.DataFrame, solvers: Sequence[str]) -> matplotlib.figure.Figure:
  """Left: player 0's value against player 2's for every run (T/10 small, then T large and
  hollow, OpenSpiel's solvers' larger), the family's segment of values, and a dotted line from
  each final point to its nearest member's values. Middle: the same, enlarged around the segment
  (``ZOOM_MARGIN``; the grey rectangle on the left), where the final points gather, with beta
  marked. Right: player 1's value against T with the family's constant -1/48. Marker shape: seed
  (``seed_legend``)."""
  data = value_runs(runs, FAMILY_GAMES)
  fig, axes = plotting.subplots(1, 3, figsize=(16.0, 6.0))
  ax, zoom, ax_p1 = axes[0]
  _draw_values(ax, data, labelled=True)
  _draw_values(zoom, data, labelled=False)
  # Above right of the segment (the last below right, inside the axes), on top of any line.
  for beta, offset in ((0.0, (14, 10)), (0.125, (14, 10)), (0.25, (8, -16))):
    zoom.annotate(f"beta = {beta:g}", (1 / 24 + beta / 24, -1 / 48 - beta / 24), fontsize=7,
                  textcoords="offset points", xytext=offset, ha="left", color="dimgrey",
                  zorder=7, bbox={"boxstyle": "round,pad=0.2", "facecolor": "white",
                                  "edgecolor": "none", "alpha": 0.9},
                  arrowprops={"arrowstyle": "-", "color": "dimgrey", "linewidth": 0.6})
  zoom.set_xlim(1 / 24 - ZOOM_MARGIN, 5 / 96 + ZOOM_MARGIN)
  zoom.set_ylim(-1 / 32 - ZOOM_MARGIN, -1 / 48 + ZOOM_MARGIN)
  x0, x1, y0, y1 = (*zoom.get_xlim(), *zoom.get_ylim())
  ax.update_datalim([(x0, y0), (x1, y1)])  # The rectangle inside the left axes, not across
  ax.autoscale_view()                        # its title and labels.
  ax.indicate_inset((x0, y0, x1 - x0, y1 - y0), edgecolor="0.5")
  first = int(data.seed.min()) if not data.empty else 0
  seen = set()
  for (solver, seed), group in data.groupby(["solver", "seed"], sort=False):
    group = group.sort_values("T")
    ax_p1.plot(group["T"], group.value_1, color=plotting.solver_style(solver)["color"],
               marker=seed_marker(seed, first), linewidth=1, markersize=5,
               markerfacecolor="none",
               label=None if solver in seen else solver_registry.get_solver(solver).label)
    seen.add(solver)
  for panel in (ax, zoom):
    panel.set_xlabel("value of player 2, the paper's P3 (chips per hand)")
    panel.grid(True, alpha=0.3)
  ax.set_ylabel("value of player 0, the paper's P1 (chips per hand)")
  ax.set_title("Players 0 and 2: runs (small: T/10; large, hollow: T) and the family")
  zoom.set_title("The same, enlarged (grey rectangle on the left)")
  ax_p1.axhline(-1 / 48, color=plotting.REFERENCE_COLOR, linestyle="--", linewidth=1,
                label="family: player 1's value -1/48 for every member")
  ax_p1.set_xscale("log")
  ax_p1.set_xlabel(plotting.axis_label("iterations T", log=True))
  ax_p1.set_ylabel("value of player 1, the paper's P2 (chips per hand)")
  ax_p1.set_title("Player 1 against the family's constant value")
  ax_p1.grid(True, which="both", alpha=0.3)
  plotting.legend_below(fig, ncol=3, title=SOLVER_LEGEND)
  seed_legend(fig, data.seed)
  fig.suptitle("Three-player Kuhn poker: values of the average policies against the "
               "Szafron-Gibson-Sturtevant family")
  return fig


def plot_values(runs: pd.DataFrame, game: str,
                solvers: Sequence[str]) -> matplotlib.figure.Figure:
  """Every player's value of the average policy against T, one panel per player, for a game
  without a known equilibrium (no reference line); hollow markers, shape: seed."""
  data = value_runs(runs, [game])
  fig, axes = plotting.subplots(1, PLAYERS, figsize=(4.3 * PLAYERS + 1.3, 4.8))
  first = int(data.seed.min()) if not data.empty else 0
  seen = set()
  for (solver, seed), group in data.groupby(["solver", "seed"], sort=False):
    group = group.sort_values("T")
    for p, ax in enumerate(axes[0]):
      ax.plot(group["T"], group[f"value_{p}"], color=plotting.solver_style(solver)["color"],
              marker=seed_marker(seed, first), linewidth=1, markersize=5,
              markerfacecolor="none",
              label=None if solver in seen else solver_registry.get_solver(solver).label)
    seen.add(solver)
  for p, ax in enumerate(axes[0]):
    ax.set_xscale("log")
    ax.set_xlabel(plotting.axis_label("iterations T", log=True))
    ax.set_ylabel(f"value of player {p} (chips per hand)")
    ax.set_title(f"player {p}")
    ax.grid(True, which="both", alpha=0.3)
  plotting.legend_below(fig, ncol=4, title=SOLVER_LEGEND)
  seed_legend(fig, data.seed)
  fig.suptitle(f"{game}: players' values of the average policy (no published equilibrium)")
  return fig


def save_figures(curves: pd.DataFrame, runs: pd.DataFrame, game_strings: Sequence[str],
                 solvers: Sequence[str], out: pathlib.Path) -> Tuple[List[str], List[str]]:
  """Draws and saves the figures in ``out``: NashConv of the games played, the family's values if
  a family game was run, every player's values on each game without a known equilibrium.

  Returns:
    The figures' file names and their captions, in the same order.
  """
  figures, captions = [], []

  def save(figure: matplotlib.figure.Figure, name: str, caption: str, **values) -> None:
    plotting.save_figure(figure, out / name)
    figures.append(name)
    captions.append(CAPTIONS.fill(caption, figure=name, **values))

  played = [g for g in game_strings if (curves.game == g).any()]
  if played:
    save(plot_nash_conv(curves, played, solvers), "three_player_nash_conv.png", "nash_conv_figure")
  if not value_runs(runs, FAMILY_GAMES).empty:
    save(plot_family(runs, solvers), "three_player_family.png", "family_figure")
  for game in played:
    if game not in FAMILY_GAMES and not references.has_kuhn3_family(
        game_loader.load_game(game, two_player_zero_sum=False)):
      save(plot_values(runs, game, solvers), f"three_player_values_{plotting.slug(game)}.png",
           "values_figure", game=game)
  return figures, captions
