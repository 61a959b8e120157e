"""The three-player large-deck experiment's text: opening paragraph, captions and tables."""

import pandas as pd

from experiments.commands.three_player_large import plan
from experiments.harness import tables

TITLE = "Three-player Kuhn poker with a large deck"
DECK_FIGURE = "three_player_large_deck_structure.png"
POT_FIGURE = "three_player_large_deck_pot.png"
VALUES_FIGURE = "three_player_large_deck_values.png"

STRUCTURE_CAPTION = (
    "one panel per opening bet (player 0 opens; player 1 after player 0 checked; player 2 after "
    "two checks): each bar covers the cards (fractions of the deck, 0 the lowest) that bet, "
    "betting a best action for them (at indifference where they mix), coloured by the bet's kind "
    "against the two later "
    "players (a bluff if it beats less than 5% of that player's calling hands, else a value "
    "bet); last "
    "panel: the lowest calling card at each answering node. Gaps above the top bar are traps "
    "(the best cards check).")
DECK_CAPTION = (f"`{DECK_FIGURE}`: the structure against the deck size N at P = 3; "
                + STRUCTURE_CAPTION + " What to see: from about 25 cards on the picture stops "
                "changing; the green bar is the mid-range bet.")
POT_CAPTION = (f"`{POT_FIGURE}`: the same against the initial pot P on one deck. "
               "What to see: where the mid-range bet exists, and how the ranges widen with P.")
VALUES_CAPTION = (
    f"`{VALUES_FIGURE}`: left, the players' values against N at P = 3 (player 2, last to act, "
    "wins what players 0 and 1 lose); right, the largest distance of the values and of the "
    "calling thresholds from the largest deck's, with least-squares fits C N^-k (table below).")


def intro(decks, pots, pot_cards: int) -> str:
  return " ".join([
      "Three-player Kuhn poker with an N-card deck, `kuhn_poker_ante(players=3, deck_size=N,",
      "ante=P/3, bet=1)`: P is the initial pot, Billingham's pot size (standard three-player",
      f"Kuhn poker is N = 4, P = 3). Every game is solved by {plan.SOLVER} on the range-vector",
      f"engine, {plan.ITERATIONS:,} iterations from {plan.LARGE_MIN_CARDS} cards on and",
      f"{plan.SMALL_DECK_ITERATIONS:,} below (where CFR+ and the discounted rules cycle), and",
      "certified by its exact NashConv; CFR has no three-player guarantee, so the NashConv",
      "column says what each solve reached. Decks",
      ", ".join(f"{d:,}" for d in decks), f"at P = 3; pots {', '.join(f'{p:g}' for p in pots)}",
      f"on {pot_cards:,} cards. Checked: our evaluator's NashConv against OpenSpiel's and the",
      "flat engine's evaluators of the same policy on small decks (a check of the evaluator,",
      "not of the solver), the certificates, the Szafron-Gibson-Sturtevant family on 4 cards,",
      "and",
      "Billingham's mid-range bet (arXiv 1802.04670): a bet with mid-range cards that is a",
      "bluff against one player and a value bet against the other, for N > 5."])


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
      "N sweep at P = 3:", _solves_table(deck), "Pot sweep:", _solves_table(pot),
      "Fitted rates (the largest deck stands in for the limit):",
      tables.markdown_table(rates.rename(columns={"distance": "distance d(N)",
                                                  "points": "decks fitted"}))])


def report_markdown(decks, pots, pot_cards, deck, pot, rates) -> str:
  return "\n\n".join([intro(decks, pots, pot_cards), docs_tables(deck, pot, rates),
                      DECK_CAPTION, POT_CAPTION, VALUES_CAPTION,
                      "The continuous limit's indifference conditions are not derived here: "
                      "the tables give the thresholds they would have to reproduce."])


