"""The report's four tables, one per figure, from the results frame, and how the report shows
them (``for_markdown``: the columns' names in words with units, ``MISSING``: why a number is
missing); the CSV files keep the short column names."""

import re

import pandas as pd

from experiments.commands.rebel_learned.plan import TABLE_ITERATIONS
from experiments.commands.rebel_learned.results import finals

EXPLOITABILITY = "exploitability (chips per hand)"
TRUNK = "trunk with its best continuation: exploitability (chips per hand)"
Q_CALL = "P(player 1 holding Q calls a bet) in the average policy"
# The markdown header of each CSV column (a column not named here keeps its name; ``T=<t>`` is
# "exploitability at T=<t> (chips per hand)").
HEADERS = {
    "depth": "depth limit",
    "leaves": "leaf values",
    "variant": "CFR-AVG variant",
    "label": "series (perturbation size or training steps)",
    "err_mean": "held-out value error, mean (chips)",
    "err_max": "held-out value error, max (chips)",
    "path_err_mean": "on-path value error, mean (chips)",
    "path_err_max": "on-path value error, max (chips)",
    "exploitability": EXPLOITABILITY,
    "trunk": TRUNK,
    "P(Q calls bet)": Q_CALL,
    "round": "self-play round (0: untrained)",
    "examples": "replay-buffer examples (median over seeds, rounded down)",
    "held-out err (median)": "held-out value error, mean: median over seeds (chips)",
    "on-path err (median)": "on-path value error, mean: median over seeds (chips)",
    "on-path err (max)": "on-path value error, mean: max over seeds (chips)",
    "exploitability (median)": "exploitability: median over seeds (chips per hand)",
    "exploitability (min)": "exploitability: min over seeds (chips per hand)",
    "exploitability (max)": "exploitability: max over seeds (chips per hand)",
    "trunk (median)": ("trunk with its best continuation: exploitability, median over seeds "
                       "(chips per hand)"),
}
# Why a number is missing, per markdown header (``tables.markdown_table``'s ``missing``).
MISSING = {
    TRUNK: "full-game CFR has no depth limit, so no trunk",
    Q_CALL: ("measured only on kuhn_poker at depth limit 1, where this decision lies below the "
             "leaves, in the averaged continuation (1/3 in every equilibrium); not recorded on "
             "other games and depths"),
}


def header(column: str) -> str:
  """The markdown header of a table's column (``HEADERS``)."""
  at = re.fullmatch(r"T=(\d+)", column)
  if at:
    return f"exploitability at T={at.group(1)} (chips per hand)"
  return HEADERS.get(column, column)


def for_markdown(table: pd.DataFrame) -> pd.DataFrame:
  """``table`` with its columns named for the report (``header``); the numbers unchanged."""
  return table.rename(columns=header)


def convergence_table(frame: pd.DataFrame, iterations: int) -> pd.DataFrame:
  marks = sorted({t for t in TABLE_ITERATIONS if t < iterations} | {iterations})
  data = frame[frame.part == "convergence"]
  rows = []
  for (game, depth, leaves), runs in data.groupby(["game", "depth", "leaves"], sort=False):
    row = {"game": game, "depth": depth, "leaves": leaves}
    for t in marks:
      row[f"T={t}"] = float(runs[runs.iteration == t].exploitability.median())
    row["trunk"] = float(runs.trunk.median())
    rows.append(row)
  return pd.DataFrame(rows)


def error_table(frame: pd.DataFrame) -> pd.DataFrame:
  rows = finals(frame[frame.part == "error"])
  columns = ["game", "depth", "leaves", "label", "seed", "err_mean", "err_max", "path_err_mean",
             "path_err_max", "exploitability", "trunk"]
  return rows[columns].reset_index(drop=True)


def modified_table(frame: pd.DataFrame, iterations: int) -> pd.DataFrame:
  marks = sorted({t for t in TABLE_ITERATIONS if t < iterations} | {iterations})
  data = frame[frame.part == "modified"]
  rows = []
  for (game, depth, leaves, variant), runs in data.groupby(
      ["game", "depth", "leaves", "variant"], sort=False):
    row = {"game": game, "depth": depth, "leaves": leaves, "variant": variant}
    for t in marks:
      row[f"T={t}"] = float(runs[runs.iteration == t].exploitability.median())
    row["trunk"] = float(runs.trunk.median())
    row["P(Q calls bet)"] = float(runs.q_call.median())
    rows.append(row)
  return pd.DataFrame(rows)


def self_play_table(frame: pd.DataFrame) -> pd.DataFrame:
  rows = finals(frame[frame.part == "self-play"])
  out = []
  for r, runs in rows.groupby("round"):
    out.append({"round": int(r), "examples": int(runs.examples.median()),
                "held-out err (median)": runs.err_mean.median(),
                "on-path err (median)": runs.path_err_mean.median(),
                "on-path err (max)": runs.path_err_mean.max(),
                "exploitability (median)": runs.exploitability.median(),
                "exploitability (min)": runs.exploitability.min(),
                "exploitability (max)": runs.exploitability.max(),
                "trunk (median)": runs.trunk.median()})
  return pd.DataFrame(out)
