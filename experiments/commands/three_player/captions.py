"""The three-player experiment's text: the section's title, the figures' captions, the paragraphs
on the family and the summary, and the section put together."""

from typing import Sequence

import pandas as pd

from experiments.commands.three_player.plan import NON_UNIT_GAME
from experiments.harness import solver_registry
from experiments.harness import tables

TITLE = "Three-player Kuhn poker: convergence and the equilibrium family"
NASH_CONV_CAPTION = (
    "`three_player_nash_conv.png`: NashConv (chips) of each solver's average policy against "
    "iterations (top) and solver time (bottom: CPU time of the thread running the iterations; "
    "the measurements and the process's first call of the engine's compiled kernels are outside "
    "it), one column per game, log-log; bands: min-max over seeds; dashed: O(1/sqrt(T)).")
FAMILY_CAPTION = (
    "`three_player_family.png`: left, player 0's value against player 2's for every run (small "
    "marker: T/10; large hollow marker: T, OpenSpiel's solvers' larger, so that two runs at one "
    "point both show) beside the family's segment of values (grey; dotted: to the nearest "
    "member's values); middle, the same enlarged around the segment, where the final points "
    "gather; right, player 1's value against T beside the family's constant -1/48. Colour: "
    "solver; marker shape: seed (second legend).")
FAMILY_PARAGRAPH = (
    "**Which equilibrium.** On `kuhn_poker(players=3)` (= `kuhn_poker_ante(players=3)`, one "
    "game: each engine solver gives identical numbers on both, checked) the reference is the "
    "Szafron-Gibson-Sturtevant family (AAMAS 2013): values (-1/48 - beta/24, -1/48, "
    "1/24 + beta/24) for players 0, 1, 2 (the paper's P1, P2, P3), beta = max(b11, b21) in "
    "[0, 1/4]. The member nearest each average policy (least squares over the 48 information "
    "states; distance: Euclidean, over the 48 probabilities of betting or calling), per "
    "solver over its seeds at its final T, on the family game where it ran the most "
    "iterations (a range is the min to the max over the seeds):")
NO_FAMILY_GAME = "(no family game run)"
SUMMARY_PARAGRAPH = (
    f"**Every run**, and `{NON_UNIT_GAME}`, which has no published closed form: NashConv at T, "
    "its slope (least-squares slope of log NashConv against log T over the measuring points "
    "from T/10 to T; -1/2 would be the two-player bound's rate), the values the runs reach "
    "(players 0, 1, 2) and, on the family's games, the nearest member with its free "
    "parameters. The engine's runs on `kuhn_poker_ante(players=3)` are left out: they equal "
    "those on `kuhn_poker(players=3)` (checked); OpenSpiel's solvers run there the short "
    "budget of games written in Python.")
# The markdown headers of the tables' columns (the CSV files keep the short names).
NASH_CONV = "NashConv (chips per hand)"
DISTANCE = "distance to the nearest member (Euclidean over 48 probabilities)"
SLOPE = "slope of log NashConv against log T (measuring points from T/10 to T)"
HEADERS = {
    "T": "iterations T",
    "NashConv": NASH_CONV,
    "P0 value": "player 0's value (chips per hand)",
    "P2 value": "player 2's value (chips per hand)",
    "values": "players' values (chips per hand)",
    "distance": DISTANCE,
    "slope": SLOPE,
}
# Why a cell of the summary is missing, per markdown header.
NO_FAMILY = "no published equilibrium family for this game"
MISSING = {
    "nearest member": NO_FAMILY,
    DISTANCE: f"{NO_FAMILY}, so no nearest member",
    SLOPE: "fewer than two measuring points from T/10 to T, or a NashConv of 0 among them",
}
# What ``frames.summary_frame`` writes (and the CSV keeps) where there is no family.
NO_MEMBER = "-"


def values_caption(name: str, game: str) -> str:
  """The caption of figure ``name``, ``figures.plot_values`` on ``game``."""
  return (f"`{name}`: every player's value of the average policy against T on {game}, one panel "
          "per player (colour: solver; hollow marker shape: seed, second legend); no published "
          "equilibrium to compare with.")


def intro_paragraph(iterations: int, num_seeds: int, seed: int, python_iterations: int) -> str:
  """The section's opening: NashConv instead of exploitability, and the budgets of the run."""
  return (
      "Three-player Kuhn poker. With three players exploitability is replaced by **NashConv** "
      "(the sum of the players' best-response gains, exact on the game tree and checked against "
      "OpenSpiel's `exploitability.nash_conv`); CFR has no n-player convergence guarantee, so "
      "whether NashConv goes to 0 is measured here. Full-traversal solvers run "
      f"T = {iterations} iterations, sampled ones {solver_registry.SAMPLED_BUDGET_FACTOR}x "
      f"with {num_seeds} seeds ({seed}..{seed + num_seeds - 1}); OpenSpiel's solvers run "
      f"{python_iterations} (sampled: {solver_registry.SAMPLED_BUDGET_FACTOR}x) on games "
      "written in Python, where each of their state steps crosses into Python, only to check "
      "them against the engine there.")


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
      FAMILY_PARAGRAPH,
      "",
      (tables.markdown_table(for_markdown(members), digits=4, missing=MISSING)
       if not members.empty else NO_FAMILY_GAME),
      "",
      SUMMARY_PARAGRAPH,
      "",
      tables.markdown_table(for_markdown(summary), digits=4, missing=MISSING),
      "",
      "Figures: " + " ".join(captions)])
