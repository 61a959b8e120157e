"""The four figures: learned vs exact leaves, exploitability against the value error, modified
CFR-AVG, self-play (their captions: ``captions.CAPTIONS``)."""

import math
from typing import Callable, Sequence

import matplotlib.axes
import matplotlib.figure
import matplotlib.ticker
import numpy as np
import pandas as pd

from experiments.commands.rebel_learned.plan import CutSetting
from experiments.commands.rebel_learned.plan import cut_label
from experiments.commands.rebel_learned.results import finals
from experiments.harness import plotting

COLOURS = {"full-game CFR": "black", "exact": "tab:green", "learned": "tab:orange",
           "Hedge": "tab:purple", "perturbed": "tab:blue", "perfect": "tab:grey"}
EXPLOITABILITY = "exploitability"
PER_HAND = "chips per hand"


def _per_cut_figure(cuts: Sequence[CutSetting], title: str,
                    draw: Callable[[matplotlib.axes.Axes, CutSetting], None],
                    legend_per_column: int = 2) -> matplotlib.figure.Figure:
  """One panel per cut, drawn by ``draw(ax, cut)`` and titled with the cut, one legend below the
  panels (``plotting.legend_below``, ``legend_per_column`` entries a row per column of panels,
  at most 4, so that the legend is no wider than the panels) and ``title`` above."""
  columns = min(len(cuts), 3 if len(cuts) > 4 else 2)
  rows = math.ceil(len(cuts) / columns)
  fig, axes = plotting.subplots(rows, columns, figsize=(4.2 * columns, 3.3 * rows + 0.9))
  for ax in axes.flat[len(cuts):]:
    ax.set_visible(False)
  for ax, cut in zip(axes.flat, cuts):
    draw(ax, cut)
    ax.set_title(cut_label(cut), fontsize=9)
  plotting.legend_below(fig, ncol=min(4, legend_per_column * columns))
  fig.suptitle(title)
  return fig


def _few_log_labels(ax: matplotlib.axes.Axes) -> None:
  """Labels a log-scale y axis at 1, 2 and 5 times the powers of ten, in plain numbers (0.02,
  0.05, 0.1), and leaves its other ticks unlabelled: over a decade or so matplotlib labels
  every minor tick of a log axis, and the labels crowd."""
  ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
  ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
  ax.yaxis.set_minor_locator(matplotlib.ticker.LogLocator(subs=np.arange(2, 10)))
  ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _of_cut(frame: pd.DataFrame, cut: CutSetting) -> pd.DataFrame:
  """The rows of ``frame`` for one cut (game, depth)."""
  return frame[(frame.game == cut[0]) & (frame.depth == cut[1])]


def _sqrt_guide(ax: matplotlib.axes.Axes, exact: pd.DataFrame) -> None:
  """The O(1/sqrt(T)) guide from the exact-leaf runs' median at their first measured T."""
  first = exact.iteration.min()
  start = exact[exact.iteration == first].exploitability.median()
  plotting.sqrt_guide(ax, np.sort(exact.iteration.unique()).astype(float), float(first),
                      float(start))


def _curve(ax, runs: pd.DataFrame, label: str, **style) -> None:
  """Median of the runs (one per seed) against iterations, with the min-max band (nothing for
  no runs)."""
  if runs.empty:
    return
  pivot = runs.pivot_table(index="seed", columns="iteration", values="exploitability")
  plotting.line_with_band(ax, pivot.columns.to_numpy(dtype=float), pivot.to_numpy(), label,
                          **style)


def plot_convergence(frame: pd.DataFrame, cuts: Sequence[CutSetting],
                     model_seeds: int) -> matplotlib.figure.Figure:
  """Figure 1: learned vs exact leaves vs full-game CFR, one panel per cut."""
  data = frame[frame.part == "convergence"]
  band = f" (median, min-max of {model_seeds} models)" if model_seeds > 1 else ""

  def draw(ax, cut):
    here = _of_cut(data, cut)
    _curve(ax, here[here.leaves == "full-game CFR"], "full-game CFR",
           color=COLOURS["full-game CFR"])
    exact = here[here.leaves == "exact"]
    _curve(ax, exact, "CFR-AVG, exact LP leaves", color=COLOURS["exact"])
    learned = here[here.leaves == "learned"]
    _curve(ax, learned, "CFR-AVG, learned leaves" + band, color=COLOURS["learned"])
    for runs, name in ((learned, "learned"), (exact, "exact")):
      last = runs[runs.trunk.notna()]
      ax.plot(last.iteration, last.trunk, linestyle="none", marker="v", color=COLOURS[name],
              label=f"{name} leaves: trunk with its best continuation")
    _sqrt_guide(ax, exact)
    plotting.log_log(ax, "iterations T", EXPLOITABILITY, yunit=PER_HAND)

  return _per_cut_figure(
      cuts, "CFR-AVG with learned vs exact leaf values: exploitability of the average policy",
      draw)


def plot_errors(frame: pd.DataFrame, cuts: Sequence[CutSetting]) -> matplotlib.figure.Figure:
  """Figure 2: exploitability against the value error, one panel per cut."""
  rows = finals(frame[frame.part == "error"])

  def draw(ax, cut):
    here = _of_cut(rows, cut)
    exact = finals(_of_cut(frame[(frame.part == "convergence") & (frame.leaves == "exact")], cut))
    perturbed = here[here.leaves == "perturbed"].sort_values("path_err_mean")
    learned = here[here.leaves == "learned"]
    # Each series twice: the average policy's exploitability (filled) and its trunk's (hollow).
    for runs, name, key, marker, line, trunk_line in (
        (perturbed, "exact + smooth error", "perturbed", "o", "-", "--"),
        (learned, "learned models", "learned", "s", "none", "none")):
      ax.plot(runs.path_err_mean, runs.exploitability, marker=marker, linestyle=line,
              color=COLOURS[key], label=f"{name}: exploitability")
      ax.plot(runs.path_err_mean, runs.trunk, marker=marker, linestyle=trunk_line,
              fillstyle="none", color=COLOURS[key],
              label=f"{name}: trunk with its best continuation")
    if len(exact):
      ax.axhline(float(exact.exploitability.median()), color=COLOURS["exact"], linestyle=":",
                 label="exact leaves, same T")
    if len(perturbed):
      x, y = perturbed.path_err_mean.to_numpy(), perturbed.exploitability.to_numpy()
      slope = float(x @ y / (x @ x))
      line = np.geomspace(0.5 * x.min(), 2 * x.max(), 20)
      ax.plot(line, slope * line, color="grey", linestyle="--", linewidth=1,
              label="least-squares line through 0 (smooth-error series)")
      ax.text(0.03, 0.95, f"fit: {slope:.2g} e", transform=ax.transAxes, fontsize=8,
              va="top", color="dimgrey")
    plotting.log_log(ax, "on-path mean value error e", EXPLOITABILITY, xunit="chips",
                     yunit=PER_HAND)

  return _per_cut_figure(cuts, "Exploitability of CFR-AVG against the error of its leaf values",
                         draw, legend_per_column=1)


def plot_modified(frame: pd.DataFrame, cuts: Sequence[CutSetting]) -> matplotlib.figure.Figure:
  """Figure 3: modified vs standard CFR-AVG with exact, Hedge and learned leaves."""
  data = frame[frame.part == "modified"]
  names = {"exact": "exact LP leaves", "Hedge": "Hedge leaves", "learned": "learned leaves"}

  def draw(ax, cut):
    here = _of_cut(data, cut)
    for leaves, name in names.items():
      for variant, style in (("standard", ":"), ("modified", "-")):
        runs = here[(here.leaves == leaves) & (here.variant == variant)]
        _curve(ax, runs, f"{variant} CFR-AVG, {name}", color=COLOURS[leaves], linestyle=style)
    exact = here[(here.leaves == "exact") & (here.variant == "standard")]
    if len(exact):
      _sqrt_guide(ax, exact)
    plotting.log_log(ax, "iterations T", EXPLOITABILITY, yunit=PER_HAND)
    _few_log_labels(ax)

  return _per_cut_figure(
      cuts, "Modified CFR-AVG (de-averaged leaf values, solid) vs standard (dotted)", draw)


def plot_self_play(frame: pd.DataFrame, cut: CutSetting, seeds: int) -> matplotlib.figure.Figure:
  """Figure 4: self-play's value error and search exploitability against rounds."""
  fig, axes = plotting.subplots(1, 2, figsize=(10, 4.2))
  ax_err, ax_exp = axes.flat
  rows = finals(frame[frame.part == "self-play"])
  rounds = np.sort(rows["round"].unique()).astype(float)

  def series(column):
    return rows.pivot_table(index="seed", columns="round", values=column).to_numpy()

  plotting.line_with_band(ax_err, rounds, series("err_mean"), "held-out mean",
                          color="tab:blue")
  plotting.line_with_band(ax_err, rounds, series("path_err_mean"), "on-path mean",
                          color="tab:red")
  plotting.line_with_band(ax_exp, rounds, series("exploitability"),
                          "search policy (learned leaves, LP continuation)",
                          color=COLOURS["learned"])
  plotting.line_with_band(ax_exp, rounds, series("trunk"),
                          "its trunk with the best continuation", color=COLOURS["learned"],
                          linestyle="--")
  exact = finals(frame[(frame.part == "self-play-reference")])
  if len(exact):
    ax_exp.axhline(float(exact.exploitability.median()), color=COLOURS["exact"], linestyle=":",
                   label="exact LP leaves, same T")
    ax_exp.axhline(float(exact.trunk.median()), color=COLOURS["exact"], linestyle="-.",
                   linewidth=1, label="exact LP leaves: trunk with its best continuation")
  # The quantity's definition is in the title: the label stays within the panel's height.
  ax_err.set_ylabel(plotting.axis_label("value error", "chips", log=True))
  ax_exp.set_ylabel(plotting.axis_label(EXPLOITABILITY, PER_HAND, log=True))
  for ax in (ax_err, ax_exp):
    ax.set_yscale("log")
    _few_log_labels(ax)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))  # Whole rounds.
    ax.set_xlabel("self-play round (0: untrained)")
    ax.grid(True, which="both", alpha=0.3)
  ax_err.set_title("value error of the model (max error of a counterfactual value)", fontsize=9)
  ax_exp.set_title("CFR-AVG search with the model's leaf values", fontsize=9)
  plotting.legend_below(fig, ncol=4)
  fig.suptitle(f"ReBeL self-play on {cut_label(cut)}: median and min-max of {seeds} seeds")
  return fig
