"""The experiment's figures: the agent's exploitability against T beside the stitched policy, and
against the on-path value error."""

from typing import Dict, Sequence

import matplotlib.figure
import matplotlib.ticker
import numpy as np
import pandas as pd

from experiments.commands.rebel_agent.plan import CFR_K
from experiments.commands.rebel_agent.plan import EXACT
from experiments.commands.rebel_agent.plan import HEDGE
from experiments.commands.rebel_agent.plan import LEARNED
from experiments.commands.rebel_agent.plan import Setting
from experiments.commands.rebel_agent.plan import StakesPlan
from experiments.harness import plotting

COLORS = {EXACT: plotting.GREEN, CFR_K: plotting.BLUE, HEDGE: plotting.PURPLE,
          LEARNED: plotting.ORANGE}
AGENT = {"linestyle": "-", "marker": "o", "markersize": 4, "linewidth": 1.6, "zorder": 4}
STITCHED = {"linestyle": (0, (4, 2)), "marker": "x", "markersize": 5, "linewidth": 1.0,
            "zorder": 3}


def _panels(settings: Sequence, legend_height: float):
  """A figure with one panel per setting (or game), two per row (unused panels hidden), and the
  pairs (setting, axes)."""
  cols = min(2, len(settings))
  rows = (len(settings) + cols - 1) // cols
  fig, axes = plotting.subplots(rows, cols, figsize=(5.6 * cols, 3.6 * rows + legend_height))
  flat = [axes[k // cols][k % cols] for k in range(rows * cols)]
  for ax in flat[len(settings):]:
    ax.set_visible(False)
  return fig, list(zip(settings, flat))


def _same_ticks(ax) -> None:
  """The same kind of tick labels on every log axis of a figure: powers of ten on an axis that
  spans two decades or more, 1, 2 and 5 times a power of ten on one that spans one to two, every
  integer multiple on a shorter one, as plain numbers; minor ticks unlabelled (matplotlib's
  default labels minor ticks only on short axes, so neighbouring panels would differ)."""
  for axis, (low, high) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
    if axis.get_scale() != "log":
      continue
    decades = np.log10(high / low)
    subs = (1.0,) if decades >= 2 else (1.0, 2.0, 5.0) if decades >= 1 else np.arange(1.0, 10.0)
    axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=subs))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def plot_convergence(frame: pd.DataFrame, settings: Sequence[Setting]) -> matplotlib.figure.Figure:
  """One panel per setting: the agent (solid) and the stitched policy (dashed) per leaf solver,
  full-game CFR (black), against T, log-log."""
  fig, panels = _panels(settings, 1.2)
  for setting, ax in panels:
    data = frame[frame.setting == setting.label]
    for (kind, leaves), run in data.groupby(["kind", "leaf solver"], sort=False):
      run = run.sort_values("iterations")
      if kind == "CFR":
        ax.plot(run.iterations, run.exploitability, color=plotting.BLACK, linewidth=1.2,
                label="full-game CFR")
        continue
      style = AGENT if kind == "agent" else STITCHED
      ax.plot(run.iterations, run.exploitability, color=COLORS[leaves],
              label=f"{kind}, {leaves} leaves", **style)
    plotting.log_log(ax, "iterations T of each search", "exploitability", yunit="chips per hand")
    ax.set_title(setting.label)
    _same_ticks(ax)
  order = [f"{kind}, {leaves} leaves" for kind in ("agent", "stitched")
           for leaves in COLORS] + ["full-game CFR"]
  plotting.legend_below(fig, ncol=5, order=order)
  fig.suptitle("ReBeL's agent (solid: searches again at every leaf, exact mixture over its "
               "draws) and the stitched policy (dashed)")
  return fig


def plot_errors(errors: pd.DataFrame, settings: Sequence[Setting]) -> matplotlib.figure.Figure:
  """One panel per setting: exploitability against the on-path value error at one T; the
  perturbed exact values (blue) with a least-squares line through the exact agent's point, the
  learned values (orange squares), the exact leaves (green)."""
  fig, panels = _panels(settings, 1.0)
  for setting, ax in panels:
    data = errors[errors.setting == setting.label]
    exact = data[data.series == "exact"]
    perturbed = data[data.series == "perturbed"].sort_values("error")
    learned = data[data.series == "learned"]
    ax.plot(perturbed.error, perturbed.agent, "o-", color=plotting.BLUE,
            label="agent, exact values + perturbation")
    ax.plot(perturbed.error, perturbed.stitched, "o", color=plotting.BLUE, fillstyle="none",
            linestyle=":", label="stitched, exact values + perturbation")
    if len(learned):
      ax.plot(learned.error, learned.agent, "s", color=plotting.ORANGE, markersize=7,
              label="agent, learned values")
      ax.plot(learned.error, learned.stitched, "s", color=plotting.ORANGE, fillstyle="none",
              markersize=7, label="stitched, learned values")
    if len(exact):
      ax.axhline(float(exact.agent.iloc[0]), color=plotting.GREEN, linestyle=":",
                 label="agent, exact leaves (error 0)")
    if len(perturbed):
      base = float(exact.agent.iloc[0]) if len(exact) else 0.0
      slope = float(np.sum(perturbed.error * (perturbed.agent - base)) /
                    np.sum(perturbed.error ** 2))
      x = np.geomspace(float(perturbed.error.min()) / 2, float(perturbed.error.max()), 50)
      ax.plot(x, base + slope * x, color=plotting.REFERENCE_COLOR, linestyle="--",
              linewidth=1, label="least squares: exact + slope x error")
      plotting.note(ax, f"slope {slope:.2g}", corner="upper left")
    plotting.log_log(ax, "mean on-path value error", "exploitability", xunit="chips",
                     yunit="chips per hand")
    ax.set_title(f"{setting.label}, T = {int(data.iterations.iloc[0])}" if len(data)
                 else setting.label)
    _same_ticks(ax)
  plotting.legend_below(fig, ncol=3)
  fig.suptitle("The agent's exploitability against the value error of its leaves")
  return fig


def plot_self_play(frame: pd.DataFrame, exact: pd.DataFrame,
                   bounds: Dict[int, float]) -> matplotlib.figure.Figure:
  """One panel per deck: the agent's exploitability at the curve's T against the self-play
  episodes played, per kind of target (median and min-max band over the seeds), with the
  exact-leaf agent at that T (green) and the target's bound on the median (dotted grey)."""
  decks = sorted(frame.deck.unique())
  fig, axes = plotting.subplots(1, len(decks), figsize=(5.6 * len(decks), 4.6))
  colors = dict(zip(frame.targets.unique(), (plotting.ORANGE, plotting.BLUE)))
  curve_t = int(frame.groupby("round").iterations.min().min())
  for ax, deck in zip(axes[0], decks):
    runs = frame[(frame.deck == deck) & (frame.iterations == curve_t)]
    for targets, run in runs.groupby("targets", sort=False):
      curve = run.pivot_table(index="seed", columns="episodes", values="exploitability")
      plotting.line_with_band(ax, curve.columns.to_numpy(), curve.to_numpy(),
                              label=f"{targets}, {len(curve)} seeds", color=colors[targets],
                              marker="o")
    reference = exact[(exact.deck == deck) & (exact.iterations == curve_t)].exploitability
    if len(reference):
      ax.axhline(float(reference.iloc[0]), color=plotting.GREEN, label="exact leaves")
      ax.axhline(bounds[deck] * float(reference.iloc[0]), color=plotting.REFERENCE_COLOR,
                 linestyle=":", linewidth=1.2,
                 label=f"{bounds[deck]:g} x exact ({deck} cards: the target's bound)")
    ax.set_yscale("log")
    ax.set_xlabel("self-play episodes played")
    ax.set_ylabel(plotting.axis_label("exploitability", "chips per hand", log=True))
    ax.set_title(f"{deck} cards, lookahead 1, agent at T = {curve_t}")
    ax.grid(True, alpha=0.3)
    _same_ticks(ax)
  plotting.legend_below(fig, ncol=4)
  fig.suptitle("ReBeL that learns by itself: the network at every leaf, one value per player and "
               "card")
  return fig


def plot_stakes(frame: pd.DataFrame, plan: StakesPlan) -> matplotlib.figure.Figure:
  """One panel per lookahead (rows) and stakes (columns: seen, then unseen): the agent with exact
  (green) and learned (orange) leaves against T, and twice the exact agent (the target's bound,
  dotted grey), log-log."""
  ratios = list(plan.seen) + list(plan.unseen)
  lookaheads = [lookahead for lookahead, _ in plan.agents]
  fig, axes = plotting.subplots(len(lookaheads), len(ratios),
                                figsize=(3.4 * len(ratios), 3.0 * len(lookaheads) + 1.0))
  for row, lookahead in enumerate(lookaheads):
    for col, ratio in enumerate(ratios):
      ax = axes[row][col]
      data = frame[(frame.lookahead == lookahead) & (frame.stakes == ratio)]
      exact = data[data["leaf solver"] == EXACT].sort_values("iterations")
      learned = data[data["leaf solver"] == LEARNED].sort_values("iterations")
      ax.plot(exact.iterations, 2 * exact.exploitability, color=plotting.REFERENCE_COLOR,
              linestyle=":", linewidth=1.2, label="2 x exact (the target's bound)")
      ax.plot(exact.iterations, exact.exploitability, color=COLORS[EXACT], label="exact LP leaves",
              **AGENT)
      ax.plot(learned.iterations, learned.exploitability, color=COLORS[LEARNED],
              label="learned leaves (one model for all stakes)", **dict(AGENT, marker="s"))
      plotting.log_log(ax, "iterations T of each search", "exploitability",
                       yunit="chips per hand")
      if row < len(lookaheads) - 1:
        ax.set_xlabel("")
      if col > 0:
        ax.set_ylabel("")
      _same_ticks(ax)
      seen = "trained on" if ratio in plan.trained else "unseen"
      ax.set_title(f"ante/bet {ratio:g} ({seen}), lookahead {lookahead}", fontsize=9)
  plotting.legend_below(fig, ncol=3)
  fig.suptitle(f"ReBeL's agent on {plan.deck}-card Kuhn poker: one value function per cut for "
               f"ante/bet {min(plan.trained):g} to {max(plan.trained):g} (trained on "
               f"{', '.join(f'{r:g}' for r in plan.trained)})")
  return fig


def plot_paper_curve(curve: pd.DataFrame, baselines: pd.DataFrame,
                     paper: Dict[str, float]) -> matplotlib.figure.Figure:
  """One panel per game: the paper protocol's estimate (the exploitability of the average of n
  sampled strategies) against n, median and min-max band over the seeds, log-log; full-game CFR
  after its iterations (black) and the paper's ReBeL number (dashed grey) where it has one."""
  fig, panels = _panels(list(dict.fromkeys(curve.game)), 1.2)
  for game, ax in panels:
    data = curve[curve.game == game]
    runs = data.pivot_table(index="seed", columns="strategies", values="exploitability")
    plotting.line_with_band(ax, runs.columns.to_numpy(), runs.to_numpy(),
                            label=f"ReBeL, exact leaves (median, {len(runs)} seeds)",
                            color=COLORS[EXACT], marker="o")
    cfr = baselines[(baselines.game == game) & (baselines.method == "full-game CFR")]
    if len(cfr):
      ax.axhline(float(cfr.exploitability.iloc[0]), color=plotting.BLACK, linewidth=1.2,
                 label=f"full-game CFR, {int(cfr.iterations.iloc[0]):,} iterations")
    if game in paper:
      ax.axhline(paper[game], color=plotting.REFERENCE_COLOR, linestyle="--", linewidth=1.2,
                 label="the paper's ReBeL (1,024 strategies)")
    plotting.log_log(ax, "sampled strategies averaged", "exploitability = NashConv / 2")
    ax.set_title(f"{game}, T = {int(data['T'].iloc[0])} rounds", fontsize=9)
    _same_ticks(ax)
  plotting.legend_below(fig, ncol=3)
  fig.suptitle("ReBeL's agent scored as the paper scores it, against the sampled strategies "
               "averaged")
  return fig
