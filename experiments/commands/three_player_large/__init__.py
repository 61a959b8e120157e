"""Three-player Kuhn poker with a large deck: equilibria found by CFR+ against N and the pot.

The range-vector engine for three players (``algorithms.cfr.range3_engine``) solves three-player
Kuhn poker at any deck in time linear in N. The experiment solves the standard game at P = 3 on
decks from 4 to 10,000 cards and at several pot sizes P on one deck, certifies each solution by
its exact NashConv, reads its betting structure (``solve.components``, ``solve.bet_kinds``) and
compares it with the published results: the Szafron-Gibson-Sturtevant family at 4 cards, and
Billingham's mid-range bet for N > 5 (J. Billingham, "Equilibrium solutions of three player Kuhn
poker with N > 3 cards", arXiv 1802.04670, 2018). The values' and calling thresholds' distances
from the largest deck's are fitted as C N^-k (``frames``).

The package, each module importing only those before it: ``plan`` (decks, pots, the solver and
its budget), ``solve``, ``frames``, ``checks``, ``figures``, ``captions``; this module runs them
in order.
"""

import argparse

import pandas as pd

from experiments.commands.three_player_large import captions
from experiments.commands.three_player_large import checks
from experiments.commands.three_player_large import figures
from experiments.commands.three_player_large import frames
from experiments.commands.three_player_large import plan
from experiments.commands.three_player_large import solve
from experiments.harness import arguments
from experiments.harness import plotting
from experiments.harness import tables
from experiments.harness.context import Context
from experiments.harness.section import ReportSection
from spiel_games import atomic_file

NAME = plan.NAME
REPORT_ORDER = 87  # Place in the report (and in ``run``): after large-deck, before ReBeL.
HELP = ("Three-player Kuhn poker up to 10,000 cards on range vectors: betting structure and "
        "values against N and the pot, NashConv certificates, the published N-card results.")

SOLVES_TABLE = "three_player_large_deck_solves.csv"
COMPONENTS_TABLE = "three_player_large_deck_components.csv"
RATES_TABLE = "three_player_large_deck_rates.csv"
DOCS_TABLE = "three_player_large_deck_table.md"


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument(
      "--max-cards", type=arguments.deck_type(plan.SMALLEST_DECK, plan.LARGEST_DECK), metavar="N",
      help=f"largest deck of the N sweep (default {plan.DECKS.default[-1]:,}, "
      f"{plan.DECKS.quick[-1]:,} with --quick)")


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  quick = ctx.quick
  decks = plan.DECKS.resolve(None, quick)
  if args.max_cards is not None:
    decks = tuple(d for d in decks if d < args.max_cards) + (args.max_cards,)
  pots, pot_cards = plan.POTS.resolve(None, quick), plan.POT_CARDS.resolve(None, quick)
  openspiel_max = plan.OPENSPIEL_MAX_CARDS.resolve(None, quick)
  deck_records = []
  for n in decks:
    ctx.note(f"solving {n:,} cards at P = {plan.MAIN_POT:g}")
    deck_records.append(solve.solve(n, plan.MAIN_POT, openspiel=n <= openspiel_max,
                                    flat=n <= plan.FLAT_MAX_CARDS))
  pot_records = []
  for p in pots:
    ctx.note(f"solving {pot_cards:,} cards at P = {p:g}")
    pot_records.append(solve.solve(pot_cards, p))
  deck = frames.solves_frame(deck_records, frames.DECK_SWEEP)
  pot = frames.solves_frame(pot_records, frames.POT_SWEEP)
  parts = pd_concat([frames.components_frame(deck_records, frames.DECK_SWEEP),
                     frames.components_frame(pot_records, frames.POT_SWEEP)])
  distance = frames.distances(deck_records)
  rates = frames.rates_frame(distance)
  for frame, name in ((pd_concat([deck, pot]), SOLVES_TABLE), (parts, COMPONENTS_TABLE),
                      (rates, RATES_TABLE)):
    tables.write_csv(frame, ctx.out / name)
  atomic_file.atomic_write_text(ctx.out / DOCS_TABLE, captions.docs_tables(deck, pot, rates))
  deck_parts = parts[parts.sweep == frames.DECK_SWEEP]
  pot_parts = parts[parts.sweep == frames.POT_SWEEP]
  for figure, name in ((figures.plot_structure(deck_parts, "cards"), captions.DECK_FIGURE),
                       (figures.plot_structure(pot_parts, "pot"), captions.POT_FIGURE),
                       (figures.plot_values(deck, distance, rates), captions.VALUES_FIGURE)):
    plotting.save_figure(figure, ctx.out / name)
  return ReportSection(
      title=captions.TITLE,
      markdown=captions.report_markdown(decks, pots, pot_cards, deck, pot, rates),
      figures=[captions.DECK_FIGURE, captions.POT_FIGURE, captions.VALUES_FIGURE],
      tables=[SOLVES_TABLE, COMPONENTS_TABLE, RATES_TABLE],
      checks=checks.all_checks(deck_records + pot_records, pd_concat([deck, pot]), distance))


def pd_concat(parts) -> pd.DataFrame:
  return pd.concat(parts, ignore_index=True)
