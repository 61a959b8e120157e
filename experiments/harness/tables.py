"""Tables: CSV files written atomically and markdown tables for the report.

A markdown table (``markdown_table``, rendered by ``pandas.DataFrame.to_markdown``) shows each
numeric column in one format (``column_format``: whole numbers, fixed point or scientific, never
a mix, with thousands separators) and right-aligns it. It never shows a raw ``nan``: a missing
number (NaN or None) is shown as ``MISSING`` and the table is followed by a footnote saying what
is missing and why (the ``missing`` argument). A ``|`` in a cell is escaped (``escape``).
"""

import math
import numbers
import pathlib
from typing import Any, Callable, Mapping, Sequence, Union

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


def column_format(values: Sequence[float], digits: int = 4) -> Callable[[float], str]:
  """One number format for a column: whole numbers with thousands separators; else, when every
  nonzero magnitude lies in [1e-4, 1e6), fixed point with the decimals that show the smallest
  to ``digits`` significant digits (at most ``digits`` + 4 decimals; thousands separators); else
  scientific with ``digits`` significant digits. NaN shows as "not a number" in any."""
  finite = [abs(float(v)) for v in values if math.isfinite(v)]
  if all(v == int(v) for v in finite):
    fmt = "{:,.0f}"
  elif all(1e-4 <= v < 1e6 for v in finite if v):
    decimals = min(digits + 4, max(digits - 1 - math.floor(math.log10(v)) for v in finite if v))
    fmt = f"{{:,.{decimals}f}}"
  else:
    fmt = f"{{:.{digits - 1}e}}"
  return lambda x: "not a number" if math.isnan(x) else str(x) if math.isinf(x) else fmt.format(x)


def _is_number(x: Any) -> bool:
  return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def markdown_table(frame: pd.DataFrame, digits: int = 4,
                   missing: Union[str, Mapping[str, str]] = NO_VALUE,
                   right: Sequence[str] = ()) -> str:
  """A markdown table of ``frame`` (index dropped), each numeric column in one format.

  Args:
    frame: the rows.
    digits: significant digits of the numbers (``column_format``).
    missing: why a number is missing: one reason for the table, or {column: reason}. A table
      with missing numbers shows them as ``MISSING`` and ends with a footnote giving the reason
      (per column with a mapping; a column the mapping does not name gets ``NO_VALUE``).
    right: columns of text to right-align too (numbers already formatted by the caller); a
      column whose cells are all numbers is right-aligned anyway.
  """
  columns, align, gaps = [], [], []
  for name, values in frame.items():
    present = [x for x in values if not is_missing(x)]
    fmt = column_format([x for x in present if _is_number(x)], digits)
    columns.append([MISSING if is_missing(x) else fmt(x) if _is_number(x) else escape(x)
                    for x in values])
    numeric = bool(present) and all(_is_number(x) for x in present)
    align.append("right" if numeric or name in right else "left")
    if len(present) < len(values):
      gaps.append(name)
  cells = pd.DataFrame(dict(enumerate(columns)), columns=range(len(columns)))
  cells.columns = [escape(c) for c in frame.columns]
  lines = [cells.to_markdown(index=False, colalign=align, disable_numparse=True)]
  if gaps:
    if isinstance(missing, str):
      lines += ["", f"{MISSING}: {missing}."]
    else:
      lines += ["", "; ".join(f"{MISSING} in {c}: {missing.get(str(c), NO_VALUE)}"
                              for c in gaps) + "."]
  return "\n".join(lines)


def write_csv(frame: pd.DataFrame, path: pathlib.Path) -> None:
  """Writes ``frame`` (index dropped) as a CSV file at ``path`` atomically."""
  atomic_file.atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
