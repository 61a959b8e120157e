"""The three-player experiment's text: the section's title, the figures' captions, the paragraphs
on the family and the summary, and the section put together. The words are in ``captions.md``
beside this file (``CAPTIONS``); the figures' captions are filled in by ``figures``."""

from typing import Sequence

import pandas as pd

from experiments.commands.three_player.plan import NON_UNIT_GAME
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.harness import templates

TITLE = "Three-player Kuhn poker: convergence and the equilibrium family"
# The section's words (paragraphs, captions, long labels), in ``captions.md`` beside this file.
CAPTIONS = templates.load(__package__)
# The markdown headers of the tables' columns (the CSV files keep the short names).
DISTANCE = CAPTIONS["distance_header"]
SLOPE = CAPTIONS["slope_header"]
HEADERS = {
    "T": "iterations T",
    "NashConv": "NashConv (chips per hand)",
    "P0 value": "player 0's value (chips per hand)",
    "P2 value": "player 2's value (chips per hand)",
    "values": "players' values (chips per hand)",
    "distance": DISTANCE,
    "slope": SLOPE,
}
# Why a cell of the summary is missing, per markdown header.
MISSING = {
    "nearest member": CAPTIONS["no_family"],
    DISTANCE: CAPTIONS["no_distance"],
    SLOPE: CAPTIONS["no_slope"],
}
# What ``frames.summary_frame`` writes (and the CSV keeps) where there is no family.
NO_MEMBER = "-"


def intro_paragraph(iterations: int, num_seeds: int, seed: int, python_iterations: int) -> str:
  """The section's opening: NashConv instead of exploitability, and the budgets of the run."""
  return CAPTIONS.fill("intro", iterations=iterations,
                       factor=solver_registry.SAMPLED_BUDGET_FACTOR, num_seeds=num_seeds,
                       first_seed=seed, last_seed=seed + num_seeds - 1,
                       python_iterations=python_iterations)


def for_markdown(table: pd.DataFrame) -> pd.DataFrame:
  """``table`` as the report shows it: the headers in words with units (``HEADERS``), and the
  summary's ``NO_MEMBER`` cells missing values (a footnote says why); the numbers unchanged."""
  shown = table.copy()
  for column in ("nearest member", "distance"):
    if column in shown:
      shown[column] = shown[column].mask(shown[column].astype(str) == NO_MEMBER)
  return shown.rename(columns=HEADERS)


def report_markdown(intro: str, members: pd.DataFrame, summary: pd.DataFrame,
                    captions: Sequence[str]) -> str:
  """The section's text: ``intro``, the family members with their table, every run's summary
  table, and the figures' captions."""
  return "\n".join([
      intro,
      "",
      CAPTIONS["family_paragraph"],
      "",
      (tables.markdown_table(for_markdown(members), digits=4, missing=MISSING)
       if not members.empty else CAPTIONS["no_family_game"]),
      "",
      CAPTIONS.fill("summary_paragraph", game=NON_UNIT_GAME),
      "",
      tables.markdown_table(for_markdown(summary), digits=4, missing=MISSING),
      "",
      CAPTIONS["figures"] + " " + " ".join(captions)])
