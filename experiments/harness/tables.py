"""Tables: CSV files written atomically and markdown tables for the report.

A markdown table never shows a raw ``nan``: a missing number (NaN or None) is shown as
``MISSING`` and the table is followed by a footnote saying what is missing and why (the
``missing`` argument of ``markdown_table``). A ``|`` in a cell is escaped (``escape``).
"""

import math
import pathlib
from typing import Any, Mapping, Union

import numpy as np
import pandas as pd

from spiel_games import atomic_file

# What a missing number (NaN or None) shows in a markdown table.
MISSING = "n/a"
# The footnote's reason when the caller gives none.
NO_VALUE = "no value for this row"


def is_missing(x: Any) -> bool:
  """True for a missing scalar: None, NaN, ``pd.NA``, ``pd.NaT``."""
  if x is None or x is pd.NA or x is pd.NaT:
    return True
  return isinstance(x, (float, np.floating)) and math.isnan(x)


def escape(text: Any) -> str:
  """``text`` for a markdown table cell: a ``|`` would end the cell, so it is escaped."""
  return str(text).replace("|", "\\|")


def markdown_table(frame: pd.DataFrame, digits: int = 4,
                   missing: Union[str, Mapping[str, str]] = NO_VALUE) -> str:
  """A markdown table of ``frame`` (index dropped), floats to ``digits`` significant digits.

  Args:
    frame: the rows.
    digits: significant digits of floats.
    missing: why a number is missing: one reason for the table, or {column: reason}. A table
      with missing numbers shows them as ``MISSING`` and ends with a footnote giving the reason
      (per column with a mapping; a column the mapping does not name gets ``NO_VALUE``).
  """
  def cell(x: Any) -> str:
    if is_missing(x):
      return MISSING
    if isinstance(x, (float, np.floating)):
      return f"{x:.{digits}g}"
    return escape(x)
  lines = ["| " + " | ".join(escape(c) for c in frame.columns) + " |",
           "|" + "---|" * len(frame.columns)]
  gaps = set()
  for row in frame.itertuples(index=False):
    lines.append("| " + " | ".join(cell(x) for x in row) + " |")
    gaps |= {c for c, x in zip(frame.columns, row) if is_missing(x)}
  if gaps:
    columns = [c for c in frame.columns if c in gaps]
    if isinstance(missing, str):
      lines += ["", f"{MISSING}: {missing}."]
    else:
      lines += ["", "; ".join(f"{MISSING} in {c}: {missing.get(str(c), NO_VALUE)}"
                              for c in columns) + "."]
  return "\n".join(lines)


def write_csv(frame: pd.DataFrame, path: pathlib.Path) -> None:
  """Writes ``frame`` (index dropped) as a CSV file at ``path`` atomically."""
  atomic_file.atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
