"""The files a command (or one part of it) writes into its folder, each named once: written
atomically (``tables.write_csv``, ``plotting.save_figure``) and recorded in the order written, for
the ``ReportSection`` that lists them (``Outputs.section``)."""

import pathlib
from typing import List, Sequence

import matplotlib.figure
import pandas as pd

from experiments.harness import plotting
from experiments.harness import section
from experiments.harness import tables
from experiments.harness.checks import Check
from experiments.harness.section import ReportSection


class Outputs:
  """Writes CSV tables and PNG figures into ``folder`` and keeps their names (relative to it).

  Attributes:
    folder: the command's folder (``Context.out``).
    tables: the CSV files written, in order.
    figures: the PNG files written, in order.
  """

  def __init__(self, folder: pathlib.Path):
    self.folder = pathlib.Path(folder)
    self.tables: List[str] = []
    self.figures: List[str] = []

  def table(self, frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Writes ``frame`` as the CSV file ``name``, records it, and returns ``frame``."""
    tables.write_csv(frame, self.folder / name)
    self.tables.append(name)
    return frame

  def figure(self, figure: matplotlib.figure.Figure, name: str) -> None:
    """Saves ``figure`` as the PNG file ``name`` (and closes it), and records it."""
    plotting.save_figure(figure, self.folder / name)
    self.figures.append(name)

  def section(self, title: str, texts: Sequence[str], checks: Sequence[Check]) -> ReportSection:
    """The section with ``title``, the markdown paragraphs ``texts`` (``section.paragraphs``)
    and ``checks`` that lists the files written so far."""
    return ReportSection(title=title, markdown=section.paragraphs(texts),
                         figures=list(self.figures), tables=list(self.tables), checks=list(checks))
