"""The three-player large-deck experiment's text: opening paragraph, captions and tables (the
words in ``captions.md`` beside this file, filled in from the plan here)."""

import pandas as pd

from experiments.commands.three_player_large import plan
from experiments.harness import tables
from experiments.harness import templates

TITLE = "Three-player Kuhn poker with a large deck"
DECK_FIGURE = "three_player_large_deck_structure.png"
POT_FIGURE = "three_player_large_deck_pot.png"
VALUES_FIGURE = "three_player_large_deck_values.png"

# The section's words (paragraphs, captions, headings), in ``captions.md`` beside this file.
CAPTIONS = templates.load(__package__)


def intro(decks, pots, pot_cards: int) -> str:
  return CAPTIONS.fill("intro", solver=plan.SOLVER, iterations=plan.ITERATIONS,
                   large_min_cards=plan.LARGE_MIN_CARDS,
                   small_iterations=plan.SMALL_DECK_ITERATIONS,
                   decks=", ".join(f"{d:,}" for d in decks),
                   pots=", ".join(f"{p:g}" for p in pots), pot_cards=pot_cards)


def _solves_table(solves: pd.DataFrame) -> str:
  shown = solves[["cards", "pot", "nash_conv", "openspiel_nash_conv", "flat_nash_conv", "u0",
                  "u1", "u2", "mid_range_node", "mid_range_low", "mid_range_high",
                  "cpu_seconds"]].rename(columns={
                      "cards": "N", "pot": "P", "nash_conv": "NashConv (chips/hand)",
                      "openspiel_nash_conv": "OpenSpiel's NashConv of our policy",
                      "flat_nash_conv": "flat engine's NashConv of our policy", "u0": "u_0",
                      "u1": "u_1", "u2": "u_2", "mid_range_node": "mid-range bet at",
                      "mid_range_low": "from (fraction)", "mid_range_high": "to (fraction)",
                      "cpu_seconds": "CPU s"})
  return tables.markdown_table(shown)


def docs_tables(deck: pd.DataFrame, pot: pd.DataFrame, rates: pd.DataFrame) -> str:
  """The tables of the report and of docs/three_player_large_deck.md."""
  return "\n\n".join([
      CAPTIONS["deck_sweep_heading"], _solves_table(deck), CAPTIONS["pot_sweep_heading"],
      _solves_table(pot), CAPTIONS["rates_heading"],
      tables.markdown_table(rates.rename(columns={"distance": "distance d(N)",
                                                  "points": "decks fitted"}))])


def report_markdown(decks, pots, pot_cards, deck, pot, rates) -> str:
  return "\n\n".join([intro(decks, pots, pot_cards), docs_tables(deck, pot, rates),
                      CAPTIONS.fill("deck_figure", figure=DECK_FIGURE),
                      CAPTIONS.fill("pot_figure", figure=POT_FIGURE),
                      CAPTIONS.fill("values_figure", figure=VALUES_FIGURE), CAPTIONS["closing"]])
