"""Plot helpers shared by the experiments: one style, solver colours, legends outside the data,
reference lines, regime strips, and atomic PNG output with a description of the figure.

Figures are drawn off-screen (the command line selects matplotlib's Agg backend in ``cli.main``;
a notebook keeps its own backend, so the figures show inline there) in one style (``STYLE``: font
sizes, the colour-blind-safe palette of Okabe & Ito, "Color universal design", 2008). A solver
has the same colour and line look in every figure (``solver_style``, keyed by its registry
name): the colour is its update rule's for the project's rule classes (``rule_color``: a new rule
gets its own, not its algorithm family's), else its algorithm's; the look its implementation's
(OpenSpiel's Python code: a
wide solid line, drawn under the others; OpenSpiel's C++: dotted with crosses; ours: dashed with
open circles), so that implementations of one algorithm that draw the same curve stay visible.

Plot functions return the ``Figure`` (built with ``subplots``, constrained layout) and the
experiment saves it with ``save_figure``, which also writes a JSON description of the figure
(``describe_figure``: titles, axis labels and scales, the labelled series with their styles, the
texts, every legend with its box and the axes it overlaps) into the PNG's metadata, so that a
saved figure can be checked without looking at it (``read_figure_summary``).
"""

import json
import pathlib
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import cycler  # (comes with matplotlib)
import matplotlib.axes
import matplotlib.colors
import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
from PIL import Image  # (Pillow comes with matplotlib)

from algorithms.cfr import update_rules
from experiments.harness import solver_registry  # noqa: E402
from spiel_games import atomic_file  # noqa: E402

# Okabe & Ito, "Color universal design: how to make figures and presentations that are friendly
# to colorblind people" (2008): eight colours that stay distinct under the common colour-vision
# deficiencies.
BLACK = "#000000"
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
PALETTE = (BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY_BLUE, BLACK, YELLOW)
REFERENCE_COLOR = "0.45"  # Reference lines: guides, bounds, regime boundaries.

STYLE = {
    "font.size": 9, "axes.titlesize": 9.5, "axes.labelsize": 9, "xtick.labelsize": 8,
    "ytick.labelsize": 8, "legend.fontsize": 8, "legend.title_fontsize": 8,
    "figure.titlesize": 11.5, "axes.prop_cycle": cycler.cycler(color=PALETTE),
    "lines.linewidth": 1.5, "grid.alpha": 0.3, "legend.frameon": False,
}
matplotlib.rcParams.update(STYLE)

# The colour of each algorithm (``SolverSpec.algorithm``).
ALGORITHM_COLORS = {
    "CFR": BLACK, "CFR (full game)": BLACK, "CFR+": BLUE, "CS-CFR": PURPLE, "MCCFR": ORANGE,
    "CFR-AVG": GREEN, "CFR-D": SKY_BLUE, "modified CFR-AVG": VERMILLION,
    # Wine, olive, teal, rose and sand of Paul Tol's colour-blind-safe "muted" scheme (SRON
    # technical note "Colour schemes", 2021): Okabe & Ito's eight are taken.
    "LCFR": "#882255", "DCFR": "#999933", "PCFR+": "#44AA99", "DCFR+": "#CC6677",
    "PDCFR+": "#DDCC77",
}
# The colour of each named rule of ``algorithms.cfr.update_rules.RULES`` (``NamedRule.name``):
# the solvers of its classes take it (OpenSpiel's CFR and ours, its CFR+ and ours, share one).
RULE_COLORS = {
    "CFR": ALGORITHM_COLORS["CFR"], "CFRPlus": ALGORITHM_COLORS["CFR+"],
    "LCFR": ALGORITHM_COLORS["LCFR"], "DCFR": ALGORITHM_COLORS["DCFR"],
    "PCFRPlus": ALGORITHM_COLORS["PCFR+"], "DCFRPlus": ALGORITHM_COLORS["DCFR+"],
    "PDCFRPlus": ALGORITHM_COLORS["PDCFR+"],
    # Meng et al. 2026's rules: Tol's "bright" purple and blue, outside the spare colours below.
    "SAPCFRPlus": "#AA3377", "APCFRPlus": "#4477AA",
}
# Colours of the rules not in ``RULE_COLORS``, in the order of ``RULES``: indigo, purple, green
# and cyan of Tol's "muted" scheme, the ones ``ALGORITHM_COLORS`` leaves.
SPARE_RULE_COLORS = ("#332288", "#AA4499", "#117733", "#88CCEE")


def rule_color(rule: update_rules.NamedRule) -> str:
  """A rule's colour in every figure: ``RULE_COLORS[rule.name]``, else the next of
  ``SPARE_RULE_COLORS`` in the order of the rules ``RULE_COLORS`` does not list (cycling), never
  the colour of the rule it specialises or of its algorithm family."""
  if rule.name in RULE_COLORS:
    return RULE_COLORS[rule.name]
  unlisted = [r.name for r in update_rules.RULES if r.name not in RULE_COLORS]
  index = unlisted.index(rule.name) if rule.name in unlisted else len(unlisted)
  return SPARE_RULE_COLORS[index % len(SPARE_RULE_COLORS)]


# The look of each implementation.
_OPENSPIEL = {"linestyle": "-", "linewidth": 2.6, "zorder": 2}
_CPP = {"linestyle": ":", "linewidth": 1.4, "marker": "x", "markersize": 5, "zorder": 3}
_OURS = {"linestyle": "--", "linewidth": 1.2, "marker": "o", "markersize": 4,
         "markerfacecolor": "none", "zorder": 3}
_LOOKS = {
    "cfr": _OPENSPIEL, "cfr_plus": _OPENSPIEL, "mccfr_external": _OPENSPIEL,
    "mccfr_outcome": {**_OPENSPIEL, "linestyle": "-."}, "cfr_cpp": _CPP,
    "mccfr_external_cpp": _CPP, "mccfr_outcome_cpp": {**_CPP, "marker": "+"},
    "cs_cfr_simultaneous": {**_OURS, "marker": "s"},
    "our_mccfr_outcome": {**_OURS, "marker": "^"},
}  # the project's other solvers (``SolverSpec.ours``): _OURS, or the weighting's line style
# CFR-AVG and its relatives (algorithms.CFRAvgSolver): the line style is the averaging.
WEIGHTING_STYLES = {"uniform": "-", "linear": "--"}


def solver_style(name: str) -> Dict[str, Any]:
  """The matplotlib line style of a registered solver (the same in every figure): its colour
  (``SolverSpec.color``, else its rule's, ``rule_color``, for a class made from a named rule,
  else its algorithm's, dark grey if unknown) and its implementation's look (``_LOOKS``; the
  project's solvers not listed there look like ``_OURS``, CFR-AVG's by their weighting; any other
  a solid line)."""
  spec = solver_registry.get_solver(name)
  rule = getattr(spec.cls, "named_rule", None)  # Set on the classes ``update_rules`` makes.
  style = {"color": spec.color or (rule_color(rule) if rule is not None
                                   else ALGORITHM_COLORS.get(spec.algorithm, "0.3"))}
  weighting = spec.options.get("weighting")
  if name in _LOOKS:
    style.update(_LOOKS[name])
  elif weighting in WEIGHTING_STYLES:
    style.update(linestyle=WEIGHTING_STYLES[weighting], linewidth=1.5)
  elif spec.ours:
    style.update(_OURS)
  else:
    style.update(linestyle="-", linewidth=1.5)
  return style


def subplots(rows: int = 1, cols: int = 1, figsize: Tuple[float, float] = (6.4, 4.2),
             **kwargs) -> Tuple[matplotlib.figure.Figure, np.ndarray]:
  """``plt.subplots`` with constrained layout (room for titles and outside legends) and a 2-D
  array of axes."""
  return plt.subplots(rows, cols, figsize=figsize, squeeze=False, layout="constrained",
                      **kwargs)


def slug(text: str) -> str:
  """A file-name-safe version of ``text`` (e.g. of a game string)."""
  return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("_")


def axis_label(quantity: str, unit: Optional[str] = None, log: bool = False) -> str:
  """An axis label: "quantity (unit, log scale)"."""
  notes = [n for n in (unit, "log scale" if log else None) if n]
  return quantity + (f" ({', '.join(notes)})" if notes else "")


SUMMARY_KEY = "Description"  # The PNG text chunk holding ``describe_figure``'s JSON.


def _box(fig: matplotlib.figure.Figure, artist) -> List[float]:
  """The artist's box [x0, y0, x1, y1] in figure fractions (after drawing)."""
  box = artist.get_window_extent().transformed(fig.transFigure.inverted())
  return [round(float(v), 4) for v in (box.x0, box.y0, box.x1, box.y1)]


def _overlap(a: Sequence[float], b: Sequence[float]) -> bool:
  return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _line_style(line) -> Dict[str, Any]:
  return {"color": matplotlib.colors.to_hex(line.get_color()),
          "linestyle": line.get_linestyle(), "marker": str(line.get_marker())}


def describe_figure(fig: matplotlib.figure.Figure) -> Dict[str, Any]:
  """What a figure shows, after laying it out.

  Returns:
    {"title": the figure's title, "title_bbox": its box (figure fractions, None without a
    title), "texts": its other texts (notes), "axes": per visible axes
    {"title", "xlabel", "ylabel", "xscale", "yscale", "lines" (labels of its lines),
    "styles" ({label: colour, line style, marker} of its labelled lines), "collections" (count),
    "texts", "legend" (entries of its own legend), "colorbar" (whether it is one), "bbox"
    (figure fractions)}, "legends": every legend (the axes' and the figure's) as {"entries",
    "bbox", "overlaps": indices in "axes" of the axes whose data area it covers}}.
  """
  fig.draw_without_rendering()
  axes, boxes = [], []
  for ax in fig.axes:
    if not ax.get_visible() or not ax.axison:
      continue
    legend = ax.get_legend()
    boxes.append(_box(fig, ax))
    axes.append({
        "title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
        "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
        "lines": [line.get_label() for line in ax.get_lines()],
        "styles": {line.get_label(): _line_style(line) for line in ax.get_lines()
                   if not line.get_label().startswith("_")},
        "collections": len(ax.collections),
        "texts": [t.get_text() for t in ax.texts],
        "legend": [text.get_text() for text in legend.get_texts()] if legend else [],
        "colorbar": hasattr(ax, "_colorbar"), "bbox": boxes[-1]})
  legends = []
  for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
    if legend is None:
      continue
    box = _box(fig, legend)
    legends.append({"entries": [t.get_text() for t in legend.get_texts()], "bbox": box,
                    "overlaps": [i for i, b in enumerate(boxes) if _overlap(box, b)]})
  title = fig._suptitle  # noqa: SLF001  (matplotlib keeps no public handle on it)
  return {"title": fig.get_suptitle(), "title_bbox": _box(fig, title) if title else None,
          "texts": [t.get_text() for t in fig.texts if t is not title], "axes": axes,
          "legends": legends}


def save_figure(fig: matplotlib.figure.Figure, path: pathlib.Path) -> pathlib.Path:
  """Saves ``fig`` as a PNG at ``path`` atomically with ``describe_figure`` in its metadata,
  closes it, and returns ``path``."""
  metadata = {SUMMARY_KEY: json.dumps(describe_figure(fig))}
  atomic_file.atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110,
                                                         bbox_inches="tight", metadata=metadata))
  plt.close(fig)
  return pathlib.Path(path)


def read_figure_summary(path: pathlib.Path) -> Dict[str, Any]:
  """The ``describe_figure`` summary saved in a PNG written by ``save_figure``."""
  with Image.open(path) as image:
    return json.loads(image.text[SUMMARY_KEY])


def legend_below(fig: matplotlib.figure.Figure, ncol: int, title: Optional[str] = None,
                 order: Optional[Sequence[str]] = None) -> None:
  """One legend for the whole figure, below the axes (outside the data): the labelled artists
  of every axes, once per label; only those of ``order``, in that order, if given."""
  handles: Dict[str, Any] = {}
  for ax in fig.axes:
    for handle, label in zip(*ax.get_legend_handles_labels()):
      handles.setdefault(label, handle)
  labels = list(handles) if order is None else [x for x in order if x in handles]
  fig.legend([handles[x] for x in labels], labels, loc="outside lower center",
             ncol=min(ncol, len(labels)), title=title)


def line_with_band(ax: matplotlib.axes.Axes, x: np.ndarray, runs: np.ndarray, label: str,
                   **style) -> None:
  """Draws the median of ``runs`` (one row per seed) against ``x``; with several rows, the
  min-max band over the rows around it."""
  runs = np.atleast_2d(runs)
  line, = ax.plot(x, np.median(runs, axis=0), label=label, **style)
  if runs.shape[0] > 1:
    ax.fill_between(x, runs.min(axis=0), runs.max(axis=0), color=line.get_color(), alpha=0.2,
                    linewidth=0, zorder=1)


SQRT_GUIDE = r"$O(1/\sqrt{T})$ guide"


def sqrt_guide(ax: matplotlib.axes.Axes, x: Sequence[float], anchor_x: float,
               anchor_y: float) -> None:
  """Draws the O(1/sqrt(T)) guide line y = anchor_y sqrt(anchor_x / x) (dashed, grey), the rate
  of CFR's regret bound (Zinkevich et al., NeurIPS 2007)."""
  x = np.asarray(x, dtype=float)
  ax.plot(x, anchor_y * np.sqrt(anchor_x / x), linestyle=(0, (6, 3)), color=REFERENCE_COLOR,
          linewidth=1, label=SQRT_GUIDE, zorder=1)


def log_log(ax: matplotlib.axes.Axes, xlabel: str, ylabel: str, xunit: Optional[str] = None,
            yunit: Optional[str] = None) -> None:
  """Log scales on both axes, the axis labels with their units (saying "log scale") and a light
  grid."""
  ax.set_xscale("log")
  ax.set_yscale("log")
  ax.set_xlabel(axis_label(xlabel, xunit, log=True))
  ax.set_ylabel(axis_label(ylabel, yunit, log=True))
  ax.grid(True, which="major", alpha=0.3)


def same_curve(a: Sequence[float], b: Sequence[float], tolerance: float = 1e-9) -> bool:
  """True if two curves at the same points differ by at most ``tolerance`` everywhere."""
  a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
  return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tolerance))


def note(ax: matplotlib.axes.Axes, text: str, corner: str = "upper right") -> None:
  """A boxed note inside the axes, in a corner the caller knows to be free of data."""
  x = 0.97 if "right" in corner else 0.03
  y = 0.97 if "upper" in corner else 0.03
  ax.text(x, y, text, transform=ax.transAxes, ha="right" if "right" in corner else "left",
          va="top" if "upper" in corner else "bottom", multialignment="left", fontsize=8, zorder=6,
          bbox={"boxstyle": "round,pad=0.35", "facecolor": "white", "edgecolor": "0.6"})


REGIME_TITLE_PAD = 28  # Points between an axes and its title: room for ``mark_regimes``' strip.


def mark_regimes(ax: matplotlib.axes.Axes, boundaries: Sequence[float],
                 labels: Sequence[str] = (), boundary_labels: Sequence[str] = ()) -> None:
  """Dotted vertical lines at regime boundaries, and the regimes' names in a strip above the
  axes (outside the data; give the axes' title ``pad=REGIME_TITLE_PAD``).

  Args:
    ax: the axes (x is the swept parameter; set its scale and limits first).
    boundaries: increasing x positions inside the axes where the regime changes.
    labels: names of the len(boundaries) + 1 regimes between them, left to right, written just
      above the axes.
    boundary_labels: names of the boundaries themselves (e.g. point regimes), written above
      their line, over the first row.
  """
  for b in boundaries:
    ax.axvline(b, color=REFERENCE_COLOR, linestyle=":", linewidth=1, zorder=1)
  lo, hi = ax.get_xlim()
  edges = [lo, *boundaries, hi]
  log = ax.get_xscale() == "log"
  rows = [(0, [np.sqrt(a * b) if log else (a + b) / 2 for a, b in zip(edges, edges[1:])],
           labels), (1, list(boundaries), boundary_labels)]
  for row, positions, names in rows:
    for x, name in zip(positions, names):
      # A boundary's name is joined to its line by a dotted stroke.
      arrow = {"arrowstyle": "-", "linestyle": ":", "color": REFERENCE_COLOR} if row else None
      ax.annotate(name, xy=(x, 1), xycoords=("data", "axes fraction"),
                  xytext=(0, 2 + 11 * row), textcoords="offset points", ha="center",
                  va="bottom", fontsize=7, color="0.25", arrowprops=arrow)
