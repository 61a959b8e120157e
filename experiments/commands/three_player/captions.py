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
    "states; distance: Euclidean, over the 48 probabilities of betting or calling):")
NO_FAMILY_GAME = "(no family game run)"
SUMMARY_PARAGRAPH = (
    f"**Every run**, and `{NON_UNIT_GAME}`, which has no published closed form: NashConv at T, "
    "its slope (least-squares slope of log NashConv against log T over the last decade of "
    "iterations; -1/2 would be the two-player bound's rate), the values the runs reach and, on "
    "the family's game, the nearest member with its free parameters.")


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


def report_markdown(intro: str, members: pd.DataFrame, summary: pd.DataFrame,
                    captions: Sequence[str]) -> str:
  """The section's text: ``intro``, the family members with their table, every run's summary
  table, and the figures' captions."""
  return "\n".join([
      intro,
      "",
      FAMILY_PARAGRAPH,
      "",
      tables.markdown_table(members, digits=4) if not members.empty else NO_FAMILY_GAME,
      "",
      SUMMARY_PARAGRAPH,
      "",
      tables.markdown_table(summary, digits=4),
      "",
      "Figures: " + " ".join(captions)])
