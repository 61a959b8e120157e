"""Plot helpers shared by the experiments: atomic PNG output, convergence axes, regime markers.

Figures are drawn with matplotlib's Agg backend (no display needed). Plot functions return the
``Figure`` and the experiment saves it with ``save_figure``, which also writes a JSON summary of
the figure's content (``describe_figure``: titles, axis labels and scales, the labelled series)
into the PNG's metadata, so that a saved figure can be checked without looking at it
(``read_figure_summary``).
"""

import json
import pathlib
import re
from typing import Any, Dict, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402  (after choosing the backend)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402  (Pillow comes with matplotlib)

from algorithms import atomic_file  # noqa: E402


def slug(text: str) -> str:
  """A file-name-safe version of ``text`` (e.g. of a game string)."""
  return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("_")


SUMMARY_KEY = "Description"  # The PNG text chunk holding ``describe_figure``'s JSON.


def describe_figure(fig: matplotlib.figure.Figure) -> Dict[str, Any]:
  """What a figure shows: its title and, per visible axes, title, labels, scales and the labels
  of its lines, collections and legend entries."""
  axes = []
  for ax in fig.axes:
    if not ax.get_visible() or not ax.axison:
      continue
    legend = ax.get_legend()
    axes.append({
        "title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
        "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
        "lines": [line.get_label() for line in ax.get_lines()],
        "collections": len(ax.collections),
        "legend": [text.get_text() for text in legend.get_texts()] if legend else []})
  return {"title": fig.get_suptitle(), "axes": axes}


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


def line_with_band(ax: matplotlib.axes.Axes, x: np.ndarray, runs: np.ndarray, label: str,
                   **style) -> None:
  """Draws the median of ``runs`` (one row per seed) against ``x``; with several rows, the
  min-max band over the rows around it."""
  runs = np.atleast_2d(runs)
  line, = ax.plot(x, np.median(runs, axis=0), label=label, **style)
  if runs.shape[0] > 1:
    ax.fill_between(x, runs.min(axis=0), runs.max(axis=0), color=line.get_color(), alpha=0.2,
                    linewidth=0)


def sqrt_guide(ax: matplotlib.axes.Axes, x: Sequence[float], anchor_x: float,
               anchor_y: float) -> None:
  """Draws the O(1/sqrt(T)) guide line y = anchor_y sqrt(anchor_x / x) (dashed, grey), the rate
  of CFR's regret bound (Zinkevich et al., NeurIPS 2007)."""
  x = np.asarray(x, dtype=float)
  ax.plot(x, anchor_y * np.sqrt(anchor_x / x), linestyle="--", color="grey", linewidth=1,
          label=r"$O(1/\sqrt{T})$")


def log_log(ax: matplotlib.axes.Axes, xlabel: str, ylabel: str) -> None:
  """Log scales on both axes, the axis labels and a light grid."""
  ax.set_xscale("log")
  ax.set_yscale("log")
  ax.set_xlabel(xlabel)
  ax.set_ylabel(ylabel)
  ax.grid(True, which="both", alpha=0.3)


def mark_regimes(ax: matplotlib.axes.Axes, boundaries: Sequence[float],
                 labels: Optional[Sequence[str]] = None) -> None:
  """Draws vertical dotted lines at regime boundaries and names the regimes between them.

  Args:
    ax: the axes (x is the swept parameter; set its scale and limits first).
    boundaries: increasing x positions inside the axes where the regime changes.
    labels: names of the len(boundaries) + 1 regimes, left to right (optional).
  """
  for b in boundaries:
    ax.axvline(b, color="black", linestyle=":", linewidth=1)
  if labels:
    lo, hi = ax.get_xlim()
    edges = [lo, *boundaries, hi]
    log = ax.get_xscale() == "log"
    for left, right, label in zip(edges[:-1], edges[1:], labels):
      middle = np.sqrt(left * right) if log else (left + right) / 2
      ax.text(middle, 0.98, label, transform=ax.get_xaxis_transform(), ha="center", va="top",
              fontsize=7, color="dimgrey")
