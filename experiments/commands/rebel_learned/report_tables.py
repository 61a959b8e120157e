"""The report's four tables, one per figure, from the results frame."""

import pandas as pd

from experiments.commands.rebel_learned.plan import TABLE_ITERATIONS
from experiments.commands.rebel_learned.results import finals


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
