"""Tables: CSV files written atomically and markdown tables for the report."""

import pathlib
from typing import Any

import numpy as np
import pandas as pd

from spiel_games import atomic_file


def markdown_table(frame: pd.DataFrame, digits: int = 4) -> str:
  """A markdown table of ``frame`` (index dropped), floats to ``digits`` significant digits."""
  def cell(x: Any) -> str:
    if isinstance(x, (float, np.floating)):
      return f"{x:.{digits}g}"
    return str(x)
  lines = ["| " + " | ".join(str(c) for c in frame.columns) + " |",
           "|" + "---|" * len(frame.columns)]
  for row in frame.itertuples(index=False):
    lines.append("| " + " | ".join(cell(x) for x in row) + " |")
  return "\n".join(lines)


def write_csv(frame: pd.DataFrame, path: pathlib.Path) -> None:
  """Writes ``frame`` (index dropped) as a CSV file at ``path`` atomically."""
  atomic_file.atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
